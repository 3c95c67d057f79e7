"""Drives the deploy example (examples/deploy.rs) over Streamable HTTP with the official
Python MCP SDK client, pinned in requirements.txt. Run by tests/end_to_end/interop_python.rs:

    python deploy_client.py <url> <target>

The client negotiates the protocol with `server/discover` (no `initialize`), declares form and
URL elicitation, and lets its own driver fulfil every `input_required` round of `deploy`
through the elicitation callback below: it confirms, answers the rollout plan (3 replicas, all
at once), picks `us-east-1` among the regions the server offers (or the first one), and
consents to the URL-mode approval page.

Prints one JSON object on stdout: the negotiated version, the questions it was asked (URL-mode
ones as `url: <message>`, their URLs in `urls`), the JSON-RPC requests it POSTed (method, and
whether it carried inputResponses and requestState), and the tool's text or the error.
"""

import asyncio
import json
import sys

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


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


async def main(url: str, target: str) -> dict:
    report = {"protocolVersion": None, "asked": [], "urls": [], "posted": [], "text": None, "error": None}

    async def record(request: httpx2.Request) -> None:
        if request.method != "POST":
            return
        message = json.loads(request.content or b"null")
        if isinstance(message, dict) and "id" in message and "method" in message:
            params = message.get("params") or {}
            report["posted"].append(
                {
                    "method": message["method"],
                    "inputResponses": "inputResponses" in params,
                    "requestState": "requestState" in params,
                }
            )

    async def elicit(_context, params) -> types.ElicitResult:
        wire = params.model_dump(by_alias=True, exclude_none=True)
        if wire.get("mode") == "url":
            report["asked"].append(f"url: {wire['message']}")
            report["urls"].append(wire["url"])
            return types.ElicitResult(action="accept")
        report["asked"].append(wire["message"])
        return types.ElicitResult(action="accept", content=answer(wire))

    http = httpx2.AsyncClient(event_hooks={"request": [record]})
    transport = streamable_http_client(url, http_client=http)
    try:
        async with http, Client(transport, mode="auto", elicitation_callback=elicit) as client:
            report["protocolVersion"] = client.protocol_version
            result = await client.call_tool("deploy", {"target": target})
            report["isError"] = bool(result.is_error)
            report["text"] = "\n".join(block.text for block in result.content if block.type == "text")
    except Exception as error:  # noqa: BLE001 - reported, not raised: the test reads the report
        report["error"] = {"code": getattr(getattr(error, "error", None), "code", None), "message": repr(error)}
    return report


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: python deploy_client.py <url> <target>", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2]))))
