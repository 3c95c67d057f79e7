//! The operations of the soak load, and the one answer each must get.
//!
//! Good traffic:
//! * [`Kind::Echo`]: a 2026-07-28 `tools/call` of `echo`, checked in full;
//! * [`Kind::Flow`]: a three-round multi-round flow (`input_required` with a `requestState`,
//!   answered twice with `inputResponses` and the echoed state, then complete);
//! * [`Kind::Session`]: a 2025-11-25 session: `initialize`, `notifications/initialized`, an
//!   `echo` call under its `Mcp-Session-Id`, `DELETE`, then a call on the deleted session,
//!   which must get 404.
//!
//! Bad input, each refused in one exact way (status, and JSON-RPC error code where the
//! server sends one):
//! * [`Kind::Malformed`]: a body cut in the middle of the JSON;
//! * [`Kind::WrongTypes`]: `echo` with a number where the text goes (a tool result flagged
//!   `isError`, `Invalid arguments: ...`, as MCP asks for input validation errors);
//! * [`Kind::Tampered`]: a flow whose round-2 `requestState` has one character changed (round 1
//!   must succeed);
//! * [`Kind::Oversized`]: a body larger than the server's limit;
//! * [`Kind::UnknownTool`]: a call of a tool that does not exist;
//! * [`Kind::BadHeaders`]: in turn, `Mcp-Name` contradicting the body, a `text/plain` body, an
//!   `Accept` without JSON, a foreign `Host`, an unknown `MCP-Protocol-Version`, and an
//!   unknown `Mcp-Session-Id`.
//!
//! An operation returns the number of HTTP requests it sent, or a failure: any other answer,
//! or a transport error.

use bytes::Bytes;
use http::Method;
use serde_json::Value;

use super::MAX_BODY_BYTES;
use super::http::{Client, Outgoing, Reply};
use crate::protocol::{
    self, ACCEPT, CONTENT_TYPE_JSON, FLOW_TOOL_NAME, FlowRound, HEADER_METHOD, HEADER_NAME,
    HEADER_PROTOCOL_VERSION, HEADER_SESSION_ID, INITIALIZE_BODY, INITIALIZED_BODY,
    LEGACY_PROTOCOL_VERSION, METHOD, PROTOCOL_VERSION, TOOL_NAME,
};

/// What one operation of the load does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A plain `tools/call` of `echo`.
    Echo,
    /// A three-round multi-round flow.
    Flow,
    /// A 2025-11-25 session, from `initialize` to `DELETE`.
    Session,
    /// Malformed JSON.
    Malformed,
    /// Arguments of the wrong type.
    WrongTypes,
    /// A tampered `requestState`.
    Tampered,
    /// A body over the size limit.
    Oversized,
    /// An unknown tool.
    UnknownTool,
    /// Bad or contradicting headers.
    BadHeaders,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 9] = [
        Kind::Echo,
        Kind::Flow,
        Kind::Session,
        Kind::Malformed,
        Kind::WrongTypes,
        Kind::Tampered,
        Kind::Oversized,
        Kind::UnknownTool,
        Kind::BadHeaders,
    ];

    /// The order in which a worker runs operations (then starts again): 20 slots, 8 plain
    /// calls, 3 flows, 2 sessions and 7 bad inputs.
    pub const MIX: [Kind; 20] = [
        Kind::Echo,
        Kind::Flow,
        Kind::Echo,
        Kind::Malformed,
        Kind::Echo,
        Kind::Session,
        Kind::WrongTypes,
        Kind::Echo,
        Kind::Flow,
        Kind::Tampered,
        Kind::Echo,
        Kind::BadHeaders,
        Kind::Oversized,
        Kind::Echo,
        Kind::Flow,
        Kind::UnknownTool,
        Kind::Echo,
        Kind::Session,
        Kind::BadHeaders,
        Kind::Echo,
    ];

    /// Short name, for the summary.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Echo => "echo call",
            Kind::Flow => "3-round flow",
            Kind::Session => "2025 session",
            Kind::Malformed => "malformed JSON",
            Kind::WrongTypes => "wrong types",
            Kind::Tampered => "tampered state",
            Kind::Oversized => "oversized body",
            Kind::UnknownTool => "unknown tool",
            Kind::BadHeaders => "bad headers",
        }
    }

    /// Index in [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Why an operation failed: the step and what came back.
pub type Failure = String;

/// Runs one operation of `kind` on `client`. `ids` hands out JSON-RPC ids; `turn` picks the
/// variant of the kinds that have several. Returns the number of HTTP requests sent.
pub async fn run(
    kind: Kind,
    client: &mut Client,
    ids: &mut u64,
    turn: u64,
) -> Result<u64, Failure> {
    let mut next_id = || {
        *ids += 1;
        *ids
    };
    match kind {
        Kind::Echo => {
            let id = next_id();
            let reply = send(client, call(TOOL_NAME, protocol::request_body(id)), "echo").await?;
            expect_ok(&reply, "echo")?;
            protocol::check_reply_full(&reply.json, id).map_err(|e| format!("echo: {e}"))?;
            Ok(1)
        }
        Kind::Flow => {
            let mut state = None;
            for round in [FlowRound::First, FlowRound::Second, FlowRound::Third] {
                state = flow_round(client, next_id(), round, state.as_deref()).await?;
            }
            Ok(3)
        }
        Kind::Session => session(client, &mut next_id).await,
        Kind::Malformed => {
            let id = next_id();
            let mut body = protocol::request_body(id);
            body.truncate(body.len() / 2);
            let reply = send(client, call(TOOL_NAME, body), "malformed").await?;
            expect_error(&reply, 400, Some(-32700), "malformed")?;
            Ok(1)
        }
        Kind::WrongTypes => {
            let id = next_id();
            let body = wrong_types_body(id);
            let reply = send(client, call(TOOL_NAME, body), "wrong types").await?;
            expect_tool_error(&reply, id, "Invalid arguments", "wrong types")?;
            Ok(1)
        }
        Kind::Tampered => {
            let state = flow_round(client, next_id(), FlowRound::First, None)
                .await?
                .ok_or("tampered: round 1 gave no state")?;
            let tampered = tamper(&state, turn);
            let id = next_id();
            let body = protocol::flow_request_body(id, FlowRound::Second, Some(&tampered));
            let reply = send(client, call(FLOW_TOOL_NAME, body), "tampered").await?;
            expect_error(&reply, 200, Some(-32602), "tampered")?;
            Ok(2)
        }
        Kind::Oversized => {
            let id = next_id();
            let body = oversized_body(id);
            let reply = send(client, call(TOOL_NAME, body), "oversized").await?;
            expect_error(&reply, 413, None, "oversized")?;
            Ok(1)
        }
        Kind::UnknownTool => {
            let id = next_id();
            let body = unknown_tool_body(id);
            let reply = send(client, call("no_such_tool", body), "unknown tool").await?;
            expect_error(&reply, 200, Some(-32602), "unknown tool")?;
            Ok(1)
        }
        Kind::BadHeaders => bad_headers(client, next_id(), turn).await,
    }
}

/// A call of `echo` whose text is a number.
pub(super) fn wrong_types_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":42}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{PROTOCOL_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

/// A call of `echo` whose text makes the message larger than [`MAX_BODY_BYTES`].
pub(super) fn oversized_body(id: u64) -> String {
    let text = "x".repeat(MAX_BODY_BYTES + 1024);
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{PROTOCOL_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

/// A call of a tool that does not exist.
pub(super) fn unknown_tool_body(id: u64) -> String {
    String::from_utf8_lossy(&protocol::request_body(id))
        .replace(r#""name":"echo""#, r#""name":"no_such_tool""#)
}

/// The headers of a 2026-07-28 `tools/call` of `tool`.
fn call_headers(tool: &str) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", CONTENT_TYPE_JSON.to_owned()),
        ("accept", ACCEPT.to_owned()),
        (HEADER_PROTOCOL_VERSION, PROTOCOL_VERSION.to_owned()),
        (HEADER_METHOD, METHOD.to_owned()),
        (HEADER_NAME, tool.to_owned()),
    ]
}

/// A 2026-07-28 `tools/call` of `tool` with this body.
fn call(tool: &str, body: impl Into<Bytes>) -> Outgoing {
    Outgoing::post(call_headers(tool), body)
}

/// The headers of a request on 2025-11-25 session `session`.
fn session_headers(session: &str) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", CONTENT_TYPE_JSON.to_owned()),
        ("accept", ACCEPT.to_owned()),
        (HEADER_SESSION_ID, session.to_owned()),
        (HEADER_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION.to_owned()),
    ]
}

async fn send(client: &mut Client, request: Outgoing, step: &str) -> Result<Reply, Failure> {
    client
        .send(&request)
        .await
        .map_err(|e| format!("{step}: transport: {e:#}"))
}

fn expect_ok(reply: &Reply, step: &str) -> Result<(), Failure> {
    if reply.status == 200 {
        Ok(())
    } else {
        Err(format!(
            "{step}: expected HTTP 200, got {}",
            reply.describe()
        ))
    }
}

/// The reply has this status and, when `code` is given, is a JSON-RPC error with that code.
fn expect_error(reply: &Reply, status: u16, code: Option<i64>, step: &str) -> Result<(), Failure> {
    let found = rpc_error_code(&reply.json);
    let code_matches = code.is_none_or(|code| found == Some(code));
    if reply.status == status && code_matches {
        Ok(())
    } else {
        let code = code.map_or(String::new(), |c| format!(", error {c}"));
        Err(format!(
            "{step}: expected HTTP {status}{code}, got {}",
            reply.describe()
        ))
    }
}

/// The reply is a tool result to request `id` flagged `isError`, whose text starts with
/// `prefix` (how a tool reports arguments it cannot read).
fn expect_tool_error(reply: &Reply, id: u64, prefix: &str, step: &str) -> Result<(), Failure> {
    if reply.status == 200 && is_tool_error(&reply.json, id, prefix) {
        Ok(())
    } else {
        Err(format!(
            "{step}: expected HTTP 200, a tool result with isError and {prefix:?}, got {}",
            reply.describe()
        ))
    }
}

/// Whether `json` is a tool result to request `id` flagged `isError`, whose text starts
/// with `prefix`.
pub(super) fn is_tool_error(json: &[u8], id: u64, prefix: &str) -> bool {
    let value: Option<Value> = serde_json::from_slice(json).ok();
    let result = value
        .as_ref()
        .filter(|v| v.get("id").and_then(Value::as_u64) == Some(id))
        .and_then(|v| v.get("result"));
    let flagged = result.is_some_and(|r| r.get("isError") == Some(&Value::Bool(true)));
    let text = result.and_then(|r| r["content"][0]["text"].as_str());
    flagged && text.is_some_and(|t| t.starts_with(prefix))
}

/// The `error.code` of a JSON-RPC message, if it is an error.
pub(super) fn rpc_error_code(json: &[u8]) -> Option<i64> {
    let value: Value = serde_json::from_slice(json).ok()?;
    value.get("error")?.get("code")?.as_i64()
}

/// Sends round `round` of a flow as request `id` and checks the reply; returns the state to
/// echo next.
async fn flow_round(
    client: &mut Client,
    id: u64,
    round: FlowRound,
    state: Option<&str>,
) -> Result<Option<String>, Failure> {
    let body = protocol::flow_request_body(id, round, state);
    let reply = send(client, call(FLOW_TOOL_NAME, body), "flow").await?;
    expect_ok(&reply, "flow")?;
    protocol::check_flow_reply(&reply.json, id, round, round == FlowRound::Third)
        .map_err(|e| format!("flow {round:?}: {e}"))
}

/// `state` with the character at a position chosen by `turn` replaced by another of the
/// base64url alphabet.
pub(super) fn tamper(state: &str, turn: u64) -> String {
    let mut bytes = state.as_bytes().to_vec();
    if bytes.is_empty() {
        return "x".to_owned();
    }
    let at = usize::try_from(turn).unwrap_or(0) % bytes.len();
    bytes[at] = match bytes[at] {
        b'A' => b'B',
        _ => b'A',
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A whole 2025-11-25 session; see [`Kind::Session`].
async fn session(client: &mut Client, next_id: &mut impl FnMut() -> u64) -> Result<u64, Failure> {
    let open = Outgoing::post(
        vec![
            ("content-type", CONTENT_TYPE_JSON.to_owned()),
            ("accept", ACCEPT.to_owned()),
        ],
        Bytes::from_static(INITIALIZE_BODY.as_bytes()),
    );
    let reply = send(client, open, "initialize").await?;
    expect_ok(&reply, "initialize")?;
    protocol::check_initialize_reply(&reply.json).map_err(|e| format!("initialize: {e}"))?;
    let session = reply
        .session
        .ok_or("initialize: the reply carries no Mcp-Session-Id")?;

    let initialized = Outgoing::post(
        session_headers(&session),
        Bytes::from_static(INITIALIZED_BODY.as_bytes()),
    );
    let reply = send(client, initialized, "initialized").await?;
    if reply.status != 202 {
        return Err(format!(
            "notifications/initialized: expected HTTP 202, got {}",
            reply.describe()
        ));
    }

    let id = next_id();
    let call = Outgoing::post(
        session_headers(&session),
        protocol::session_request_body(id),
    );
    let reply = send(client, call, "session call").await?;
    expect_ok(&reply, "session call")?;
    protocol::check_reply_full(&reply.json, id).map_err(|e| format!("session call: {e}"))?;

    let delete = Outgoing {
        method: Method::DELETE,
        headers: vec![
            (HEADER_SESSION_ID, session.clone()),
            (HEADER_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION.to_owned()),
        ],
        body: Bytes::new(),
    };
    let reply = send(client, delete, "delete").await?;
    if !matches!(reply.status, 200 | 204) {
        return Err(format!(
            "DELETE: expected HTTP 200 or 204, got {}",
            reply.describe()
        ));
    }

    let id = next_id();
    let after = Outgoing::post(
        session_headers(&session),
        protocol::session_request_body(id),
    );
    let reply = send(client, after, "call after delete").await?;
    expect_error(&reply, 404, None, "call after delete")?;
    Ok(5)
}

/// One of the bad-header requests, chosen by `turn`.
async fn bad_headers(client: &mut Client, id: u64, turn: u64) -> Result<u64, Failure> {
    let body = protocol::request_body(id);
    let mut headers = call_headers(TOOL_NAME);
    let set = |headers: &mut Vec<(&'static str, String)>, name: &'static str, value: &str| {
        headers.retain(|(n, _)| *n != name);
        headers.push((name, value.to_owned()));
    };
    let (step, status, code) = match turn % 6 {
        0 => {
            set(&mut headers, HEADER_NAME, FLOW_TOOL_NAME);
            ("Mcp-Name contradicting the body", 400, Some(-32020))
        }
        1 => {
            set(&mut headers, "content-type", "text/plain");
            ("text/plain body", 415, None)
        }
        2 => {
            set(&mut headers, "accept", "text/html");
            ("Accept without JSON", 406, None)
        }
        3 => {
            set(&mut headers, "host", "evil.example:80");
            ("foreign Host", 403, None)
        }
        4 => {
            set(&mut headers, HEADER_PROTOCOL_VERSION, "1999-01-01");
            ("unknown MCP-Protocol-Version", 400, Some(-32020))
        }
        _ => {
            headers = session_headers("no-such-session");
            let reply = send(
                client,
                Outgoing::post(headers, protocol::session_request_body(id)),
                "unknown session",
            )
            .await?;
            expect_error(&reply, 404, None, "unknown Mcp-Session-Id")?;
            return Ok(1);
        }
    };
    let reply = send(client, Outgoing::post(headers, body), step).await?;
    expect_error(&reply, status, code, step)?;
    Ok(1)
}
