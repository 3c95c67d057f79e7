//! Request ids and replay buffers of 2025-11-25 sessions under abuse (issue 18, attack 1), on
//! a real loopback socket with a byte-level client:
//!
//! - a `ping` whose id is a 3.5 MB string, POSTed on a session accepting only SSE, is
//!   refused with `-32600` and no id (nothing echoed, nothing kept), as is a response POSTed
//!   with such an id, and the session keeps serving;
//! - a tool result larger than the per-stream replay bound is still delivered whole to a
//!   client reading its stream; it is only not kept for replay;
//! - the endpoint's replay budget is shared by its sessions: when it is short, the oldest
//!   stream whose client went away, of any session, is released (a resume of it gets 400),
//!   and a newer one still resumes with its whole answer.
//!
//! The memory the replay buffers keep for abandoned streams is measured in `replay_memory`,
//! a test binary of its own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use serde_json::{Value, json};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{RequestContext, Server, ToolRoute};

use crate::support::abuse::{Conn, serve_http, serve_http_with_send_buffer, within};
use crate::support::sessions_http::{
    SSE_ONLY, call, exchange, first_event_id, open_session, post, resume,
};

/// The size of the `large` tool's answer: twice the default per-stream replay bound.
const LARGE: usize = 2 * 1024 * 1024;

async fn start() -> SocketAddr {
    let server = Server::builder()
        .tool(
            ToolRoute::new("large", |_ctx: RequestContext| async { "l".repeat(LARGE) })
                .description("Answers with two megabytes of text."),
        )
        .build()
        .unwrap();
    serve_http(server, HttpConfig::default()).await
}

/// The size of the `medium` tool's answer: within the per-stream bound.
const MEDIUM: usize = 900_000;

/// A ping on `session` with id `id` is answered.
async fn assert_pings(addr: SocketAddr, session: &str, id: u64) {
    let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
    let (status, reply) = exchange(addr, session, ping.as_bytes()).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
}

#[tokio::test]
async fn a_ping_with_a_huge_id_is_refused_without_echo_and_the_session_keeps_serving() {
    let addr = start().await;
    let session = open_session(addr).await;
    let huge = "i".repeat(3_500_000);
    for round in 0..4 {
        // Accepting only SSE, the socket closed right after, as in the attack.
        let ping = format!(r#"{{"jsonrpc":"2.0","id":"{huge}","method":"ping"}}"#);
        let mut abandoned = Conn::open(addr).await;
        let request =
            crate::support::sessions_http::post_raw(Some(&session), ping.as_bytes(), SSE_ONLY);
        abandoned.write(&request).await.unwrap();
        drop(abandoned);

        // The same, read: refused at once, with a short answer that does not echo the id.
        let mut conn = Conn::open(addr).await;
        let (head, body) = within(10, "the refusal", conn.exchange(&request))
            .await
            .unwrap();
        assert_eq!(head.status, 400, "round {round}");
        assert!(body.len() < 200, "{} bytes: the id was echoed", body.len());
        let reply: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        assert!(reply.get("id").is_none_or(Value::is_null), "{reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("id is longer than 256 bytes"), "{message}");
        assert_pings(addr, &session, round).await;
    }

    // A response to a pushed request, with such an id, is refused too (not accepted, 202).
    let answer = format!(r#"{{"jsonrpc":"2.0","id":"{huge}","result":{{}}}}"#);
    let (status, reply) = exchange(addr, &session, answer.as_bytes()).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply.get("id").is_none_or(Value::is_null), "{reply}");

    // An id of exactly 256 bytes is fine.
    let id = "k".repeat(256);
    let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
    let (status, reply) = exchange(addr, &session, ping.as_bytes()).await;
    assert_eq!((status, &reply["id"]), (200, &json!(id)), "{reply}");
    assert_pings(addr, &session, 99).await;
}

#[tokio::test]
async fn a_result_over_the_replay_bound_is_delivered_whole_to_a_reading_client() {
    let addr = start().await;
    let session = open_session(addr).await;
    let mut conn = Conn::open(addr).await;
    conn.write(&post(Some(&session), &call(7, "large"), SSE_ONLY))
        .await
        .unwrap();
    let priming = first_event_id(&mut conn).await;
    let mut events = conn.events();
    let reply = within(20, "the large result", events.next())
        .await
        .unwrap()
        .expect("the result event");
    assert_eq!(reply["id"], 7);
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(text.len(), LARGE, "delivered whole");
    assert!(
        within(10, "the end of the stream", events.next())
            .await
            .unwrap()
            .is_none()
    );

    // It was not kept: the stream cannot be replayed from before it.
    let (status, refusal) = resume(addr, &session, &priming).await;
    assert_eq!(status, 400, "{refusal}");
    let message = refusal["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no stream of this session"), "{message}");
    assert_pings(addr, &session, 1).await;
}

#[tokio::test]
async fn the_endpoint_budget_releases_the_oldest_abandoned_stream_of_any_session() {
    let server = Server::builder()
        .tool(
            ToolRoute::new("medium", |_ctx: RequestContext| async {
                "m".repeat(MEDIUM)
            })
            .description("Answers with 900 kB of text."),
        )
        .build()
        .unwrap();
    // Room for three answers in all; a fixed send buffer keeps an unread answer in the server.
    let config = HttpConfig::default().replay_bytes_total(3 * 1024 * 1024);
    let addr = serve_http_with_send_buffer(server, config, 64 * 1024).await;
    let mut abandoned = Vec::new();
    for n in 0..4 {
        let session = open_session(addr).await;
        let mut conn = Conn::open(addr).await;
        conn.write(&post(Some(&session), &call(n, "medium"), SSE_ONLY))
            .await
            .unwrap();
        let priming = first_event_id(&mut conn).await;
        drop(conn);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        abandoned.push((session, priming));
    }
    let (session, priming) = &abandoned[0];
    let (status, refusal) = resume(addr, session, priming).await;
    assert_eq!(status, 400, "the oldest was released: {refusal}");
    let message = refusal["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("released for room"), "{message}");

    // The newest one was kept whole, and resumes.
    let (session, priming) = &abandoned[3];
    let request = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {SSE_ONLY}\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Last-Event-ID: {priming}\r\n\r\n"
    );
    let mut conn = Conn::open(addr).await;
    conn.write(request.as_bytes()).await.unwrap();
    let head = within(10, "the resumed stream", conn.head()).await.unwrap();
    assert_eq!(head.status, 200);
    let mut events = conn.events();
    let reply = within(20, "the replayed answer", events.next())
        .await
        .unwrap()
        .expect("the answer");
    assert_eq!(reply["id"], 3);
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(text.len(), MEDIUM);
    assert_pings(addr, session, 5).await;
}
