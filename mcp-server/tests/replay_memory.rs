//! The memory attack on replay buffers (issue 18, attack 1), measured: a tool answering with
//! 3.5 MB, called on 96 abandoned 2025-11-25 SSE streams (each socket closed, once the tool
//! answered, before anything was read; 24 streams on each of 4 sessions) must leave this process's resident memory
//! under 64 MB at the default settings, and a later `Last-Event-ID` resume of such a stream
//! gets a clear 400. Before the replay budgets, each stream kept its answer until its session
//! expired (30 minutes): about 336 MB here.
//!
//! This binary holds this one test only, so that nothing else runs in the process while its
//! resident memory (`VmRSS`) is read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "integration/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{RequestContext, Server, ToolRoute};

use support::abuse::{Conn, eventually, serve_http_with_send_buffer};
use support::sessions_http::{
    SSE_ONLY, call, exchange, first_event_id, open_session, post, resume, rss_kib,
};

const ANSWER_BYTES: usize = 3_500_000;
const SESSIONS: usize = 4;
const STREAMS: usize = 96;
const RSS_CEILING_KIB: u64 = 64 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_streams_of_large_answers_leave_rss_under_64_mb_and_cannot_be_resumed() {
    let answered = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&answered);
    let server = Server::builder()
        .tool(
            ToolRoute::new("large", move |_ctx: RequestContext| {
                let counter = Arc::clone(&counter);
                async move {
                    let answer = "l".repeat(ANSWER_BYTES);
                    counter.fetch_add(1, Ordering::SeqCst);
                    answer
                }
            })
            .description("Answers with 3.5 MB of text."),
        )
        .build()
        .unwrap();
    // A fixed send buffer: an answer the client does not read stays in the server, as over
    // a real network, instead of vanishing into the loopback's buffers.
    let addr = serve_http_with_send_buffer(server, HttpConfig::default(), 64 * 1024).await;
    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        sessions.push(open_session(addr).await);
    }
    let before = rss_kib();

    for n in 0..STREAMS {
        let session = &sessions[n % SESSIONS];
        let mut conn = Conn::open(addr).await;
        conn.write(&post(Some(session), &call(n as u64, "large"), SSE_ONLY))
            .await
            .unwrap();
        // Once the tool answered, the client goes away without reading anything (one stream
        // at a time).
        eventually(20, "the large tool answered", || {
            answered.load(Ordering::SeqCst) > n
        })
        .await;
        drop(conn);
    }
    // One more whose client read the priming event before going away.
    let session = &sessions[0];
    let mut conn = Conn::open(addr).await;
    conn.write(&post(Some(session), &call(1000, "large"), SSE_ONLY))
        .await
        .unwrap();
    let priming = first_event_id(&mut conn).await;
    drop(conn);
    eventually(20, "the last large answer", || {
        answered.load(Ordering::SeqCst) > STREAMS
    })
    .await;
    // Let the connections' tasks see their sockets closed.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = rss_kib();
    println!(
        "VmRSS before {before} KiB, after {} streams of {ANSWER_BYTES} bytes: {after} KiB",
        STREAMS + 1
    );
    assert!(
        after < RSS_CEILING_KIB,
        "VmRSS {after} KiB after the attack (before: {before} KiB)"
    );

    let (status, refusal) = resume(addr, session, &priming).await;
    assert_eq!(status, 400, "{refusal}");
    let message = refusal["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no longer kept"), "{message}");

    // Every session still serves.
    for (n, session) in sessions.iter().enumerate() {
        let ping = json!({"jsonrpc": "2.0", "id": n, "method": "ping"}).to_string();
        let (status, reply) = exchange(addr, session, ping.as_bytes()).await;
        assert_eq!((status, &reply["id"]), (200, &json!(n)), "{reply}");
    }
}
