"""The official Python MCP SDK 1.x (FastMCP) serving the benchmark's `echo` tool, for the
comparison table of `benchmarks/` (benches/table.rs).

    python server.py stdio         newline-delimited JSON on stdin/stdout
    python server.py http <port>   Streamable HTTP at http://127.0.0.1:<port>/mcp

The SDK 1.x speaks protocol 2025-11-25: a client opens a session with `initialize`, and over
HTTP every later request carries its `Mcp-Session-Id`. Replies over HTTP are plain JSON
(`json_response=True`), not event streams; logging is at WARNING (no access log).
"""

import sys

from mcp.server.fastmcp import FastMCP


def main() -> None:
    args = sys.argv[1:]
    if args == ["stdio"]:
        server = FastMCP("mcp-benchmarks-echo", log_level="WARNING")
        transport = "stdio"
    elif len(args) == 2 and args[0] == "http":
        server = FastMCP(
            "mcp-benchmarks-echo",
            host="127.0.0.1",
            port=int(args[1]),
            json_response=True,
            log_level="WARNING",
        )
        transport = "streamable-http"
    else:
        sys.exit("usage: python server.py stdio | http <port>")

    @server.tool(description="Echo the text back")
    def echo(text: str) -> str:
        return text

    server.run(transport)


if __name__ == "__main__":
    main()
