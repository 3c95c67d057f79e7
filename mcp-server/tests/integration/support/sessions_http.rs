//! 2025-11-25 sessions over a raw loopback connection, for the replay-budget tests
//! (`replay_budget`, `replay_memory`): opening a session, POSTs on it accepting only SSE,
//! reading the first event id of a stream, resuming with `Last-Event-ID`, and the process's
//! resident memory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use serde_json::{Value, json};

use super::abuse::{Conn, within};

/// The revision of the sessions opened here.
pub const LEGACY: &str = "2025-11-25";
/// Accepts SSE only: every answer of a session's request is a resumable stream.
pub const SSE_ONLY: &str = "text/event-stream";

/// A POST of `body` (raw JSON text) to `/mcp`, on `session` if given, accepting `accept`.
pub fn post_raw(session: Option<&str>, body: &[u8], accept: &str) -> Vec<u8> {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: {accept}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {LEGACY}\r\n"
        ));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// [`post_raw`] of a JSON message.
pub fn post(session: Option<&str>, message: &Value, accept: &str) -> Vec<u8> {
    post_raw(session, message.to_string().as_bytes(), accept)
}

/// Opens a 2025-11-25 session (`initialize`, then `notifications/initialized`); its id.
pub async fn open_session(addr: SocketAddr) -> String {
    open_session_declaring(addr, json!({})).await
}

/// [`open_session`] for a client declaring `capabilities`.
pub async fn open_session_declaring(addr: SocketAddr, capabilities: Value) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": capabilities,
        "clientInfo": {"name": "replay-budget", "version": "1"}}});
    let mut conn = Conn::open(addr).await;
    let request = post(None, &initialize, "application/json, text/event-stream");
    let (head, body) = within(10, "initialize", conn.exchange(&request))
        .await
        .unwrap();
    assert_eq!(head.status, 200, "{}", String::from_utf8_lossy(&body));
    let session = head
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let request = post(
        Some(&session),
        &initialized,
        "application/json, text/event-stream",
    );
    let (head, _) = within(10, "initialized", conn.exchange(&request))
        .await
        .unwrap();
    assert_eq!(head.status, 202);
    session
}

/// A `tools/call` of `tool` without arguments, id `id`.
pub fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}}})
}

/// POSTs `message` on `session` (JSON answers accepted) and reads the status and JSON answer.
pub async fn exchange(addr: SocketAddr, session: &str, message: &[u8]) -> (u16, Value) {
    let mut conn = Conn::open(addr).await;
    let request = post_raw(
        Some(session),
        message,
        "application/json, text/event-stream",
    );
    let (head, body) = within(10, "an answer", conn.exchange(&request))
        .await
        .unwrap();
    let json = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&body)));
    (head.status, json)
}

/// Reads the head of an SSE answer on `conn`, then its first event (the priming event of a
/// 2025-11-25 stream); that event's id.
pub async fn first_event_id(conn: &mut Conn) -> String {
    let head = within(10, "the head of a stream", conn.head())
        .await
        .unwrap();
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some(SSE_ONLY));
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = within(10, "the first event", conn.chunk()).await.unwrap();
        let chunk = chunk.expect("a stream that ends before its first event");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let id = text.lines().find_map(|line| line.strip_prefix("id:"));
    id.expect("an event id").trim().to_owned()
}

/// GET on `session` with `Last-Event-ID: last_event_id`: the status, and the JSON answer of
/// a refusal (`Value::Null` for a stream).
pub async fn resume(addr: SocketAddr, session: &str, last_event_id: &str) -> (u16, Value) {
    let request = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {SSE_ONLY}\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {LEGACY}\r\n\
         Last-Event-ID: {last_event_id}\r\n\r\n"
    );
    let mut conn = Conn::open(addr).await;
    conn.write(request.as_bytes()).await.unwrap();
    let head = within(10, "the answer to a resume", conn.head())
        .await
        .unwrap();
    if head.header("content-type") == Some(SSE_ONLY) {
        return (head.status, Value::Null);
    }
    let body = within(10, "the refusal", conn.body(&head)).await.unwrap();
    (head.status, serde_json::from_slice(&body).unwrap())
}

/// The resident memory of this process, in KiB (`VmRSS` of `/proc/self/status`).
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}
