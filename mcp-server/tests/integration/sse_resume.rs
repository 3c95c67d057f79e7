//! SSE polling and resumption on 2025-11-25 sessions (SEP-1699), through the HTTP endpoint
//! called in process: priming events with `retry`, a handler closing its stream mid-call and
//! the client resuming with GET and `Last-Event-ID` (every event exactly once, then live to
//! the response), a client that went away resuming too, refused ids (garbled, another
//! session's, gone) with the server still serving, the replay bound holding a handler back,
//! older sessions without priming, and the 2026-07-28 wire and stdio, where closing the stream
//! does nothing.
//!
//! The events are read with `sse-stream`'s parser, independent of how the server frames them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use futures_util::StreamExt;
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use sse_stream::{Sse, SseStream};
use tokio::sync::Notify;
use tower::ServiceExt;
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{RequestContext, Server, ToolRoute};

use crate::support::stdio_pipe::StdioPipe;

const RETRY: Duration = Duration::from_millis(750);
const BOTH: &str = "application/json, text/event-stream";
const CHATTY_MESSAGES: usize = 200;

/// The server under test and what its handlers report.
struct Fixture {
    server: Server,
    app: Router,
    /// Releases the handlers that wait (`held`, `wait`).
    gate: Arc<Notify>,
    /// How many notifications `chatty` got past.
    sent: Arc<AtomicUsize>,
}

fn fixture(config: HttpConfig) -> Fixture {
    let gate = Arc::new(Notify::new());
    let sent = Arc::new(AtomicUsize::new(0));
    let (held_gate, wait_gate, counter) = (Arc::clone(&gate), Arc::clone(&gate), Arc::clone(&sent));
    let server = Server::builder()
        .tool(
            ToolRoute::new("poll", |ctx: RequestContext| async move {
                ctx.report_progress(1.0, None, None).await;
                let closed = ctx.close_sse_stream().await;
                ctx.report_progress(2.0, None, None).await;
                ctx.report_progress(3.0, None, None).await;
                format!("done (closed: {closed})")
            })
            .description("Closes its stream between two progress notifications."),
        )
        .tool(
            ToolRoute::new("held", move |ctx: RequestContext| {
                let gate = Arc::clone(&held_gate);
                async move {
                    ctx.close_sse_stream().await;
                    gate.notified().await;
                    ctx.report_progress(1.0, None, None).await;
                    "released"
                }
            })
            .description("Closes its stream, then waits to be released."),
        )
        .tool(
            ToolRoute::new("wait", move |ctx: RequestContext| {
                let gate = Arc::clone(&wait_gate);
                async move {
                    ctx.report_progress(1.0, None, None).await;
                    gate.notified().await;
                    "released"
                }
            })
            .description("Starts its stream, then waits to be released."),
        )
        .tool(
            ToolRoute::new("chatty", move |ctx: RequestContext| {
                let counter = Arc::clone(&counter);
                async move {
                    ctx.close_sse_stream().await;
                    for n in 0..CHATTY_MESSAGES {
                        let message = format!("{n:0>200}");
                        ctx.report_progress(n as f64, None, Some(message)).await;
                        counter.fetch_add(1, Ordering::SeqCst);
                    }
                    "said everything"
                }
            })
            .description("Closes its stream, then sends many notifications."),
        )
        .build()
        .unwrap();
    Fixture {
        app: server.http_service_with(config),
        server,
        gate,
        sent,
    }
}

fn default_fixture() -> Fixture {
    fixture(HttpConfig::default().sse_retry(RETRY))
}

// ----- Wire helpers -----

fn post(session: Option<&str>, version: &str, body: &Value) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", BOTH)
        .header("mcp-protocol-version", version);
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    builder.body(Body::from(body.to_string())).unwrap()
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": "p"}}})
}

/// The events of one SSE response, read as they come.
struct Events(SseStream<Body>);

impl Events {
    fn of(response: Response<Body>) -> Self {
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response.headers().get("content-type").cloned();
        assert_eq!(
            content_type,
            Some(HeaderValue::from_static("text/event-stream"))
        );
        Self(SseStream::new(response.into_body()))
    }

    /// The next event (keep-alive comments skipped); `None` at the end of the stream.
    async fn next(&mut self) -> Option<Sse> {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(5), self.0.next())
                .await
                .expect("no event within 5 s")?
                .unwrap();
            if event.id.is_some() || event.data.is_some() {
                return Some(event);
            }
        }
    }

    /// Every event up to the end of the stream.
    async fn rest(&mut self) -> Vec<Sse> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }
}

fn message(event: &Sse) -> Value {
    serde_json::from_str(event.data.as_deref().unwrap_or_default()).unwrap()
}

fn id_of(event: &Sse) -> &str {
    event.id.as_deref().expect("an event id")
}

/// The stream and sequence parts of an event id.
fn place(event: &Sse) -> (String, u64) {
    let mut parts = id_of(event).rsplitn(3, '.');
    let seq = parts.next().and_then(|s| s.parse().ok()).unwrap();
    let stream = parts.next().unwrap().to_owned();
    (stream, seq)
}

/// What an event says: `progress <n>`, or the text of a tool result.
fn gist(event: &Sse) -> String {
    let message = message(event);
    if message["method"] == "notifications/progress" {
        return format!("progress {}", message["params"]["progress"]);
    }
    message["result"]["content"][0]["text"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("neither progress nor a result: {message}"))
}

/// A 2025-11-25-era session (or older) on the fixture's endpoint.
struct Session {
    app: Router,
    id: String,
    version: &'static str,
}

impl Session {
    async fn open(app: &Router, version: &'static str) -> Self {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "poller", "version": "1"}}});
        let opened = app
            .clone()
            .oneshot(post(None, version, &initialize))
            .await
            .unwrap();
        assert_eq!(opened.status(), StatusCode::OK);
        let id = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let session = Self {
            app: app.clone(),
            id,
            version,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = session
            .send(post(Some(&session.id), version, &initialized))
            .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        session
    }

    async fn send(&self, request: Request<Body>) -> Response<Body> {
        self.app.clone().oneshot(request).await.unwrap()
    }

    /// Calls `tool`, whose answer must be an event stream.
    async fn stream(&self, id: u64, tool: &str) -> Events {
        Events::of(
            self.send(post(Some(&self.id), self.version, &call(id, tool)))
                .await,
        )
    }

    /// GET on the session, resuming from `last_event_id` if given.
    async fn get(&self, last_event_id: Option<&[u8]>) -> Response<Body> {
        let mut builder = Request::builder()
            .method(Method::GET)
            .uri("http://localhost/")
            .header("host", "localhost")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", self.version);
        if let Some(last) = last_event_id {
            builder = builder.header("last-event-id", HeaderValue::from_bytes(last).unwrap());
        }
        self.send(builder.body(Body::empty()).unwrap()).await
    }

    async fn resume(&self, last_event_id: &str) -> Events {
        Events::of(self.get(Some(last_event_id.as_bytes())).await)
    }

    /// A refused resume: its status and error message.
    async fn refused(&self, last_event_id: &[u8]) -> (StatusCode, String) {
        let response = self.get(Some(last_event_id)).await;
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        let message = body["error"]["message"].as_str().unwrap_or_default();
        (status, message.to_owned())
    }

    /// Pings on the session: it still answers.
    async fn assert_serving(&self) {
        let ping = json!({"jsonrpc": "2.0", "id": 99, "method": "ping"});
        let response = self.send(post(Some(&self.id), self.version, &ping)).await;
        assert_eq!(response.status(), StatusCode::OK);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body, json!({"jsonrpc": "2.0", "id": 99, "result": {}}));
    }
}

// ----- Tests -----

#[tokio::test]
async fn a_sessions_post_stream_starts_with_a_priming_event_carrying_retry() {
    let fixture = default_fixture();
    let session = Session::open(&fixture.app, "2025-11-25").await;
    let mut events = session.stream(1, "poll").await;
    let priming = events.next().await.expect("a priming event");
    assert_eq!(priming.data.as_deref(), Some(""), "{priming:?}");
    assert_eq!(priming.retry, Some(750));
    assert_eq!(place(&priming).1, 0);
    let first = events.next().await.expect("the first progress");
    assert_eq!(gist(&first), "progress 1.0");
    assert_eq!(
        place(&first),
        (place(&priming).0, 1),
        "same stream, next place"
    );
    assert_eq!(first.retry, None);
}

#[tokio::test]
async fn a_handler_closes_its_stream_and_the_client_resumes_with_every_event_once() {
    let fixture = default_fixture();
    let session = Session::open(&fixture.app, "2025-11-25").await;
    let before = session.stream(1, "poll").await.rest().await;
    // What the handler sent before closing is delivered first; then the connection ends.
    let gists: Vec<String> = before.iter().skip(1).map(gist).collect();
    assert_eq!(gists, ["progress 1.0"]);
    let last = id_of(before.last().unwrap()).to_owned();

    let after = session.resume(&last).await.rest().await;
    let gists: Vec<String> = after.iter().map(gist).collect();
    assert_eq!(
        gists,
        ["progress 2.0", "progress 3.0", "done (closed: true)"],
        "the rest of the stream, response included, each once"
    );
    let places: Vec<(String, u64)> = before.iter().chain(&after).map(place).collect();
    let stream = &places[0].0;
    assert!(places.iter().all(|(s, _)| s == stream), "{places:?}");
    let seqs: Vec<u64> = places.iter().map(|(_, seq)| *seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4]);

    // Delivered to its end, the stream is forgotten.
    let (status, why) = session.refused(last.as_bytes()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(why.contains("no stream of this session"), "{why}");
    session.assert_serving().await;
}

#[tokio::test]
async fn a_resumed_stream_goes_on_live_until_the_response() {
    let fixture = default_fixture();
    let session = Session::open(&fixture.app, "2025-11-25").await;
    let before = session.stream(1, "held").await.rest().await;
    assert_eq!(before.len(), 1, "only the priming event: {before:?}");
    let mut resumed = session.resume(id_of(&before[0])).await;
    let nothing_yet = tokio::time::timeout(Duration::from_millis(200), resumed.next()).await;
    assert!(nothing_yet.is_err(), "an event before the handler went on");
    fixture.gate.notify_one();
    let gists: Vec<String> = resumed.rest().await.iter().map(gist).collect();
    assert_eq!(gists, ["progress 1.0", "released"]);
}

#[tokio::test]
async fn a_client_that_went_away_is_not_cancelled_and_resumes() {
    let fixture = default_fixture();
    let session = Session::open(&fixture.app, "2025-11-25").await;
    let mut events = session.stream(1, "wait").await;
    let _priming = events.next().await.unwrap();
    let progress = events.next().await.unwrap();
    assert_eq!(gist(&progress), "progress 1.0");
    drop(events);
    fixture.gate.notify_one();
    let after = session.resume(id_of(&progress)).await.rest().await;
    let gists: Vec<String> = after.iter().map(gist).collect();
    assert_eq!(gists, ["released"]);
}

#[tokio::test]
async fn refused_last_event_ids_get_400_and_the_sessions_keep_serving() {
    let fixture = default_fixture();
    let (a, b) = (
        Session::open(&fixture.app, "2025-11-25").await,
        Session::open(&fixture.app, "2025-11-25").await,
    );
    let b_events = b.stream(1, "held").await.rest().await;
    let b_priming = id_of(&b_events[0]).to_owned();
    let a_events = a.stream(1, "poll").await.rest().await;
    let a_last = id_of(a_events.last().unwrap()).to_owned();

    let (status, why) = a.refused(b_priming.as_bytes()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(why.contains("another session"), "{why}");
    let tag = a_last.split('.').next().unwrap();
    let unknown_stream = format!("{tag}.999.0");
    let never_minted = format!("{tag}.{}.999", place(&a_events[0]).0);
    for (last_event_id, expected) in [
        (b"nonsense".as_slice(), "not an event id"),
        (b"..".as_slice(), "not an event id"),
        (b"\xff\xfe".as_slice(), "not an event id"),
        (unknown_stream.as_bytes(), "no stream of this session"),
        (never_minted.as_bytes(), "no stream of this session"),
    ] {
        let (status, why) = a.refused(last_event_id).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{last_event_id:?}");
        assert!(why.contains(expected), "{last_event_id:?}: {why}");
    }
    // An unknown session is still 404, Last-Event-ID or not.
    let gone = Session {
        app: fixture.app.clone(),
        id: "no-such-session".to_owned(),
        version: "2025-11-25",
    };
    assert_eq!(
        gone.get(Some(a_last.as_bytes())).await.status(),
        StatusCode::NOT_FOUND
    );

    // Nothing was disturbed: both sessions serve, and each resumes its own stream.
    a.assert_serving().await;
    let rest = a.resume(&a_last).await.rest().await;
    assert_eq!(
        rest.last().map(gist).as_deref(),
        Some("done (closed: true)")
    );
    fixture.gate.notify_one();
    let rest = b.resume(&b_priming).await.rest().await;
    assert_eq!(rest.last().map(gist).as_deref(), Some("released"));
}

#[tokio::test]
async fn the_replay_bound_holds_a_detached_handler_back_and_loses_nothing() {
    let fixture = fixture(HttpConfig::default().replay_buffer_bytes(4 * 1024));
    let session = Session::open(&fixture.app, "2025-11-25").await;
    let before = session.stream(1, "chatty").await.rest().await;
    assert_eq!(before.len(), 1, "only the priming event");
    // Nobody reads: the buffer fills, then the handler's channel, then the handler waits.
    let mut last = usize::MAX;
    loop {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let now = fixture.sent.load(Ordering::SeqCst);
        if now == last {
            break;
        }
        last = now;
    }
    assert!(last < CHATTY_MESSAGES, "the handler was not held back");

    let after = session.resume(id_of(&before[0])).await.rest().await;
    let seqs: Vec<u64> = after.iter().map(|event| place(event).1).collect();
    let expected: Vec<u64> = (1..=CHATTY_MESSAGES as u64 + 1).collect();
    assert_eq!(seqs, expected, "every event once, in order");
    assert_eq!(after.last().map(gist).as_deref(), Some("said everything"));
    assert_eq!(fixture.sent.load(Ordering::SeqCst), CHATTY_MESSAGES);
}

#[tokio::test]
async fn older_sessions_get_event_ids_but_no_priming_and_no_polling() {
    let fixture = default_fixture();
    let session = Session::open(&fixture.app, "2025-06-18").await;
    let events = session.stream(1, "poll").await.rest().await;
    let gists: Vec<String> = events.iter().map(gist).collect();
    assert_eq!(
        gists,
        [
            "progress 1.0",
            "progress 2.0",
            "progress 3.0",
            "done (closed: false)"
        ]
    );
    let seqs: Vec<u64> = events.iter().map(|event| place(event).1).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
}

#[tokio::test]
async fn the_2026_wire_has_no_event_ids_priming_or_polling() {
    let fixture = default_fixture();
    let mut request = post(None, "2026-07-28", &call(1, "poll"));
    let mut meta = crate::support::wire::meta(json!({}));
    meta["progressToken"] = json!("p");
    *request.body_mut() = Body::from(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "poll", "arguments": {}, "_meta": meta}})
        .to_string(),
    );
    let headers = request.headers_mut();
    headers.insert("mcp-method", HeaderValue::from_static("tools/call"));
    headers.insert("mcp-name", HeaderValue::from_static("poll"));
    let response = fixture.app.clone().oneshot(request).await.unwrap();
    let events = Events::of(response).rest().await;
    assert!(
        events
            .iter()
            .all(|event| event.id.is_none() && event.retry.is_none()),
        "{events:?}"
    );
    let gists: Vec<String> = events.iter().map(gist).collect();
    assert_eq!(
        gists,
        [
            "progress 1.0",
            "progress 2.0",
            "progress 3.0",
            "done (closed: false)"
        ]
    );
}

#[tokio::test]
async fn over_stdio_closing_the_stream_does_nothing() {
    let fixture = default_fixture();
    let mut io = StdioPipe::start(fixture.server.clone());
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "poller", "version": "1"}}});
    assert_eq!(io.call(initialize).await["id"], 0);
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    io.send(&call(1, "poll")).await;
    let mut said = Vec::new();
    loop {
        let message = io.next().await;
        if message["id"] == 1 {
            said.push(message["result"]["content"][0]["text"].to_string());
            break;
        }
        said.push(message["params"]["progress"].to_string());
    }
    assert_eq!(said, ["1.0", "2.0", "3.0", "\"done (closed: false)\""]);
}
