"""What the Python booking clients (booking_client.py here and in ../python-legacy) ask the
booking example (examples/booking.rs), how they answer its questions, and the report they
print: a plain module with no MCP import, so that both SDK versions share it.

The booking is made three times, once per ending: `confirmed` (a meeting of 8 about "Design
review", room `north-2` when offered, confirmed), `declined` (the same, the confirmation
declined) and `cancelled` (the room question cancelled). The report holds the negotiated
version, each tool's `outputSchema` type (`null` when there is none), what `list_rooms`
answered (its structured content and its text), for each ending the questions asked, the rooms
offered and the final text, the prompt's text, the resource's contents, the server's stderr
lines that book a room (stdio only) and the errors of the steps that failed.
"""

import contextlib
import json

BOOK_ARGUMENTS = {"building": "north", "needs": {"projector": True}}
ENDINGS = ("confirmed", "declined", "cancelled")
MEETING = {"title": "Design review", "attendees": 8}
PREFERRED_ROOM = "north-2"


def describe(error: BaseException) -> dict:
    """An error as the report shows it: its JSON-RPC code if it has one, and its text (the first
    error inside exception groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return {"code": getattr(getattr(error, "error", None), "code", None), "message": repr(error)}


class Script:
    """The report, filled step by step, and the answers of the current ending."""

    def __init__(self, mode: str, transport: str) -> None:
        self.ending = None
        self.report = {
            "mode": mode,
            "transport": transport,
            "protocolVersion": None,
            "tools": {},
            "rooms": None,
            "endings": {},
            "prompt": None,
            "resource": None,
            "booked": [],
            "errors": {},
        }

    @contextlib.asynccontextmanager
    async def step(self, name: str):
        """Runs one step; an error is recorded under `name` instead of raised."""
        try:
            yield
        except Exception as error:  # noqa: BLE001 - reported: the test reads the report
            self.report["errors"][name] = describe(error)

    def begin(self, ending: str) -> None:
        self.ending = ending
        self.report["endings"][ending] = {"asked": [], "offered": [], "text": None, "isError": None}

    def answer(self, params: dict) -> dict:
        """The reply (action and content) to the question `params` of an `elicitation/create`."""
        current = self.report["endings"][self.ending]
        current["asked"].append(params.get("message"))
        properties = params.get("requestedSchema", {}).get("properties", {})
        if "title" in properties:
            return {"action": "accept", "content": MEETING}
        if "room" in properties:
            room = properties["room"]
            offered = [option["const"] for option in room.get("oneOf", [])] + room.get("enum", [])
            current["offered"] = offered
            if self.ending == "cancelled":
                return {"action": "cancel"}
            return {"action": "accept", "content": {"room": PREFERRED_ROOM if PREFERRED_ROOM in offered else offered[0]}}
        if "ok" in properties:
            if self.ending == "declined":
                return {"action": "decline"}
            return {"action": "accept", "content": {"ok": True}}
        return {"action": "decline"}

    def record_tools(self, tools: list) -> None:
        self.report["tools"] = {tool["name"]: (tool.get("outputSchema") or {}).get("type") for tool in tools}

    def record_rooms(self, result: dict) -> None:
        self.report["rooms"] = {
            "structured": result.get("structuredContent"),
            "text": text_of(result),
            "isError": bool(result.get("isError")),
        }

    def record_booking(self, result: dict) -> None:
        current = self.report["endings"][self.ending]
        current["text"] = text_of(result)
        current["isError"] = bool(result.get("isError"))

    def record_prompt(self, result: dict) -> None:
        messages = result.get("messages", [])
        self.report["prompt"] = "\n".join(message["content"].get("text", "") for message in messages)

    def record_resource(self, result: dict) -> None:
        self.report["resource"] = result.get("contents", [])

    def record_server_log(self, log: str) -> None:
        self.report["booked"] = [line for line in log.splitlines() if "booked:" in line]


def text_of(result: dict) -> str:
    return "\n".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


def dumps(report: dict) -> str:
    return json.dumps(report)
