//! 2025-11-25 sessions served by any instance (`HttpConfig::session_store`): two servers,
//! each with its own endpoint, share a store (in memory, and Redis with the `redis` feature);
//! a round-robin balancer with no affinity sits in front (`support::balancer`), or the test
//! picks the instance itself.
//!
//! - The typed client, in its 2025-11-25 era, completes a two-question flow through the
//!   balancer: `initialize` on one instance, the call on the other, each pushed question's
//!   answer forwarded to the instance waiting for it; both instances served requests.
//! - A session deleted on one instance is 404 on the other; the log level chosen on one is
//!   the level on the other; a `notifications/cancelled` landing on the other instance cancels
//!   the call; the caller's share of sessions counts across instances.
//! - A stream begun on one instance resumes (`Last-Event-ID`) on the other, relayed from the
//!   first; an answer over 64 KiB is not forwarded (413). Once that instance is gone, an
//!   answer to its question gets 410 and a message saying so, and resuming its stream 400.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_client::{Client, EraChoice, Reply, Scripted, ToolResultExt};
use typemcp_server::state::{Continuation, Reply as Answered, RequestStateSigner, Round, Step};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::transport::http::session_store::{MemorySessionStore, SessionStore};
use typemcp_server::typemcp_core::protocol::LoggingLevel;
use typemcp_server::{CancellationToken, ElicitForm, RequestContext, Server, State, tool};

use crate::support::abuse::{Conn, eventually, within};
use crate::support::balancer::Balancer;
use crate::support::confirm::Confirm;
use crate::support::sessions_http::{
    SSE_ONLY, call, exchange, first_event_id, open_session, open_session_declaring, post, resume,
};

// ----- The servers -----

/// Two questions, one per round.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(region: Region)]
    Placing,
}

/// Where to?
#[derive(ElicitForm, Serialize)]
struct Region {
    /// The region.
    region: String,
}

/// What the instances' handlers saw, shared by both.
#[derive(Clone, Default)]
struct Seen {
    deploys: Arc<AtomicUsize>,
    cancelled: Arc<AtomicUsize>,
}

/// Deploys after a confirmation and a region.
#[tool]
async fn deploy(round: Round<Flow>, seen: State<Seen>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Deploy?".into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Answered::Accepted(Confirm { ok: true }),
        }) => round.ask(FlowAsking::Placing {
            region: "Where?".into(),
        }),
        Some(FlowAnswered::Confirming { .. }) => Step::done("not confirmed".to_owned()),
        Some(FlowAnswered::Placing {
            region: Answered::Accepted(Region { region }),
        }) => {
            seen.0.deploys.fetch_add(1, Ordering::SeqCst);
            Step::done(format!("deployed to {region}"))
        }
        Some(FlowAnswered::Placing { .. }) => Step::done("no region".to_owned()),
    }
}

/// Logs at `info`; whether the message was sent (the session's level allows it).
#[tool]
async fn note(ctx: RequestContext) -> String {
    let sent = ctx.log(LoggingLevel::Info, None, json!("a note")).await;
    sent.to_string()
}

/// How many log messages `burst` sends.
const BURST: usize = 600;

/// Logs [`BURST`] messages at `info`, then answers: a stream of many events.
#[tool]
async fn burst(ctx: RequestContext, seen: State<Seen>) -> String {
    for n in 0..BURST {
        ctx.log(LoggingLevel::Info, None, json!(format!("line {n}")))
            .await;
    }
    seen.0.deploys.fetch_add(1, Ordering::SeqCst);
    "burst done".to_owned()
}

/// Waits until cancelled.
#[tool]
async fn hold(ctx: RequestContext, seen: State<Seen>) -> String {
    ctx.cancellation().cancelled().await;
    seen.0.cancelled.fetch_add(1, Ordering::SeqCst);
    "cancelled".to_owned()
}

/// One instance: its own server and endpoint, the shared key and store.
async fn instance(
    store: impl SessionStore,
    seen: &Seen,
    configure: impl FnOnce(HttpConfig) -> HttpConfig,
) -> (SocketAddr, CancellationToken) {
    let signer = RequestStateSigner::new([7u8; 32]).unwrap();
    let server = Server::builder()
        .tool(deploy)
        .tool(note)
        .tool(hold)
        .tool(burst)
        .logging(true)
        .state(seen.clone())
        .request_state_signer(signer)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let config = configure(HttpConfig::default().session_store(store));
    let stopped = stop.clone();
    tokio::spawn(async move {
        server
            .serve_http_on(listener, config, async move { stopped.cancelled().await })
            .await
    });
    (addr, stop)
}

/// Two instances sharing `store`.
async fn pair(store: impl SessionStore + Clone, seen: &Seen) -> [SocketAddr; 2] {
    let (a, _) = instance(store.clone(), seen, |c| c).await;
    let (b, _) = instance(store, seen, |c| c).await;
    [a, b]
}

// ----- Through the balancer -----

/// The client's answers to `runs` flows (each reply answers one question).
fn answers(runs: usize) -> Scripted {
    (0..runs).fold(Scripted::new(), |script, _| {
        script
            .reply("confirm", Reply::accept(&Confirm { ok: true }))
            .reply(
                "region",
                Reply::accept(&Region {
                    region: "eu".into(),
                }),
            )
    })
}

async fn flow_through_a_balancer(store: impl SessionStore + Clone) {
    let seen = Seen::default();
    let balancer = Balancer::start(pair(store, &seen).await.to_vec()).await;
    let client: Client = Client::builder()
        .era(EraChoice::Session)
        .answers(answers(3))
        .connect_http(&balancer.url())
        .await
        .unwrap();
    for run in 1..=3 {
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), 4);
        let result = client.call_tool("deploy", json!({})).await.unwrap();
        assert_eq!(result.text(), "deployed to eu", "run {run}");
        assert_eq!(seen.deploys.load(Ordering::SeqCst), run);
    }
    let served = balancer.served();
    assert!(
        served.iter().all(|n| *n >= 4),
        "both instances served: {served:?}"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_completes_through_a_balancer_without_affinity() {
    flow_through_a_balancer(MemorySessionStore::new()).await;
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_completes_through_a_balancer_with_sessions_in_redis() {
    let Some(redis) = crate::support::redis::RedisServer::start() else {
        return;
    };
    flow_through_a_balancer(redis_store(&redis).await).await;
}

// ----- Instance by instance -----

fn message(id: u64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_shared_store_another_instance_does_not_know_the_session() {
    let seen = Seen::default();
    let alone = |store: MemorySessionStore| instance(store, &seen, |c| c);
    let (a, _) = alone(MemorySessionStore::new()).await;
    let (b, _) = alone(MemorySessionStore::new()).await;
    let session = open_session(a).await;
    let ping = message(1, "ping", json!({}));
    assert_eq!(exchange(a, &session, &ping).await.0, 200);
    assert_eq!(exchange(b, &session, &ping).await.0, 404);
}

async fn deleted_on_one_gone_on_the_other(store: impl SessionStore + Clone) {
    let [a, b] = pair(store, &Seen::default()).await;
    let session = open_session(a).await;
    let ping = message(1, "ping", json!({}));
    assert_eq!(exchange(b, &session, &ping).await.0, 200);
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: {session}\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nContent-Length: 0\r\n\r\n"
    );
    let mut conn = Conn::open(b).await;
    let (head, _) = within(10, "delete", conn.exchange(delete.as_bytes()))
        .await
        .unwrap();
    assert_eq!(head.status, 200);
    // At once on the instance that ended it.
    let (status, reply) = exchange(b, &session, &ping).await;
    assert_eq!(status, 404, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    // On the other as the announcement arrives: well before it would read the store again.
    let deadline = Instant::now() + ANNOUNCED_WITHIN;
    loop {
        let (status, reply) = exchange(a, &session, &ping).await;
        if status == 404 {
            assert_eq!(reply["error"]["code"], -32600, "{reply}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still served {ANNOUNCED_WITHIN:?} after the DELETE"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// How soon another instance acts on an announced change: well under the one second after
/// which it would read the session from the store anyway.
const ANNOUNCED_WITHIN: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_deleted_on_one_instance_is_gone_on_the_other() {
    deleted_on_one_gone_on_the_other(MemorySessionStore::new()).await;
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_deleted_on_one_instance_is_gone_on_the_other_with_redis() {
    let Some(redis) = crate::support::redis::RedisServer::start() else {
        return;
    };
    deleted_on_one_gone_on_the_other(redis_store(&redis).await).await;
}

/// A session store in `redis`.
#[cfg(feature = "redis")]
async fn redis_store(
    redis: &crate::support::redis::RedisServer,
) -> typemcp_server::transport::http::session_store::RedisSessionStore {
    typemcp_server::transport::http::session_store::RedisSessionStore::connect(&redis.url())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_level_chosen_on_one_instance_holds_on_the_other() {
    let [a, b] = pair(MemorySessionStore::new(), &Seen::default()).await;
    let session = open_session(a).await;
    let note = message(1, "tools/call", json!({"name": "note", "arguments": {}}));
    let (_, before) = exchange(b, &session, &note).await;
    assert_eq!(text(&before), "false", "{before}");
    let set_level = message(2, "logging/setLevel", json!({"level": "info"}));
    assert_eq!(exchange(a, &session, &set_level).await.0, 200);
    // Served on B as the announcement of the change arrives.
    let deadline = Instant::now() + ANNOUNCED_WITHIN;
    loop {
        let (logged, answer) = note_on(b, &session).await;
        if answer == "true" {
            assert!(
                logged,
                "the log message reached the client from the other instance"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the old level {ANNOUNCED_WITHIN:?} after the change"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Calls `note` on `session` at `addr`, reading the answer as a stream: whether a log message
/// came, and the tool's text.
async fn note_on(addr: SocketAddr, session: &str) -> (bool, String) {
    let note = call(3, "note");
    let mut conn = Conn::open(addr).await;
    conn.write(&post(Some(session), &note, SSE_ONLY))
        .await
        .unwrap();
    let _priming = first_event_id(&mut conn).await;
    let mut events = conn.events();
    let mut logged = false;
    loop {
        let event = within(10, "the note's events", events.next())
            .await
            .unwrap();
        let Some(event) = event else {
            return (logged, String::new());
        };
        if event["method"] == "notifications/message" {
            logged = true;
        }
        if event.get("result").is_some() {
            return (logged, text(&event).to_owned());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_landing_on_the_other_instance_cancels_the_call() {
    let seen = Seen::default();
    let [a, b] = pair(MemorySessionStore::new(), &seen).await;
    let session = open_session(a).await;
    let mut held = Conn::open(a).await;
    held.write(&post(Some(&session), &call(5, "hold"), SSE_ONLY))
        .await
        .unwrap();
    let _ = first_event_id(&mut held).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 5}});
    let (status, _) = {
        let mut conn = Conn::open(b).await;
        let request = post(
            Some(&session),
            &cancel,
            "application/json, text/event-stream",
        );
        let (head, body) = within(10, "cancel", conn.exchange(&request)).await.unwrap();
        (head.status, body)
    };
    assert_eq!(status, 202);
    eventually(10, "the held call is cancelled", || {
        seen.cancelled.load(Ordering::SeqCst) == 1
    })
    .await;
}

async fn share_across_instances(store: impl SessionStore + Clone) {
    let seen = Seen::default();
    let share = |c: HttpConfig| c.max_sessions_per_caller(2);
    let (a, _) = instance(store.clone(), &seen, share).await;
    let (b, _) = instance(store.clone(), &seen, share).await;
    open_session(a).await;
    open_session(b).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "third", "version": "1"}}});
    let mut conn = Conn::open(a).await;
    let request = post(None, &initialize, "application/json, text/event-stream");
    let (head, body) = within(10, "a third session", conn.exchange(&request))
        .await
        .unwrap();
    assert_eq!(head.status, 429, "{}", String::from_utf8_lossy(&body));
}

/// With no minimum idle time, the caller's session unused longest gives way to its new one,
/// on whichever instance: it is 404 everywhere after.
async fn share_gives_way_across_instances(store: impl SessionStore + Clone) {
    let seen = Seen::default();
    let share = |c: HttpConfig| {
        c.max_sessions_per_caller(2)
            .session_min_idle(Duration::ZERO)
    };
    let (a, _) = instance(store.clone(), &seen, share).await;
    let (b, _) = instance(store, &seen, share).await;
    let first = open_session(a).await;
    let second = open_session(b).await;
    let third = open_session(a).await;
    let ping = message(1, "ping", json!({}));
    assert_eq!(
        exchange(b, &first, &ping).await.0,
        404,
        "the first gave way"
    );
    assert_eq!(exchange(a, &second, &ping).await.0, 200);
    assert_eq!(exchange(b, &third, &ping).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_gives_way_across_instances() {
    share_gives_way_across_instances(MemorySessionStore::new()).await;
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_gives_way_across_instances_with_redis() {
    let Some(redis) = crate::support::redis::RedisServer::start() else {
        return;
    };
    share_gives_way_across_instances(redis_store(&redis).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_share_of_sessions_counts_across_instances() {
    let store = MemorySessionStore::new();
    share_across_instances(store.clone()).await;
    assert_eq!(store.len(), 2);
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_share_of_sessions_counts_across_instances_with_redis() {
    let Some(redis) = crate::support::redis::RedisServer::start() else {
        return;
    };
    share_across_instances(redis_store(&redis).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_resumes_through_the_other_instance_and_an_answer_to_one_gone_gets_410() {
    let store = MemorySessionStore::new();
    let seen = Seen::default();
    // Instance A runs on a runtime of its own, which the test drops: A is gone at once,
    // its waits and its subscription to the store with it.
    let (a_addr, stop_a, a_stopped) = {
        let (store, seen) = (store.clone(), seen.clone());
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let (addr, _) = runtime.block_on(instance(store, &seen, |c| c));
            addr_tx.send(addr).unwrap();
            let _ = stop_rx.recv();
            runtime.shutdown_timeout(Duration::from_secs(2));
        });
        (addr_rx.recv().unwrap(), stop_tx, thread)
    };
    let (b, _) = instance(store, &seen, |c| c).await;
    let session = open_session_declaring(a_addr, json!({"elicitation": {"form": {}}})).await;
    let mut flow = Conn::open(a_addr).await;
    flow.write(&post(Some(&session), &call(9, "deploy"), SSE_ONLY))
        .await
        .unwrap();
    let event_id = first_event_id(&mut flow).await;
    let mut events = flow.events();
    let pushed = loop {
        let event = within(10, "the pushed question", events.next())
            .await
            .unwrap()
            .unwrap();
        if event["method"] == "elicitation/create" {
            break event;
        }
    };
    // An answer forwarded while A lives reaches it (over 64 KiB it is not forwarded: 413).
    let post_answer = |id: &Value, content: Value| {
        let answer = json!({"jsonrpc": "2.0", "id": id,
                            "result": {"action": "accept", "content": content}});
        let session = session.clone();
        async move {
            let mut conn = Conn::open(b).await;
            let request = post(
                Some(&session),
                &answer,
                "application/json, text/event-stream",
            );
            let (head, body) = within(10, "an answer", conn.exchange(&request))
                .await
                .unwrap();
            (head.status, String::from_utf8_lossy(&body).into_owned())
        }
    };
    let (status, body) = post_answer(
        &pushed["id"],
        json!({"ok": true, "pad": "x".repeat(70_000)}),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    let (status, body) = post_answer(&pushed["id"], json!({"ok": true})).await;
    assert_eq!(status, 202, "{body}");
    let second = loop {
        let event = within(10, "the second question", events.next())
            .await
            .unwrap()
            .unwrap();
        if event["method"] == "elicitation/create" {
            break event;
        }
    };
    assert_ne!(second["id"], pushed["id"]);
    // Resuming A's stream on B, after its priming event: relayed from A, both questions.
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {SSE_ONLY}\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Last-Event-ID: {event_id}\r\n\r\n"
    );
    let mut relayed = Conn::open(b).await;
    relayed.write(get.as_bytes()).await.unwrap();
    let head = within(10, "the relayed stream", relayed.head())
        .await
        .unwrap();
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some(SSE_ONLY));
    let mut replayed = relayed.events();
    let mut questions = Vec::new();
    while questions.len() < 2 {
        let event = within(10, "a relayed event", replayed.next())
            .await
            .unwrap()
            .unwrap();
        if event["method"] == "elicitation/create" {
            questions.push(event["id"].clone());
        }
    }
    assert_eq!(questions, [pushed["id"].clone(), second["id"].clone()]);
    // Once A is gone, 410.
    stop_a.send(()).unwrap();
    tokio::task::spawn_blocking(move || a_stopped.join().unwrap())
        .await
        .unwrap();
    let (status, body) = post_answer(&second["id"], json!({"region": "eu"})).await;
    assert_eq!(status, 410, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    let said = body["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("no longer running"), "{said}");
    // And its stream can no longer be resumed: refused, saying where it was.
    let (status, refusal) = resume(b, &session, &event_id).await;
    assert_eq!(status, 400, "{refusal}");
    let said = refusal["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("another instance"), "{said}");
    // B keeps serving the session.
    assert_eq!(
        exchange(b, &session, &message(2, "ping", json!({})))
            .await
            .0,
        200
    );
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_stream_is_relayed_whole_to_the_other_instance() {
    let seen = Seen::default();
    let [a, b] = pair(MemorySessionStore::new(), &seen).await;
    let session = open_session(a).await;
    let set_level = message(1, "logging/setLevel", json!({"level": "info"}));
    assert_eq!(exchange(a, &session, &set_level).await.0, 200);
    // The call on A, its connection dropped after the priming event: A keeps its events.
    let mut conn = Conn::open(a).await;
    conn.write(&post(Some(&session), &call(7, "burst"), SSE_ONLY))
        .await
        .unwrap();
    let priming = first_event_id(&mut conn).await;
    drop(conn);
    eventually(10, "the burst is done", || {
        seen.deploys.load(Ordering::SeqCst) == 1
    })
    .await;
    // Resumed on B: every event, in order, through many more chunks than a queue holds.
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {SSE_ONLY}\r\n\
         Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Last-Event-ID: {priming}\r\n\r\n"
    );
    let mut relayed = Conn::open(b).await;
    relayed.write(get.as_bytes()).await.unwrap();
    let head = within(10, "the relayed stream", relayed.head())
        .await
        .unwrap();
    assert_eq!(head.status, 200);
    let mut events = relayed.events();
    let mut lines = Vec::new();
    let result = loop {
        let event = within(10, "a relayed event", events.next()).await.unwrap();
        let event = event.expect("the relayed stream ended before the result");
        if event["method"] == "notifications/message" {
            lines.push(
                event["params"]["data"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
        if event.get("result").is_some() {
            break event;
        }
    };
    assert_eq!(text(&result), "burst done");
    let expected: Vec<String> = (0..BURST).map(|n| format!("line {n}")).collect();
    assert_eq!(lines, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_the_store_dropped_ends_its_streams_here_too() {
    let store = MemorySessionStore::new();
    let seen = Seen::default();
    let (a, _) = instance(store.clone(), &seen, |c| c).await;
    let session = open_session(a).await;
    let mut held = Conn::open(a).await;
    held.write(&post(Some(&session), &call(5, "hold"), SSE_ONLY))
        .await
        .unwrap();
    let _ = first_event_id(&mut held).await;
    // The store forgets it with no announcement (as when it expires there).
    assert!(store.remove(&session).await.unwrap());
    // Within the re-verification period, the session ends here too, its streams with it.
    let mut events = held.events();
    let rest = within(5, "the end of the stream", async {
        let mut rest = Vec::new();
        while let Ok(Some(event)) = events.next().await {
            rest.push(event);
        }
        rest
    })
    .await;
    assert!(rest.iter().all(|e| e.get("result").is_none()), "{rest:?}");
    assert_eq!(
        exchange(a, &session, &message(2, "ping", json!({})))
            .await
            .0,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_call_keeps_its_session_alive_in_the_store() {
    let store = MemorySessionStore::new();
    let seen = Seen::default();
    // Over twice the re-verification period: renewals come at most that far apart.
    let short = |c: HttpConfig| c.session_idle_timeout(Duration::from_millis(2500));
    let (a, _) = instance(store.clone(), &seen, short).await;
    let (b, _) = instance(store.clone(), &seen, short).await;
    let session = open_session(a).await;
    let mut held = Conn::open(a).await;
    held.write(&post(Some(&session), &call(5, "hold"), SSE_ONLY))
        .await
        .unwrap();
    let _ = first_event_id(&mut held).await;
    // Twice the idle time with no request: the call in use renews the session in the store.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        exchange(b, &session, &message(2, "ping", json!({})))
            .await
            .0,
        200
    );
    assert_eq!(seen.cancelled.load(Ordering::SeqCst), 0);
}
