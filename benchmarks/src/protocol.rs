//! The one request every target receives, and validation of the replies.
//!
//! The request is a stateless MCP `2026-07-28` `tools/call` of the `echo` tool:
//! no `initialize`, no session; the protocol version and client capabilities
//! travel in the request's `_meta`, and over HTTP also in the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers. Over stdio the
//! same JSON body is sent as one line.
//!
//! Every reply gets a cheap check ([`check_reply`]: the id matches and a
//! `result`, not an `error`, is present); a sample gets the full check
//! ([`check_reply_full`]: also `jsonrpc` and the echoed text). Replies that come
//! as a `text/event-stream` are unpacked with [`json_payload`].
//!
//! The three-round flow sends [`flow_request_body`] (tool `flow`, clientCapabilities
//! declaring `elicitation`) and checks each reply with [`check_flow_reply`], which also
//! hands back the `requestState` to echo.
//!
//! The task scenario (the tasks extension, `io.modelcontextprotocol/tasks`) creates a task
//! with [`task_request_body`] (tool `task_echo`, clientCapabilities declaring the extension),
//! whose reply [`check_task_created`] checks and hands back the task id, then polls it with
//! [`task_get_body`] (`tasks/get`, the task id also in the `Mcp-Name` header) until
//! [`check_task_poll`] sees it `completed` with the echoed text.
//!
//! The session mode (2025-11-25) opens a session per connection with [`INITIALIZE_BODY`] and
//! [`INITIALIZED_BODY`], then sends [`session_request_body`]: the same `echo` call without
//! `_meta`, under the session's `Mcp-Session-Id` and `MCP-Protocol-Version: 2025-11-25`.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

/// MCP protocol revision under test.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// Path of the MCP endpoint on every HTTP target.
pub const MCP_PATH: &str = "/mcp";
/// Name of the tool every target serves.
pub const TOOL_NAME: &str = "echo";
/// Argument sent to the tool, expected back as the text content.
pub const ECHO_TEXT: &str = "hello";
/// JSON-RPC method of the request.
pub const METHOD: &str = "tools/call";

/// `Accept` header value of the request.
pub const ACCEPT: &str = "application/json, text/event-stream";
/// `Content-Type` of the request body.
pub const CONTENT_TYPE_JSON: &str = "application/json";
/// Header naming the protocol revision.
pub const HEADER_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// Header naming the JSON-RPC method (SEP-2243 standard headers).
pub const HEADER_METHOD: &str = "mcp-method";
/// Header naming the called tool (SEP-2243 standard headers).
pub const HEADER_NAME: &str = "mcp-name";

const BODY_PREFIX: &str = r#"{"jsonrpc":"2.0","id":"#;
const BODY_SUFFIX: &str = r#","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// The JSON-RPC body of request `id` (no trailing newline).
pub fn request_body(id: u64) -> Vec<u8> {
    let mut body = Vec::with_capacity(BODY_PREFIX.len() + BODY_SUFFIX.len() + 20);
    write_request(&mut body, id);
    body
}

/// Appends the JSON-RPC body of request `id` to `out` (no trailing newline).
pub fn write_request(out: &mut Vec<u8>, id: u64) {
    out.extend_from_slice(BODY_PREFIX.as_bytes());
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(BODY_SUFFIX.as_bytes());
}

/// Why a reply does not count as a success.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyError {
    /// HTTP status other than 200.
    Status(u16, String),
    /// The body is not the expected JSON-RPC message.
    Malformed(String),
    /// A JSON-RPC message for another id.
    WrongId {
        /// The id the request carried.
        expected: u64,
        /// The id found in the reply, as JSON text.
        found: String,
    },
    /// A JSON-RPC error reply (or a tool result flagged `isError`).
    JsonRpcError(String),
    /// Transport failure, timeout or a closed connection.
    Transport(String),
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Status(code, body) => write!(f, "HTTP {code}: {body}"),
            Self::Malformed(why) => write!(f, "malformed reply: {why}"),
            Self::WrongId { expected, found } => {
                write!(f, "reply id {found} does not match request id {expected}")
            }
            Self::JsonRpcError(error) => write!(f, "error reply: {error}"),
            Self::Transport(why) => write!(f, "transport: {why}"),
        }
    }
}

impl std::error::Error for ReplyError {}

#[derive(Deserialize)]
struct CheapReply<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    result: Option<IgnoredAny>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The id of a reply, if it is a JSON-RPC message with a numeric id.
pub fn reply_id(json: &[u8]) -> Option<u64> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: Option<u64>,
    }
    serde_json::from_slice::<IdOnly>(json).ok()?.id
}

/// A reply's `error` and `id`: no error, and the id of request `id`.
fn answered(error: Option<&RawValue>, found: Option<&RawValue>, id: u64) -> Result<(), ReplyError> {
    if let Some(error) = error {
        return Err(ReplyError::JsonRpcError(truncate(error.get())));
    }
    let found = found.map_or("none", RawValue::get);
    if found.parse::<u64>() != Ok(id) {
        return Err(ReplyError::WrongId {
            expected: id,
            found: found.to_owned(),
        });
    }
    Ok(())
}

/// Cheap check: `json` is a JSON-RPC success reply to request `id`.
pub fn check_reply(json: &[u8], id: u64) -> Result<(), ReplyError> {
    let reply: CheapReply<'_> =
        serde_json::from_slice(json).map_err(|e| ReplyError::Malformed(e.to_string()))?;
    answered(reply.error, reply.id, id)?;
    if reply.result.is_none() {
        return Err(ReplyError::Malformed("no `result` member".into()));
    }
    Ok(())
}

/// Full check: [`check_reply`], plus `"jsonrpc":"2.0"`, a tool result that is
/// not `isError`, and whose first text content is the echoed [`ECHO_TEXT`].
pub fn check_reply_full(json: &[u8], id: u64) -> Result<(), ReplyError> {
    check_reply(json, id)?;
    check_text(json, ECHO_TEXT)
}

/// The JSON-RPC message in an HTTP reply body.
///
/// A `text/event-stream` body yields the `data` of the last event whose data
/// is a JSON object with an `id` (priming and notification events are skipped);
/// any other body is returned as is.
pub fn json_payload<'a>(content_type: Option<&str>, body: &'a [u8]) -> Cow<'a, [u8]> {
    let is_sse = content_type.is_some_and(|ct| ct.starts_with("text/event-stream"));
    if !is_sse {
        return Cow::Borrowed(body);
    }
    let text = String::from_utf8_lossy(body);
    let mut found = None;
    for event in text.split("\n\n") {
        let data = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect::<Vec<_>>()
            .join("\n");
        if reply_id(data.as_bytes()).is_some() {
            found = Some(data);
        }
    }
    Cow::Owned(found.map(String::into_bytes).unwrap_or_default())
}

// ----- The 2025-11-25 session mode ------------------------------------------------------

/// The older protocol revision, whose HTTP transport keeps a session per client.
pub const LEGACY_PROTOCOL_VERSION: &str = "2025-11-25";
/// Header carrying the session id of the 2025-11-25 Streamable HTTP transport.
pub const HEADER_SESSION_ID: &str = "mcp-session-id";

/// The `initialize` request that opens a session (id 0; every later request of the
/// connection has an id of its own).
pub const INITIALIZE_BODY: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-benchmarks","version":"0.1.0"}}}"#;
/// The notification that completes the handshake.
pub const INITIALIZED_BODY: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

const SESSION_SUFFIX: &str =
    r#","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;

/// The JSON-RPC body of request `id` on a 2025-11-25 session: the same `echo` call, with no
/// `_meta` (the session carries the protocol version and the client's capabilities).
pub fn session_request_body(id: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(BODY_PREFIX.len() + SESSION_SUFFIX.len() + 20);
    out.extend_from_slice(BODY_PREFIX.as_bytes());
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(SESSION_SUFFIX.as_bytes());
    out
}

/// Appends [`session_request_body`]`(id)` to `out` (no allocation once `out` has room).
pub fn write_session_request(out: &mut Vec<u8>, id: u64) {
    use std::io::Write as _;
    out.extend_from_slice(BODY_PREFIX.as_bytes());
    let _ = write!(out, "{id}");
    out.extend_from_slice(SESSION_SUFFIX.as_bytes());
}

/// Checks the reply to [`INITIALIZE_BODY`]: a success whose `protocolVersion` is
/// [`LEGACY_PROTOCOL_VERSION`].
pub fn check_initialize_reply(json: &[u8]) -> Result<(), ReplyError> {
    check_reply(json, 0)?;
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| ReplyError::Malformed(e.to_string()))?;
    let version = value["result"]["protocolVersion"].as_str();
    if version != Some(LEGACY_PROTOCOL_VERSION) {
        return Err(ReplyError::Malformed(format!(
            "initialize negotiated {version:?}, expected {LEGACY_PROTOCOL_VERSION:?}"
        )));
    }
    Ok(())
}

// ----- The three-round flow -----------------------------------------------------------

/// Name of the multi-round tool of the flow scenario.
pub const FLOW_TOOL_NAME: &str = "flow";
/// The name given in answer to round 1.
pub const FLOW_NAME: &str = "Ann";
/// The colour given in answer to round 2.
pub const FLOW_COLOR: &str = "blue";
/// The text of the tool's final result.
pub const FLOW_DONE_TEXT: &str = "Multi-round complete for Ann who likes blue";
/// Key of round 1's question in `inputRequests` / `inputResponses`.
pub const FLOW_KEY_1: &str = "step1";
/// Key of round 2's question.
pub const FLOW_KEY_2: &str = "step2";

const FLOW_PREFIX: &str = r#"{"jsonrpc":"2.0","id":"#;
const FLOW_PARAMS: &str = r#","method":"tools/call","params":{"name":"flow","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
const FLOW_ANSWER_1: &str =
    r#","inputResponses":{"step1":{"action":"accept","content":{"name":"Ann"}}},"requestState":"#;
const FLOW_ANSWER_2: &str =
    r#","inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},"requestState":"#;

/// One round of the three-round flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowRound {
    /// The first call: no state, no answers; the server asks for a name.
    First,
    /// The retry answering the name, with round 1's state; the server asks for a colour.
    Second,
    /// The retry answering the colour, with round 2's state; the server completes.
    Third,
}

impl FlowRound {
    /// The key of the question this round's reply must ask (none for the last round).
    pub fn asks(self) -> Option<&'static str> {
        match self {
            Self::First => Some(FLOW_KEY_1),
            Self::Second => Some(FLOW_KEY_2),
            Self::Third => None,
        }
    }
}

/// The JSON-RPC body of round `round` of a flow, as request `id`: `state` is the
/// `requestState` the previous reply carried (`None` on the first round).
pub fn flow_request_body(id: u64, round: FlowRound, state: Option<&str>) -> Vec<u8> {
    let state_len = state.map_or(0, str::len);
    let mut out = Vec::with_capacity(FLOW_PREFIX.len() + FLOW_PARAMS.len() + 120 + state_len);
    out.extend_from_slice(FLOW_PREFIX.as_bytes());
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(FLOW_PARAMS.as_bytes());
    let answer = match round {
        FlowRound::First => None,
        FlowRound::Second => Some(FLOW_ANSWER_1),
        FlowRound::Third => Some(FLOW_ANSWER_2),
    };
    if let Some(answer) = answer {
        out.extend_from_slice(answer.as_bytes());
        // A JSON string: states are base64url and dots, but escape anyway.
        let _ = serde_json::to_writer(&mut out, state.unwrap_or(""));
    }
    out.extend_from_slice(b"}}");
    out
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlowResult<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(borrow)]
    request_state: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input_requests: Option<std::collections::BTreeMap<Cow<'a, str>, IgnoredAny>>,
}

#[derive(Deserialize)]
struct FlowReply<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<FlowResult<'a>>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// Checks the reply to round `round` of a flow sent as request `id`, and returns the
/// `requestState` to echo in the next round (`None` after the last round).
///
/// Rounds 1 and 2 must answer `resultType: "input_required"` with a `requestState` and an
/// input request under the round's key; round 3 a complete result. With `full`, round 3's
/// text is checked too (and `jsonrpc`, as in [`check_reply_full`]).
pub fn check_flow_reply(
    json: &[u8],
    id: u64,
    round: FlowRound,
    full: bool,
) -> Result<Option<String>, ReplyError> {
    let reply: FlowReply<'_> =
        serde_json::from_slice(json).map_err(|e| ReplyError::Malformed(e.to_string()))?;
    answered(reply.error, reply.id, id)?;
    let result = reply
        .result
        .ok_or_else(|| ReplyError::Malformed("no `result` member".into()))?;
    let input_required = result.result_type.as_deref() == Some("input_required");
    match round.asks() {
        Some(key) => {
            if !input_required {
                return Err(ReplyError::Malformed(format!(
                    "round {round:?}: expected an input_required result, got {}",
                    truncate(&String::from_utf8_lossy(json))
                )));
            }
            let asked = result
                .input_requests
                .as_ref()
                .is_some_and(|requests| requests.len() == 1 && requests.contains_key(key));
            if !asked {
                return Err(ReplyError::Malformed(format!(
                    "round {round:?}: expected one input request {key:?}: {}",
                    truncate(&String::from_utf8_lossy(json))
                )));
            }
            let state = result.request_state.ok_or_else(|| {
                ReplyError::Malformed(format!("round {round:?}: no requestState"))
            })?;
            Ok(Some(state.into_owned()))
        }
        None => {
            if input_required {
                return Err(ReplyError::Malformed(format!(
                    "round 3 asked for more input: {}",
                    truncate(&String::from_utf8_lossy(json))
                )));
            }
            if full {
                check_text(json, FLOW_DONE_TEXT)?;
            }
            Ok(None)
        }
    }
}

// ----- The tasks extension -----------------------------------------------------------

/// Name of the task tool of the task scenario (the `echo` tool, run as a task).
pub const TASK_TOOL_NAME: &str = "task_echo";
/// JSON-RPC method that polls a task.
pub const TASKS_GET_METHOD: &str = "tasks/get";

const TASK_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
const TASK_CALL: &str =
    r#","method":"tools/call","params":{"name":"task_echo","arguments":{"text":"hello"},"#;
const TASK_GET: &str = r#","method":"tasks/get","params":{"taskId":"#;

/// The JSON-RPC body that creates a task as request `id`: a `tools/call` of
/// [`TASK_TOOL_NAME`] from a client declaring the tasks extension.
pub fn task_request_body(id: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(BODY_PREFIX.len() + TASK_CALL.len() + TASK_META.len() + 22);
    out.extend_from_slice(BODY_PREFIX.as_bytes());
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(TASK_CALL.as_bytes());
    out.extend_from_slice(TASK_META.as_bytes());
    out.extend_from_slice(b"}}");
    out
}

/// The JSON-RPC body of request `id` polling task `task_id` (`tasks/get`, with the same
/// `_meta` as the call that created it).
pub fn task_get_body(id: u64, task_id: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        BODY_PREFIX.len() + TASK_GET.len() + TASK_META.len() + task_id.len() + 26,
    );
    out.extend_from_slice(BODY_PREFIX.as_bytes());
    out.extend_from_slice(id.to_string().as_bytes());
    out.extend_from_slice(TASK_GET.as_bytes());
    // A JSON string: task ids are hex, but escape anyway.
    let _ = serde_json::to_writer(&mut out, task_id);
    out.push(b',');
    out.extend_from_slice(TASK_META.as_bytes());
    out.extend_from_slice(b"}}");
    out
}

/// Where a polled task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskPoll {
    /// Still `working`: poll again.
    Working,
    /// `completed`, with the echoed text as its result.
    Completed,
}

#[derive(Deserialize)]
struct TextContent<'a> {
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult<'a> {
    is_error: Option<bool>,
    #[serde(borrow, default)]
    content: Vec<TextContent<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskResult<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(borrow)]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow)]
    result: Option<ToolResult<'a>>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TaskReply<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<TaskResult<'a>>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The `result` of a task reply to request `id`: `"jsonrpc":"2.0"`, the id, no `error`,
/// and `resultType` `expected_type`.
fn task_result<'a>(
    json: &'a [u8],
    id: u64,
    expected_type: &str,
) -> Result<TaskResult<'a>, ReplyError> {
    let reply: TaskReply<'a> =
        serde_json::from_slice(json).map_err(|e| ReplyError::Malformed(e.to_string()))?;
    answered(reply.error, reply.id, id)?;
    if reply.jsonrpc.as_deref() != Some("2.0") {
        return Err(ReplyError::Malformed("`jsonrpc` is not \"2.0\"".into()));
    }
    let result = reply
        .result
        .ok_or_else(|| ReplyError::Malformed("no `result` member".into()))?;
    if result.result_type.as_deref() != Some(expected_type) {
        return Err(ReplyError::Malformed(format!(
            "expected resultType {expected_type:?}: {}",
            truncate(&String::from_utf8_lossy(json))
        )));
    }
    Ok(result)
}

/// Checks the reply to [`task_request_body`]`(id)`: a `CreateTaskResult` (`resultType`
/// `task`, status `working`) whose task id it returns.
pub fn check_task_created(json: &[u8], id: u64) -> Result<String, ReplyError> {
    let result = task_result(json, id, "task")?;
    if result.status.as_deref() != Some("working") {
        return Err(ReplyError::Malformed(format!(
            "a new task is not working: {}",
            truncate(&String::from_utf8_lossy(json))
        )));
    }
    match result.task_id {
        Some(task_id) if !task_id.is_empty() => Ok(task_id.into_owned()),
        _ => Err(ReplyError::Malformed(format!(
            "no taskId: {}",
            truncate(&String::from_utf8_lossy(json))
        ))),
    }
}

/// Checks the reply to [`task_get_body`]`(id, task_id)`: task `task_id`, `working`, or
/// `completed` with a tool result that is not `isError` and whose first text content is
/// [`ECHO_TEXT`]. Any other status (`failed`, `cancelled`, `input_required`) is an error.
pub fn check_task_poll(json: &[u8], id: u64, task_id: &str) -> Result<TaskPoll, ReplyError> {
    let result = task_result(json, id, "complete")?;
    if result.task_id.as_deref() != Some(task_id) {
        return Err(ReplyError::Malformed(format!(
            "taskId {:?}, expected {task_id:?}",
            result.task_id
        )));
    }
    match result.status.as_deref() {
        Some("working") => Ok(TaskPoll::Working),
        Some("completed") => {
            let tool = result.result.ok_or_else(|| {
                ReplyError::Malformed("a completed task carries no `result`".into())
            })?;
            if tool.is_error == Some(true) {
                return Err(ReplyError::JsonRpcError(truncate(
                    &String::from_utf8_lossy(json),
                )));
            }
            let text = tool.content.first().and_then(|c| c.text.as_deref());
            if text != Some(ECHO_TEXT) {
                return Err(ReplyError::Malformed(format!(
                    "result.content[0].text is {text:?}, expected {ECHO_TEXT:?}"
                )));
            }
            Ok(TaskPoll::Completed)
        }
        Some("failed") => Err(ReplyError::JsonRpcError(format!(
            "the task failed: {}",
            truncate(result.error.map_or("no error", RawValue::get))
        ))),
        status => Err(ReplyError::Malformed(format!(
            "task status {status:?}: {}",
            truncate(&String::from_utf8_lossy(json))
        ))),
    }
}

/// `"jsonrpc":"2.0"`, a result that is not `isError`, whose first text content is `expected`.
fn check_text(json: &[u8], expected: &str) -> Result<(), ReplyError> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| ReplyError::Malformed(e.to_string()))?;
    if value.get("jsonrpc").and_then(|v| v.as_str()) != Some("2.0") {
        return Err(ReplyError::Malformed("`jsonrpc` is not \"2.0\"".into()));
    }
    let result = &value["result"];
    if result.get("isError").and_then(|v| v.as_bool()) == Some(true) {
        return Err(ReplyError::JsonRpcError(truncate(&result.to_string())));
    }
    let text = result["content"][0]["text"].as_str();
    if text != Some(expected) {
        return Err(ReplyError::Malformed(format!(
            "result.content[0].text is {text:?}, expected {expected:?}: {}",
            truncate(&result.to_string())
        )));
    }
    Ok(())
}

/// At most 200 characters of `text`, for error messages.
pub fn truncate(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_is_the_specified_body() -> anyhow::Result<()> {
        let body: serde_json::Value = serde_json::from_slice(&request_body(7))?;
        assert_eq!(
            body,
            serde_json::json!({
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {
                    "name": "echo",
                    "arguments": {"text": "hello"},
                    "_meta": {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}
                    }
                }
            })
        );
        Ok(())
    }

    #[test]
    fn accepts_a_good_reply() {
        let reply =
            br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
        assert_eq!(check_reply(reply, 3), Ok(()));
        assert_eq!(check_reply_full(reply, 3), Ok(()));
        assert_eq!(reply_id(reply), Some(3));
    }

    #[test]
    fn rejects_bad_replies() {
        let wrong_id = br#"{"jsonrpc":"2.0","id":4,"result":{}}"#;
        assert!(matches!(
            check_reply(wrong_id, 3),
            Err(ReplyError::WrongId { .. })
        ));
        let error = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"x"}}"#;
        assert!(matches!(
            check_reply(error, 3),
            Err(ReplyError::JsonRpcError(_))
        ));
        let tool_error = br#"{"jsonrpc":"2.0","id":3,"result":{"isError":true,"content":[]}}"#;
        assert!(check_reply(tool_error, 3).is_ok());
        assert!(check_reply_full(tool_error, 3).is_err());
        assert!(check_reply(b"not json", 3).is_err());
    }

    #[test]
    fn session_requests_are_the_specified_bodies() -> anyhow::Result<()> {
        let call: serde_json::Value = serde_json::from_slice(&session_request_body(8))?;
        assert_eq!(
            call,
            serde_json::json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hello"}}})
        );
        let init: serde_json::Value = serde_json::from_str(INITIALIZE_BODY)?;
        assert_eq!(init["params"]["protocolVersion"], LEGACY_PROTOCOL_VERSION);
        let initialized: serde_json::Value = serde_json::from_str(INITIALIZED_BODY)?;
        assert!(initialized.get("id").is_none());
        let good = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}"#;
        assert_eq!(check_initialize_reply(good), Ok(()));
        let older = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}"#;
        assert!(check_initialize_reply(older).is_err());
        Ok(())
    }

    #[test]
    fn flow_requests_are_the_specified_bodies() -> anyhow::Result<()> {
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        });
        let first: serde_json::Value =
            serde_json::from_slice(&flow_request_body(1, FlowRound::First, None))?;
        assert_eq!(
            first,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "flow", "arguments": {}, "_meta": meta}})
        );
        let second: serde_json::Value =
            serde_json::from_slice(&flow_request_body(2, FlowRound::Second, Some("s.1")))?;
        assert_eq!(second["params"]["requestState"], "s.1");
        assert_eq!(
            second["params"]["inputResponses"],
            serde_json::json!({"step1": {"action": "accept", "content": {"name": FLOW_NAME}}})
        );
        let third: serde_json::Value =
            serde_json::from_slice(&flow_request_body(3, FlowRound::Third, Some("s\"2")))?;
        assert_eq!(third["params"]["requestState"], "s\"2");
        assert_eq!(
            third["params"]["inputResponses"]["step2"]["content"]["color"],
            FLOW_COLOR
        );
        assert_eq!(third["params"]["_meta"], meta);
        Ok(())
    }

    #[test]
    fn checks_flow_replies() {
        let asking = br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"step1":{"method":"elicitation/create","params":{}}},"requestState":"tok"}}"#;
        assert_eq!(
            check_flow_reply(asking, 4, FlowRound::First, true),
            Ok(Some("tok".to_owned()))
        );
        assert!(check_flow_reply(asking, 4, FlowRound::Second, true).is_err());
        assert!(check_flow_reply(asking, 4, FlowRound::Third, true).is_err());
        assert!(check_flow_reply(asking, 5, FlowRound::First, true).is_err());
        let stateless = br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"step1":{}}}}"#;
        assert!(check_flow_reply(stateless, 4, FlowRound::First, true).is_err());
        let done = br#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","content":[{"type":"text","text":"Multi-round complete for Ann who likes blue"}]}}"#;
        assert_eq!(check_flow_reply(done, 6, FlowRound::Third, true), Ok(None));
        assert!(check_flow_reply(done, 6, FlowRound::First, true).is_err());
        let wrong = br#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"Multi-round cancelled."}]}}"#;
        assert_eq!(
            check_flow_reply(wrong, 6, FlowRound::Third, false),
            Ok(None)
        );
        assert!(check_flow_reply(wrong, 6, FlowRound::Third, true).is_err());
        let error =
            br#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid or expired"}}"#;
        assert!(matches!(
            check_flow_reply(error, 6, FlowRound::Second, false),
            Err(ReplyError::JsonRpcError(_))
        ));
    }

    #[test]
    fn task_requests_are_the_specified_bodies() -> anyhow::Result<()> {
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            }
        });
        let call: serde_json::Value = serde_json::from_slice(&task_request_body(5))?;
        assert_eq!(
            call,
            serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "task_echo", "arguments": {"text": "hello"}, "_meta": meta}})
        );
        let get: serde_json::Value = serde_json::from_slice(&task_get_body(6, "ab\"12"))?;
        assert_eq!(
            get,
            serde_json::json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/get",
                "params": {"taskId": "ab\"12", "_meta": meta}})
        );
        Ok(())
    }

    #[test]
    fn checks_task_creation() {
        let created = br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"task","taskId":"0123abcd","status":"working","createdAt":"2026-12-01T10:00:00.000Z","lastUpdatedAt":"2026-12-01T10:00:00.000Z","ttlMs":5000,"pollIntervalMs":500}}"#;
        assert_eq!(check_task_created(created, 5), Ok("0123abcd".to_owned()));
        assert!(matches!(
            check_task_created(created, 6),
            Err(ReplyError::WrongId { .. })
        ));
        // The call answered at once (the grace shortcut) is not a task.
        let at_once =
            br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
        assert!(check_task_created(at_once, 5).is_err());
        let no_id =
            br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"task","status":"working"}}"#;
        assert!(check_task_created(no_id, 5).is_err());
        let done = br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"task","taskId":"t","status":"completed"}}"#;
        assert!(check_task_created(done, 5).is_err());
        let refused = br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"full"}}"#;
        assert!(matches!(
            check_task_created(refused, 5),
            Err(ReplyError::JsonRpcError(_))
        ));
    }

    #[test]
    fn checks_task_polls() {
        let working = br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":5000}}"#;
        assert_eq!(check_task_poll(working, 7, "t1"), Ok(TaskPoll::Working));
        assert!(check_task_poll(working, 7, "t2").is_err());
        assert!(check_task_poll(working, 8, "t1").is_err());
        let completed = br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t1","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttlMs":5000,"result":{"content":[{"type":"text","text":"hello"}]}}}"#;
        assert_eq!(check_task_poll(completed, 8, "t1"), Ok(TaskPoll::Completed));
        let wrong_text = br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t1","status":"completed","result":{"content":[{"type":"text","text":"bye"}]}}}"#;
        assert!(check_task_poll(wrong_text, 8, "t1").is_err());
        let no_result = br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t1","status":"completed"}}"#;
        assert!(check_task_poll(no_result, 8, "t1").is_err());
        let tool_error = br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t1","status":"completed","result":{"isError":true,"content":[{"type":"text","text":"hello"}]}}}"#;
        assert!(matches!(
            check_task_poll(tool_error, 8, "t1"),
            Err(ReplyError::JsonRpcError(_))
        ));
        let failed = br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t1","status":"failed","error":{"code":-32603,"message":"boom"}}}"#;
        assert!(matches!(
            check_task_poll(failed, 8, "t1"),
            Err(ReplyError::JsonRpcError(e)) if e.contains("boom")
        ));
        let cancelled = br#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","taskId":"t1","status":"cancelled"}}"#;
        assert!(check_task_poll(cancelled, 8, "t1").is_err());
        let unknown =
            br#"{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Unknown task"}}"#;
        assert!(matches!(
            check_task_poll(unknown, 8, "t1"),
            Err(ReplyError::JsonRpcError(_))
        ));
    }

    #[test]
    fn unpacks_event_streams() {
        let body =
            b"id: 0\nretry: 3000\ndata: \n\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n\n";
        let json = json_payload(Some("text/event-stream"), body);
        assert_eq!(check_reply(&json, 9), Ok(()));
        let plain = json_payload(Some("application/json"), b"{}");
        assert_eq!(&*plain, b"{}");
    }
}
