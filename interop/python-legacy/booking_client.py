"""Drives the booking example (examples/booking.rs) with the official Python MCP SDK 1.x client,
pinned in requirements.txt, the way clients of protocol 2025-11-25 talk: `initialize`, then the
`elicitation/create` requests the server pushes during a call, answered by the callback below.
Run by tests/end_to_end/booking.rs:

    python booking_client.py http <url>
    python booking_client.py stdio <server executable>

The steps, the answers and the report are those of ../python/booking_answers.py, shared with
the 2.x client: the tools listed, `list_rooms`, the three endings of `book`, the `invitation`
prompt and `rooms://north-2`. Over stdio the client spawns the server itself and keeps its
stderr, to report the bookings it logged. Prints one JSON object on stdout.
"""

import asyncio
import json
import pathlib
import sys
import tempfile

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from booking_answers import BOOK_ARGUMENTS, ENDINGS, Script, describe  # noqa: E402


async def main(transport: str, where: str) -> dict:
    script = Script("legacy", transport)

    async def elicit(_context, params) -> types.ElicitResult:
        reply = script.answer(params.model_dump(mode="json", by_alias=True, exclude_none=True))
        return types.ElicitResult(**reply)

    async def run(read, write) -> None:
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            initialized = await session.initialize()
            script.report["protocolVersion"] = initialized.protocolVersion
            async with script.step("tools/list"):
                tools = await session.list_tools()
                script.record_tools([tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools.tools])
            async with script.step("list_rooms"):
                result = await session.call_tool("list_rooms", {"building": "north"})
                script.record_rooms(result.model_dump(mode="json", by_alias=True, exclude_none=True))
            for ending in ENDINGS:
                async with script.step(ending):
                    script.begin(ending)
                    result = await session.call_tool("book", BOOK_ARGUMENTS)
                    script.record_booking(result.model_dump(mode="json", by_alias=True, exclude_none=True))
            async with script.step("prompt"):
                prompt = await session.get_prompt("invitation", {"room": "north-2", "topic": "the roadmap"})
                script.record_prompt(prompt.model_dump(mode="json", by_alias=True, exclude_none=True))
            async with script.step("resource"):
                read_result = await session.read_resource("rooms://north-2")
                script.record_resource(read_result.model_dump(mode="json", by_alias=True, exclude_none=True))

    with tempfile.TemporaryFile(mode="w+") as errlog:
        try:
            if transport == "http":
                async with streamablehttp_client(where) as (read, write, _session_id):
                    await run(read, write)
            else:
                server = StdioServerParameters(command=where, args=[])
                async with stdio_client(server, errlog=errlog) as (read, write):
                    await run(read, write)
        except Exception as error:  # noqa: BLE001 - reported, not raised: the test reads the report
            script.report["errors"]["connect"] = describe(error)
        errlog.seek(0)
        script.record_server_log(errlog.read())
    return script.report


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("http", "stdio"):
        print("usage: python booking_client.py <http URL | stdio EXECUTABLE>", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2]))))
