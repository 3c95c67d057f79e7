"""A small server written with the official Python MCP SDK (PyPI `mcp`, pinned in
requirements.txt beside this file) that tests/end_to_end/client_interop.rs drives with our Rust client
(`typemcp-client`), to show the client completes a multi-round flow against a server nobody
here wrote, in both protocol eras.

It serves one tool, `deploy` (argument `target`), that asks one form question (a boolean
field `ok`) before it answers `Deployed to {target}.` (`ok` true) or `Not deployed.` (declined,
cancelled, or `ok` false). How it asks depends on the era the connection speaks, as the SDK
documents it (docs/handlers/multi-round-trip.md and docs/handlers/elicitation.md of
modelcontextprotocol/python-sdk):

- 2026-07-28 (`server/discover`, no session): the tool returns an `InputRequiredResult`
  carrying the question under the key `confirm`, and reads the answer from
  `ctx.input_responses` when the client retries the call.
- 2025-11-25 (a session opened with `initialize`): `await ctx.elicit(...)` pushes an
  `elicitation/create` request to the client mid-call and waits for the answer. An
  `InputRequiredResult` cannot be sent on that era (the SDK answers -32603), hence the branch
  on `ctx.protocol_version`.

Usage: `python deploy_server.py` serves over stdio; `python deploy_server.py --http PORT`
serves Streamable HTTP on http://127.0.0.1:PORT/mcp (both eras on the one endpoint; a 2025
session keeps its stream for the pushed question).
"""

import sys

from pydantic import BaseModel, Field

from mcp.server.elicitation import AcceptedElicitation
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

# The first revision without server-to-client requests.
MODERN = "2026-07-28"


class Confirm(BaseModel):
    """The one question: go ahead with the deploy?"""

    ok: bool = Field(description="Go ahead?")


# The same form, as it travels inside an `InputRequiredResult` on 2026-07-28.
CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "description": "Go ahead?"}},
    "required": ["ok"],
}

mcp = MCPServer("python-deploy-interop")


@mcp.tool(description="Deploys to a target once the user confirms.")
async def deploy(target: str, ctx: Context) -> str | InputRequiredResult:
    message = f"Deploy to {target}?"
    version = ctx.protocol_version or ""
    if version >= MODERN:
        answer = (ctx.input_responses or {}).get("confirm")
        if answer is None:
            ask = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=CONFIRM_SCHEMA))
            return InputRequiredResult(input_requests={"confirm": ask})
        content = answer.content if isinstance(answer, ElicitResult) and answer.action == "accept" else None
        ok = (content or {}).get("ok") is True
    else:
        pushed = await ctx.elicit(message, Confirm)
        ok = isinstance(pushed, AcceptedElicitation) and pushed.data.ok
    print(f"deploy {target!r} on {version or 'unknown'}: ok={ok}", file=sys.stderr, flush=True)
    return f"Deployed to {target}." if ok else "Not deployed."


def main() -> None:
    args = sys.argv[1:]
    if not args:
        mcp.run()
    elif len(args) == 2 and args[0] == "--http" and args[1].isdigit():
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(args[1]))
    else:
        sys.exit("usage: deploy_server.py [--http PORT]")


if __name__ == "__main__":
    main()
