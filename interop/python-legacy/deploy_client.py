"""Drives the deploy example (examples/deploy.rs) with the official Python MCP SDK 1.x client,
pinned in requirements.txt, the way clients of protocol 2025-11-25 talk: `initialize`, then
requests the server sends to the client (`elicitation/create`) answered by the callback below.
Run by tests/end_to_end/interop_python_legacy.rs:

    python deploy_client.py http <url> <target>
    python deploy_client.py stdio <server executable> <target>

Over stdio the client spawns the server itself and keeps its stderr, to report how many
deploys it rolled out. Given an elicitation callback, the client declares form and URL
elicitation; the callback confirms, answers the rollout plan (3 replicas, all at once), picks
`us-east-1` among the regions the server offers (or the first one), and consents to the
URL-mode approval page.

Prints one JSON object on stdout: the negotiated version, the questions it was asked (URL-mode
ones as `url: <message>`, their URLs in `urls`), the elicitation requests the server pushed
(`pushed`: their params as received), the JSON-RPC requests the client sent (`posted`: method,
and whether it carried inputResponses and requestState), the server's stderr lines that roll a
deploy out (stdio only), and the tool's text or the error. Then it lists the tools (`tools`:
each name and the type of its outputSchema) and calls `list_regions`, whose structured output
is a list (`regions`: isError, whether structuredContent came, the text; or `regionsError`).
"""

import asyncio
import json
import sys
import tempfile

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


def leaf(error: BaseException) -> BaseException:
    """The first error inside (nested) exception groups, or `error` itself."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def answer(params: dict) -> dict:
    """The content answering a form, chosen by its properties."""
    properties = params.get("requestedSchema", {}).get("properties", {})
    if "ok" in properties:
        return {"ok": True}
    if "replicas" in properties:
        return {"strategy": "immediate", "replicas": 3, "reason": "interop check"}
    if "region" in properties:
        region = properties["region"]
        offered = [option["const"] for option in region.get("oneOf", [])] + region.get("enum", [])
        return {"region": "us-east-1" if "us-east-1" in offered else offered[0]}
    raise ValueError(f"unexpected form: {params}")


async def main(mode: str, where: str, target: str) -> dict:
    report = {
        "mode": mode,
        "protocolVersion": None,
        "asked": [],
        "urls": [],
        "pushed": [],
        "posted": [],
        "rolledOut": [],
        "text": None,
        "error": None,
        "tools": None,
        "regions": None,
        "regionsError": None,
    }

    # `posted` records the requests of the deploy only, not those listing the regions after it.
    recording = {"deploy": True}

    class RecordingSession(ClientSession):
        """Records every request the client sends during the deploy."""

        async def send_request(self, request, *args, **kwargs):
            root = request.root
            params = root.params.model_dump(by_alias=True, exclude_none=True) if root.params else {}
            if recording["deploy"]:
                report["posted"].append(
                    {
                        "method": root.method,
                        "inputResponses": "inputResponses" in params,
                        "requestState": "requestState" in params,
                    }
                )
            return await super().send_request(request, *args, **kwargs)

    async def elicit(_context, params) -> types.ElicitResult:
        wire = params.model_dump(by_alias=True, exclude_none=True)
        report["pushed"].append(wire)
        if wire.get("mode") == "url":
            report["asked"].append(f"url: {wire['message']}")
            report["urls"].append(wire["url"])
            return types.ElicitResult(action="accept")
        report["asked"].append(wire["message"])
        return types.ElicitResult(action="accept", content=answer(wire))

    async def run(read, write) -> None:
        async with RecordingSession(read, write, elicitation_callback=elicit) as session:
            initialized = await session.initialize()
            report["protocolVersion"] = initialized.protocolVersion
            result = await session.call_tool("deploy", {"target": target})
            report["isError"] = bool(result.isError)
            report["text"] = "\n".join(block.text for block in result.content if block.type == "text")
            recording["deploy"] = False
            await list_regions(session)

    async def list_regions(session) -> None:
        # A tool whose structured output is a list: listed and called like any other.
        try:
            listed = await session.list_tools()
            report["tools"] = [
                {"name": tool.name, "outputSchemaType": (tool.outputSchema or {}).get("type")}
                for tool in listed.tools
            ]
            regions = await session.call_tool("list_regions", {"target": target})
            report["regions"] = {
                "isError": bool(regions.isError),
                "structured": regions.structuredContent is not None,
                "text": "\n".join(block.text for block in regions.content if block.type == "text"),
            }
        except Exception as error:  # noqa: BLE001 - reported, not raised
            report["regionsError"] = repr(leaf(error))

    with tempfile.TemporaryFile(mode="w+") as errlog:
        try:
            if mode == "http":
                async with streamablehttp_client(where) as (read, write, _session_id):
                    await run(read, write)
            else:
                server = StdioServerParameters(command=where, args=[])
                async with stdio_client(server, errlog=errlog) as (read, write):
                    await run(read, write)
        except Exception as error:  # noqa: BLE001 - reported, not raised: the test reads the report
            error = leaf(error)
            report["error"] = {"code": getattr(getattr(error, "error", None), "code", None), "message": repr(error)}
        errlog.seek(0)
        report["rolledOut"] = [line for line in errlog.read().splitlines() if "rolling out:" in line]
    return report


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("http", "stdio"):
        print("usage: python deploy_client.py <http URL | stdio EXECUTABLE> <target>", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))))
