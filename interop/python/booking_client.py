"""Drives the booking example (examples/booking.rs) with the official Python MCP SDK client,
pinned in requirements.txt, in either era. Run by tests/end_to_end/booking.rs:

    python booking_client.py <auto|legacy> http <url>
    python booking_client.py <auto|legacy> stdio <server executable>

`auto` negotiates with `server/discover` (2026-07-28: `input_required` rounds, fulfilled by the
client's own driver through the elicitation callback); `legacy` opens with `initialize`
(2025-11-25: the server pushes each question as an `elicitation/create` request). Over stdio
the client spawns the server itself and keeps its stderr, to report the bookings it logged.

The script lists the tools, calls `list_rooms` for the north building, then books three
times, once per ending of the flow (see booking_answers.py), gets the `invitation` prompt and
reads `rooms://north-2`. Each step is run on its own: an error is recorded under the step's
name and the script goes on. Prints one JSON object on stdout (see booking_answers.py).
"""

import asyncio
import json
import sys
import tempfile

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from booking_answers import BOOK_ARGUMENTS, ENDINGS, Script, describe


async def main(mode: str, transport: str, where: str) -> dict:
    script = Script(mode, transport)

    async def elicit(_context, params) -> types.ElicitResult:
        reply = script.answer(params.model_dump(mode="json", by_alias=True, exclude_none=True))
        return types.ElicitResult(**reply)

    with tempfile.TemporaryFile(mode="w+") as errlog:
        if transport == "http":
            server = where
        else:
            server = stdio_client(StdioServerParameters(command=where, args=[]), errlog=errlog)
        try:
            async with Client(server, mode=mode, elicitation_callback=elicit) as client:
                script.report["protocolVersion"] = client.protocol_version
                async with script.step("tools/list"):
                    tools = await client.list_tools()
                    script.record_tools([tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools.tools])
                async with script.step("list_rooms"):
                    result = await client.call_tool("list_rooms", {"building": "north"})
                    script.record_rooms(result.model_dump(mode="json", by_alias=True, exclude_none=True))
                for ending in ENDINGS:
                    async with script.step(ending):
                        script.begin(ending)
                        result = await client.call_tool("book", BOOK_ARGUMENTS)
                        script.record_booking(result.model_dump(mode="json", by_alias=True, exclude_none=True))
                async with script.step("prompt"):
                    prompt = await client.get_prompt("invitation", {"room": "north-2", "topic": "the roadmap"})
                    script.record_prompt(prompt.model_dump(mode="json", by_alias=True, exclude_none=True))
                async with script.step("resource"):
                    read = await client.read_resource("rooms://north-2")
                    script.record_resource(read.model_dump(mode="json", by_alias=True, exclude_none=True))
        except Exception as error:  # noqa: BLE001 - reported, not raised: the test reads the report
            script.report["errors"]["connect"] = describe(error)
        errlog.seek(0)
        script.record_server_log(errlog.read())
    return script.report


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("auto", "legacy") or sys.argv[2] not in ("http", "stdio"):
        print("usage: python booking_client.py <auto|legacy> <http URL | stdio EXECUTABLE>", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))))
