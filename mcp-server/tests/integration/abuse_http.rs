//! Abuse of the Streamable HTTP transport, on a real loopback socket, by byte-level clients
//! (`crate::support::abuse::Conn` over a raw `TcpStream`). Each test proves that the server keeps
//! serving other clients and loses nothing:
//!
//! - a body trickled byte by byte, or stalled mid-way by many clients at once, holds up no
//!   one, and the trickled request still gets its own answer; a chunked body trickled past
//!   the body limit is refused at the limit (413) instead of being read for ever;
//! - a client that stops reading its SSE stream holds back its own handler (backpressure,
//!   bounded memory), not the server, and once it reads again it gets every notification and
//!   the response;
//! - a burst of pipelined requests written at once on one connection is answered in order,
//!   each with its own id, and garbage after them gets 400 or a close;
//! - huge headers get 431 or a closed connection, and the next client is served;
//! - JSON nested 100 000 levels deep is a JSON-RPC error, not a stack overflow;
//! - a client that goes away in the middle of an SSE stream, or before its answer starts,
//!   cancels its handler (its `CancellationToken` fires and the handler stops).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use typemcp_server::transport::http::HttpConfig;

use crate::support::abuse::{
    Conn, JSON_AND_SSE, JSON_ONLY, Probe, assert_serving, call, call_with_progress,
    deeply_nested_messages, error_code, eventually, plateau, post, post_head, serve_http,
    serve_http_with_send_buffer, text, tools, within,
};

/// Serves [`tools`] on a loopback port, with `config`.
async fn start(config: HttpConfig) -> (SocketAddr, Probe) {
    let probe = Probe::default();
    let server = tools(&probe).build().unwrap();
    (serve_http(server, config).await, probe)
}

// ----- Slow bodies -----

#[tokio::test]
async fn trickled_and_stalled_bodies_hold_up_no_one_and_the_trickled_request_is_answered() {
    let (addr, _) = start(HttpConfig::default()).await;
    let message = call("slow", "echo", json!({"text": "trickled"}));
    let request = post(&message, JSON_ONLY);
    // The head and half the body, then a stall.
    let split = request.len() - message.to_string().len() / 2;
    let mut slow = Conn::open(addr).await;
    slow.write(&request[..split]).await.unwrap();
    // Fifty more clients stall mid-body and stay connected.
    let mut stalled = Vec::new();
    for _ in 0..50 {
        let mut conn = Conn::open(addr).await;
        conn.write(&request[..split]).await.unwrap();
        stalled.push(conn);
    }
    for i in 0..5 {
        assert_serving(addr, &format!("meanwhile-{i}")).await;
    }
    // The rest, one byte at a time: the answer is the trickled request's own.
    for byte in &request[split..] {
        slow.write(&[*byte]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let head = within(10, "the trickled request's answer", slow.head())
        .await
        .unwrap();
    assert_eq!(head.status, 200);
    let reply: Value = serde_json::from_slice(&slow.body(&head).await.unwrap()).unwrap();
    assert_eq!(reply["id"], "slow", "{reply}");
    assert_eq!(text(&reply), "trickled");
    // The connection is still good for another request.
    let (status, again) = slow
        .call(&call("again", "echo", json!({"text": "again"})))
        .await;
    assert_eq!((status, text(&again)), (200, "again"));
    // The stalled clients give up mid-body: the server keeps serving.
    drop(stalled);
    assert_serving(addr, "after-the-stalled").await;
}

#[tokio::test]
async fn a_chunked_body_trickled_past_the_limit_is_refused_at_the_limit() {
    const LIMIT: usize = 4096;
    const TOTAL: usize = 1 << 20;
    let (addr, _) = start(HttpConfig::default().max_body_bytes(LIMIT)).await;
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    // No length announced: the server cannot refuse up front, only count as it reads.
    let trickle = tokio::spawn(async move {
        let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                    Accept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        writer.write_all(head.as_bytes()).await?;
        let chunk = format!("100\r\n{}\r\n", "a".repeat(256));
        while counter.load(Ordering::SeqCst) < TOTAL {
            writer.write_all(chunk.as_bytes()).await?;
            counter.fetch_add(256, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        Ok::<_, std::io::Error>(())
    });
    let mut answer = Vec::new();
    within(20, "the 413", async {
        let mut buffer = [0u8; 1024];
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match reader.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    let at_answer = sent.load(Ordering::SeqCst);
    trickle.abort();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        at_answer < TOTAL,
        "the server read the whole {TOTAL}-byte body before refusing it"
    );
    assert_serving(addr, "after-413").await;
}

// ----- A burst on one connection -----

#[tokio::test]
async fn a_burst_of_pipelined_requests_is_answered_in_order_then_garbage_closes_the_connection() {
    const REQUESTS: usize = 300;
    let (addr, _) = start(HttpConfig::default()).await;
    let mut conn = Conn::open(addr).await;
    // Every request in one write, a line of garbage after them, before reading anything.
    let mut burst = Vec::new();
    for i in 0..REQUESTS {
        let message = call(i, "echo", json!({"text": format!("burst {i}")}));
        burst.extend_from_slice(&post(&message, JSON_ONLY));
    }
    burst.extend_from_slice(b"GARBAGE / HTTP/9.9\r\n\r\n");
    conn.write(&burst).await.unwrap();
    within(30, "the burst's answers", async {
        for i in 0..REQUESTS {
            let head = conn.head().await.unwrap();
            assert_eq!(head.status, 200, "answer {i}");
            let reply: Value = serde_json::from_slice(&conn.body(&head).await.unwrap()).unwrap();
            assert_eq!(reply["id"], i, "{reply}");
            assert_eq!(text(&reply), format!("burst {i}"));
        }
        // The garbage: refused (or the connection closed), and nothing more.
        if let Ok(head) = conn.head().await {
            assert_eq!(head.status, 400);
        }
    })
    .await;
    assert_serving(addr, "after-the-burst").await;
}

// ----- Slow readers -----

#[tokio::test]
async fn a_client_that_stops_reading_its_stream_holds_back_its_own_handler_and_loses_nothing() {
    const COUNT: usize = 4_000;
    const SIZE: usize = 2048;
    let probe = Probe::default();
    let server = tools(&probe).build().unwrap();
    let addr = serve_http_with_send_buffer(server, HttpConfig::default(), 64 * 1024).await;
    // A small receive window: what the client does not read stays on the server's side.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = within(5, "connecting", socket.connect(addr)).await.unwrap();
    let mut reader = Conn::from_stream(stream);
    let message = call_with_progress(
        "flood",
        "chatter",
        json!({"count": COUNT, "size": SIZE}),
        "p",
    );
    reader.write(&post(&message, JSON_AND_SSE)).await.unwrap();
    // The handler gets some way, then waits for the client: what is queued stays bounded.
    let reached = plateau(&probe.sent, COUNT).await;
    assert!(
        reached < COUNT / 4,
        "{reached} of {COUNT} notifications of {SIZE} bytes queued for a client that reads nothing"
    );
    // Others are served meanwhile.
    for i in 0..3 {
        assert_serving(addr, &format!("beside-the-slow-reader-{i}")).await;
    }
    // The client reads again: every notification, in order, then the response.
    let head = within(10, "the stream's head", reader.head())
        .await
        .unwrap();
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("text/event-stream"));
    let mut events = reader.events();
    within(60, "reading the whole stream", async {
        for i in 0..COUNT {
            let event = events.next().await.unwrap().unwrap();
            assert_eq!(event["method"], "notifications/progress", "{event}");
            assert_eq!(event["params"]["progress"], i as f64, "{event}");
            let message = event["params"]["message"].as_str().unwrap();
            assert_eq!(message.len(), SIZE + 1 + i.to_string().len());
        }
        let response = events.next().await.unwrap().unwrap();
        assert_eq!(response["id"], "flood", "{response}");
        assert_eq!(text(&response), format!("sent {COUNT}"));
        assert!(
            events.next().await.unwrap().is_none(),
            "more after the response"
        );
    })
    .await;
    assert_eq!(Probe::get(&probe.finished), 1);
}

// ----- Paths -----

#[tokio::test]
async fn only_the_mcp_path_is_served_and_other_paths_get_404() {
    let (addr, _) = start(HttpConfig::default()).await;
    let at = |path: &str| head_with("").replacen("POST /mcp ", &format!("POST {path} "), 1);
    for (path, status) in [
        ("/mcp", 200),
        ("/mcp/", 200),
        ("/mcp/other", 404),
        ("/mcpx", 404),
        ("/", 404),
    ] {
        assert_eq!(status_of_raw(addr, at(path)).await, Some(status), "{path}");
    }
    assert_serving(addr, "after the other paths").await;
}

// ----- Huge headers -----

/// Sends `head` (and a small body), and returns the status of the answer, or `None` when the
/// connection closed (or was reset) without one.
async fn status_of_raw(addr: SocketAddr, head: String) -> Option<u16> {
    let body = call(1, "echo", json!({"text": "big"})).to_string();
    let mut conn = Conn::open(addr).await;
    let mut request = head.into_bytes();
    request.extend_from_slice(body.as_bytes());
    // The server may stop reading and close before all of it is written.
    let _ = conn.write(&request).await;
    within(10, "an answer or a close", conn.head())
        .await
        .ok()
        .map(|head| head.status)
}

/// A modern POST head with `extra` header lines before the blank line.
fn head_with(extra: &str) -> String {
    let body_len = call(1, "echo", json!({"text": "big"})).to_string().len();
    let head = post_head("tools/call", Some("echo"), body_len, JSON_ONLY);
    let head = head.strip_suffix("\r\n").unwrap();
    format!("{head}{extra}\r\n")
}

#[tokio::test]
async fn huge_headers_get_431_or_a_close_and_the_next_client_is_served() {
    let (addr, _) = start(HttpConfig::default()).await;
    let one_huge = format!("X-Huge: {}\r\n", "h".repeat(1 << 20));
    let very_many: String = (0..10_000).map(|i| format!("X-Many-{i}: v\r\n")).collect();
    let many_large: String = (0..100)
        .map(|i| format!("X-Large-{i}: {}\r\n", "l".repeat(8 * 1024)))
        .collect();
    let huge_name = format!("{}: v\r\n", "N".repeat(1 << 20));
    for (case, extra) in [
        ("one 1 MiB header", one_huge),
        ("10 000 headers", very_many),
        ("100 headers of 8 KiB", many_large),
        ("a 1 MiB header name", huge_name),
    ] {
        let status = status_of_raw(addr, head_with(&extra)).await;
        assert!(
            matches!(status, None | Some(431)),
            "{case}: answered {status:?}"
        );
        assert_serving(addr, case).await;
    }
    // A large header well within the limits is no abuse: it is served.
    let fine = format!("X-Large: {}\r\n", "f".repeat(32 * 1024));
    assert_eq!(status_of_raw(addr, head_with(&fine)).await, Some(200));
}

// ----- Deeply nested JSON -----

#[tokio::test]
async fn json_nested_a_hundred_thousand_deep_is_an_error_not_a_stack_overflow() {
    let (addr, _) = start(HttpConfig::default()).await;
    let mut conn = Conn::open(addr).await;
    for (case, body) in deeply_nested_messages(100_000, 7) {
        let mut request = post_head("tools/call", Some("echo"), body.len(), JSON_ONLY).into_bytes();
        request.extend_from_slice(body.as_bytes());
        let exchange = conn.exchange(&request);
        let (head, answer) = within(10, case, exchange).await.unwrap();
        let reply: Value = serde_json::from_slice(&answer)
            .unwrap_or_else(|e| panic!("{case}: {e}: {}", String::from_utf8_lossy(&answer)));
        assert!(
            [-32700, -32600, -32602].contains(&error_code(&reply)),
            "{case}: {reply}"
        );
        assert!(
            (400..500).contains(&head.status),
            "{case}: status {}",
            head.status
        );
        assert_serving(addr, case).await;
    }
}

// ----- Clients that go away -----

#[tokio::test]
async fn clients_that_vanish_mid_stream_cancel_their_handlers() {
    const CLIENTS: usize = 10;
    let (addr, probe) = start(HttpConfig::default()).await;
    let mut streams = Vec::new();
    for i in 0..CLIENTS {
        let mut conn = Conn::open(addr).await;
        let message = call_with_progress(i, "ticker", json!({}), "t");
        conn.write(&post(&message, JSON_AND_SSE)).await.unwrap();
        let head = within(10, "the stream's head", conn.head()).await.unwrap();
        assert_eq!(head.header("content-type"), Some("text/event-stream"));
        let mut events = conn.events();
        let first = within(10, "the first event", events.next()).await;
        let first = first.unwrap().unwrap();
        assert_eq!(first["params"]["message"], "started", "{first}");
        streams.push(events);
    }
    assert_eq!(Probe::get(&probe.entered), CLIENTS);
    // Every client goes away mid-stream.
    for events in streams {
        events.close();
    }
    eventually(10, "every handler cancelled and stopped", || {
        probe.cancelled() == CLIENTS && Probe::get(&probe.stopped) == CLIENTS
    })
    .await;
    assert_eq!(Probe::get(&probe.finished), 0);
    assert_serving(addr, "after-the-vanished").await;
}

#[tokio::test]
async fn clients_that_vanish_before_their_answer_starts_cancel_their_handlers() {
    const CLIENTS: usize = 10;
    let (addr, probe) = start(HttpConfig::default()).await;
    let mut waiting = Vec::new();
    for i in 0..CLIENTS {
        let mut conn = Conn::open(addr).await;
        // Half of them accept only JSON (no stream to close), half JSON or SSE.
        let accept = if i % 2 == 0 { JSON_ONLY } else { JSON_AND_SSE };
        conn.write(&post(&call(i, "hold", json!({})), accept))
            .await
            .unwrap();
        waiting.push(conn);
    }
    eventually(10, "every handler entered", || {
        Probe::get(&probe.entered) == CLIENTS
    })
    .await;
    drop(waiting);
    eventually(10, "every handler cancelled and stopped", || {
        probe.cancelled() == CLIENTS && Probe::get(&probe.stopped) == CLIENTS
    })
    .await;
    assert_eq!(Probe::get(&probe.finished), 0);
    assert_serving(addr, "after-the-impatient").await;
}

// ----- Connection limits of `serve_http_on` -----

/// Whether the server closed `conn`: reading gives end of file (or a reset) within 5 s.
async fn closed_by_server(conn: &mut Conn) -> bool {
    let mut byte = [0u8; 1];
    let read = within(
        5,
        "the server closing the connection",
        conn.read_raw(&mut byte),
    )
    .await;
    matches!(read, Ok(0) | Err(_))
}

#[tokio::test]
async fn a_client_that_trickles_its_request_head_is_cut_off_and_others_are_served() {
    let config = HttpConfig::default().request_head_timeout(Duration::from_millis(300));
    let (addr, _) = start(config).await;
    let message = call("late", "echo", json!({"text": "late"}));
    let request = post(&message, JSON_ONLY);
    // Half a request line, then nothing more.
    let mut slow = Conn::open(addr).await;
    slow.write(&request[..10]).await.unwrap();
    // An idle connection that never starts a request.
    let mut idle = Conn::open(addr).await;
    assert_serving(addr, "meanwhile").await;
    assert!(
        closed_by_server(&mut slow).await,
        "a stalled head is cut off"
    );
    assert!(
        closed_by_server(&mut idle).await,
        "an idle connection is closed"
    );
    assert_serving(addr, "after").await;
}

#[tokio::test]
async fn a_body_slower_than_the_body_timeout_gets_408_and_the_connection_closes() {
    let config = HttpConfig::default().body_timeout(Duration::from_millis(300));
    let (addr, probe) = start(config).await;
    let message = call("slow-body", "echo", json!({"text": "slow body"}));
    let request = post(&message, JSON_ONLY);
    let mut slow = Conn::open(addr).await;
    // The whole head and part of the body, then a stall longer than the timeout.
    slow.write(&request[..request.len() - 5]).await.unwrap();
    let head = within(5, "the 408", slow.head()).await.unwrap();
    assert_eq!(head.status, 408);
    assert_eq!(head.header("connection"), Some("close"));
    let reply: Value = serde_json::from_slice(&slow.body(&head).await.unwrap()).unwrap();
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Request Timeout")),
        "{reply}"
    );
    assert!(closed_by_server(&mut slow).await);
    assert_eq!(Probe::get(&probe.entered), 0, "no handler ran for it");
    assert_serving(addr, "after").await;
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_until_one_closes() {
    let config = HttpConfig::default().max_connections(1);
    let (addr, _) = start(config).await;
    // The one place: a keep-alive connection that stays open after its answer.
    let mut first = Conn::open(addr).await;
    let (status, reply) = first.call(&call(1, "echo", json!({"text": "one"}))).await;
    assert_eq!((status, text(&reply)), (200, "one"));
    // A second connection is accepted by the kernel but not served yet…
    let mut second = Conn::open(addr).await;
    second
        .write(&post(&call(2, "echo", json!({"text": "two"})), JSON_ONLY))
        .await
        .unwrap();
    let waiting = tokio::time::timeout(Duration::from_millis(300), second.head()).await;
    assert!(waiting.is_err(), "served beyond the limit: {waiting:?}");
    // …until the first one closes.
    drop(first);
    let head = within(5, "the second answer", second.head()).await.unwrap();
    assert_eq!(head.status, 200);
    let reply: Value = serde_json::from_slice(&second.body(&head).await.unwrap()).unwrap();
    assert_eq!(text(&reply), "two");
}
