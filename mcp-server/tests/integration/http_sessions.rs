//! Sessions and requests in flight under abuse, per caller (issue 18, attacks 4 and 8):
//!
//! - one client opening 2025-11-25 sessions in a loop (1,024 `initialize` calls) gets its
//!   share, then 429 naming the limit, and a client from another address still gets a
//!   session (real loopback sockets, the second bound to 127.0.0.2);
//! - a caller at its share, or a full table, ends an idle session to make room (the caller's
//!   own, or the one of the caller holding the most), whose id then gets 404; only when none
//!   can give way (too fresh, or in use by an open stream) is `initialize` refused;
//! - one caller's requests in flight and open streams are bounded (429 with `Retry-After`),
//!   held until the answer is sent, while another caller is still served;
//! - every message naming a session this server does not know gets the same 404: requests,
//!   responses to pushed requests, notifications, GET and DELETE.
//!
//! The in-process tests give each request the peer address a real connection would
//! (`ConnectInfo`), so that two callers can be told apart without sockets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;
use typemcp_server::transport::http::HttpConfig;

use crate::support::abuse::{Conn, Probe, eventually, serve_http, tools, within};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
/// The minimum idleness of the tests where freshness decides: long enough that the steps
/// before the wait always take less, on a loaded machine too.
const MIN_IDLE: Duration = Duration::from_secs(1);

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": LEGACY,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "old-client", "version": "0.9"}
    }})
}

fn ping(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
}

fn peer(last: u8) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, last], 40000))
}

// ----- In process -----

/// A request as a connection from `from` would deliver it.
fn from(from: SocketAddr, mut request: Request<Body>) -> Request<Body> {
    request.extensions_mut().insert(ConnectInfo(from));
    request
}

fn post(session: Option<&str>, body: &Value) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        builder = builder
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", LEGACY);
    }
    builder.body(Body::from(body.to_string())).unwrap()
}

fn bare(method: Method, session: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .body(Body::empty())
        .unwrap()
}

/// A whole answer: status, headers, and the JSON body (`Null` when empty or not JSON).
struct Answer {
    status: StatusCode,
    headers: http::HeaderMap,
    body: Value,
}

impl Answer {
    fn session(&self) -> String {
        self.headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no session id: {} {}", self.status, self.body))
    }

    fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }
}

async fn send(app: &Router, request: Request<Body>) -> Answer {
    let response = within(10, "an answer", app.clone().oneshot(request))
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = within(10, "a whole body", body.collect())
        .await
        .unwrap()
        .to_bytes();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

/// Opens a session for the caller at `at`.
async fn open(app: &Router, at: SocketAddr) -> String {
    let opened = send(app, from(at, post(None, &initialize(1)))).await;
    assert_eq!(opened.status, StatusCode::OK, "{}", opened.body);
    opened.session()
}

/// The status a `ping` on `session` gets.
async fn ping_status(app: &Router, at: SocketAddr, session: &str) -> StatusCode {
    send(app, from(at, post(Some(session), &ping(7))))
        .await
        .status
}

fn app(config: HttpConfig) -> (Router, Probe) {
    let probe = Probe::default();
    let server = tools(&probe).build().unwrap();
    (server.http_service_with(config), probe)
}

#[tokio::test]
async fn a_caller_at_its_share_is_refused_with_429_until_its_own_idle_session_gives_way() {
    let config = HttpConfig::default()
        .max_sessions_per_caller(2)
        .session_min_idle(MIN_IDLE);
    let (app, _) = app(config);
    let first = open(&app, peer(1)).await;
    let second = open(&app, peer(1)).await;

    // Both sessions are fresh: neither gives way.
    let refused = send(&app, from(peer(1), post(None, &initialize(3)))).await;
    assert_eq!(
        refused.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        refused.body
    );
    assert_eq!(refused.body["error"]["code"], -32600, "{}", refused.body);
    assert_eq!(refused.body["id"], 3, "{}", refused.body);
    assert!(
        refused
            .message()
            .contains("too many sessions for this caller (limit 2)"),
        "{}",
        refused.body
    );
    assert!(refused.headers.get("mcp-session-id").is_none());
    // Another caller is not held to the first one's share.
    let other = open(&app, peer(2)).await;

    // Once its first session has been unused long enough, it gives way to the new one.
    tokio::time::sleep(MIN_IDLE + Duration::from_millis(200)).await;
    assert_eq!(ping_status(&app, peer(1), &second).await, StatusCode::OK);
    let third = open(&app, peer(1)).await;
    assert_eq!(
        ping_status(&app, peer(1), &first).await,
        StatusCode::NOT_FOUND
    );
    assert_eq!(ping_status(&app, peer(1), &second).await, StatusCode::OK);
    assert_eq!(ping_status(&app, peer(1), &third).await, StatusCode::OK);
    assert_eq!(ping_status(&app, peer(2), &other).await, StatusCode::OK);
}

#[tokio::test]
async fn a_full_table_ends_the_idle_session_of_the_biggest_holder_then_refuses_with_503() {
    let config = HttpConfig::default()
        .max_sessions(3)
        .session_min_idle(MIN_IDLE);
    let (app, _) = app(config);
    // The lone session of caller 1 is the one unused longest; caller 2 holds two.
    let lone = open(&app, peer(1)).await;
    let older = open(&app, peer(2)).await;
    let newer = open(&app, peer(2)).await;

    let full = send(&app, from(peer(3), post(None, &initialize(4)))).await;
    assert_eq!(
        full.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        full.body
    );
    assert_eq!(full.body["error"]["code"], -32603, "{}", full.body);

    tokio::time::sleep(MIN_IDLE + Duration::from_millis(200)).await;
    let newcomer = open(&app, peer(3)).await;
    // Caller 2's session unused longest gave way, not caller 1's older one.
    assert_eq!(
        ping_status(&app, peer(2), &older).await,
        StatusCode::NOT_FOUND
    );
    assert_eq!(ping_status(&app, peer(1), &lone).await, StatusCode::OK);
    assert_eq!(ping_status(&app, peer(2), &newer).await, StatusCode::OK);
    assert_eq!(ping_status(&app, peer(3), &newcomer).await, StatusCode::OK);

    // Every session was just used: none can give way.
    let full = send(&app, from(peer(4), post(None, &initialize(5)))).await;
    assert_eq!(
        full.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        full.body
    );
}

#[tokio::test]
async fn a_session_with_an_open_stream_never_gives_way_and_does_once_it_closes() {
    let config = HttpConfig::default()
        .max_sessions(1)
        .session_min_idle(Duration::from_millis(50));
    let (app, _) = app(config);
    let listening = open(&app, peer(1)).await;
    let stream = within(
        10,
        "the GET stream",
        app.clone()
            .oneshot(from(peer(1), bare(Method::GET, &listening))),
    )
    .await
    .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);

    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = send(&app, from(peer(2), post(None, &initialize(2)))).await;
    assert_eq!(
        refused.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        refused.body
    );

    // The client goes away: its session is idle now, and gives way.
    drop(stream);
    let newcomer = open(&app, peer(2)).await;
    assert_eq!(
        ping_status(&app, peer(1), &listening).await,
        StatusCode::NOT_FOUND
    );
    assert_eq!(ping_status(&app, peer(2), &newcomer).await, StatusCode::OK);
}

#[tokio::test]
async fn a_session_with_a_request_in_flight_never_gives_way() {
    let config = HttpConfig::default()
        .max_sessions(1)
        .session_min_idle(Duration::from_millis(50));
    let (app, probe) = app(config);
    let busy = open(&app, peer(1)).await;
    let hold = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "hold", "arguments": {}}});
    let held = {
        let (app, request) = (app.clone(), from(peer(1), post(Some(&busy), &hold)));
        tokio::spawn(async move { send(&app, request).await })
    };
    eventually(5, "the held call to start", || {
        Probe::get(&probe.entered) == 1
    })
    .await;

    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = send(&app, from(peer(2), post(None, &initialize(3)))).await;
    assert_eq!(
        refused.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        refused.body
    );

    probe.release.cancel();
    let answered = within(10, "the held call", held).await.unwrap();
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    tokio::time::sleep(Duration::from_millis(100)).await;
    open(&app, peer(2)).await;
    assert_eq!(
        ping_status(&app, peer(1), &busy).await,
        StatusCode::NOT_FOUND
    );
}

// ----- Requests in flight -----

/// A modern call of the `hold` tool (it answers once the probe releases it).
fn modern_hold(id: u64) -> Request<Body> {
    modern_call(id, "hold", json!({}))
}

/// A modern call of `tool`, with `meta` merged into its `_meta`.
fn modern_call(id: u64, tool: &'static str, meta: Value) -> Request<Body> {
    let modern = crate::support::wire::meta(json!({}));
    let mut body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": {}, "_meta": modern}});
    if let (Some(into), Some(extra)) = (body["params"]["_meta"].as_object_mut(), meta.as_object()) {
        into.extend(extra.clone());
    }
    Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn assert_too_many_in_flight(answer: &Answer, limit: usize) {
    assert_eq!(
        answer.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        answer.body
    );
    assert_eq!(answer.body["error"]["code"], -32600, "{}", answer.body);
    let expected = format!("too many requests in flight for this caller (limit {limit})");
    assert!(answer.message().contains(&expected), "{}", answer.body);
    assert_eq!(
        answer
            .headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("1")
    );
}

#[tokio::test]
async fn one_callers_requests_in_flight_are_bounded_and_another_caller_is_served() {
    let (app, probe) = app(HttpConfig::default().max_in_flight_per_caller(2));
    let held: Vec<_> = (1..=2)
        .map(|id| {
            let (app, request) = (app.clone(), from(peer(1), modern_hold(id)));
            tokio::spawn(async move { send(&app, request).await })
        })
        .collect();
    eventually(5, "both held calls to start", || {
        Probe::get(&probe.entered) == 2
    })
    .await;

    let refused = send(&app, from(peer(1), modern_hold(3))).await;
    assert_too_many_in_flight(&refused, 2);
    // A refusal holds no place: the caller is refused again, not queued.
    assert_too_many_in_flight(&send(&app, from(peer(1), modern_hold(4))).await, 2);
    let session = open(&app, peer(2)).await;
    assert_eq!(ping_status(&app, peer(2), &session).await, StatusCode::OK);

    probe.release.cancel();
    for call in held {
        let answer = within(10, "a held call", call).await.unwrap();
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
    // Answers sent, places given back.
    let session = open(&app, peer(1)).await;
    assert_eq!(ping_status(&app, peer(1), &session).await, StatusCode::OK);
}

#[tokio::test]
async fn an_open_stream_holds_its_place_until_the_client_goes_away() {
    let (app, _) = app(HttpConfig::default().max_in_flight_per_caller(2));
    let session = open(&app, peer(1)).await;
    let mut streams = Vec::new();
    for _ in 0..2 {
        let stream = within(
            10,
            "a GET stream",
            app.clone()
                .oneshot(from(peer(1), bare(Method::GET, &session))),
        )
        .await
        .unwrap();
        assert_eq!(stream.status(), StatusCode::OK);
        streams.push(stream);
    }
    let refused = send(&app, from(peer(1), post(Some(&session), &ping(3)))).await;
    assert_too_many_in_flight(&refused, 2);
    assert_eq!(
        ping_status(&app, peer(2), &open(&app, peer(2)).await).await,
        StatusCode::OK
    );

    drop(streams.pop());
    assert_eq!(ping_status(&app, peer(1), &session).await, StatusCode::OK);
}

#[tokio::test]
async fn a_modern_sse_stream_holds_its_place_until_the_client_goes_away() {
    let (app, probe) = app(HttpConfig::default().max_in_flight_per_caller(1));
    // `ticker` notifies once (the answer becomes a stream), then works for a minute.
    let request = modern_call(1, "ticker", json!({"progressToken": "t"}));
    let stream = within(
        10,
        "the SSE answer",
        app.clone().oneshot(from(peer(1), request)),
    )
    .await
    .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(
        stream
            .headers()
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
    );
    assert_too_many_in_flight(&send(&app, from(peer(1), modern_hold(2))).await, 1);
    assert_eq!(
        ping_status(&app, peer(2), &open(&app, peer(2)).await).await,
        StatusCode::OK
    );

    // The client goes away: its handler is cancelled and the place given back.
    drop(stream);
    eventually(5, "the ticker to stop", || Probe::get(&probe.stopped) == 1).await;
    let session = open(&app, peer(1)).await;
    assert_eq!(ping_status(&app, peer(1), &session).await, StatusCode::OK);
}

// ----- Unknown sessions -----

/// Asserts the one 404 answer of an unknown session.
#[track_caller]
fn assert_unknown_session(answer: &Answer, what: &str) {
    assert_eq!(
        answer.status,
        StatusCode::NOT_FOUND,
        "{what}: {}",
        answer.body
    );
    assert_eq!(
        answer.body["error"]["code"], -32600,
        "{what}: {}",
        answer.body
    );
    assert_eq!(
        answer.message(),
        "Session not found: it ended or expired; send initialize again",
        "{what}"
    );
}

#[tokio::test]
async fn every_message_naming_an_unknown_session_gets_the_same_404() {
    let (app, _) = app(HttpConfig::default());
    let ended = open(&app, peer(1)).await;
    let deleted = send(&app, from(peer(1), bare(Method::DELETE, &ended))).await;
    assert_eq!(deleted.status, StatusCode::OK);

    let answer_to_push = json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "accept"}});
    let error_to_push =
        json!({"jsonrpc": "2.0", "id": "srv-2", "error": {"code": -1, "message": "no"}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "bored"}});
    for session in ["no-such-session", ended.as_str()] {
        let cases = [
            ("a request", post(Some(session), &ping(2))),
            (
                "a response to a pushed request",
                post(Some(session), &answer_to_push),
            ),
            (
                "an error answering a pushed request",
                post(Some(session), &error_to_push),
            ),
            (
                "notifications/initialized",
                post(Some(session), &initialized),
            ),
            ("notifications/cancelled", post(Some(session), &cancelled)),
            ("GET", bare(Method::GET, session)),
            ("DELETE", bare(Method::DELETE, session)),
        ];
        for (what, request) in cases {
            let answer = send(&app, from(peer(1), request)).await;
            assert_unknown_session(&answer, what);
        }
    }
    let request = send(&app, from(peer(1), post(Some("no-such-session"), &ping(9)))).await;
    assert_eq!(request.body["id"], 9, "a request's 404 keeps its id");
    let response = send(&app, from(peer(1), post(Some("gone"), &answer_to_push))).await;
    assert_eq!(
        response.body["id"], "srv-1",
        "a response's 404 names its id"
    );
}

#[tokio::test]
async fn messages_on_a_live_session_are_still_accepted() {
    let (app, _) = app(HttpConfig::default());
    let session = open(&app, peer(1)).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let late_answer = json!({"jsonrpc": "2.0", "id": "srv-9", "result": {}});
    for body in [initialized, late_answer] {
        let answer = send(&app, from(peer(1), post(Some(&session), &body))).await;
        assert_eq!(answer.status, StatusCode::ACCEPTED, "{body}");
    }
    // A modern notification with a leftover header is served as on the 2026 wire.
    let modern = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": 1,
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}
    }});
    let answer = send(&app, from(peer(1), post(Some("no-such-session"), &modern))).await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
}

// ----- On real sockets, at the defaults -----

/// The raw POST of `body` without modern headers (a 2025-11-25 client before its session).
fn raw_post(body: &Value) -> Vec<u8> {
    let body = body.to_string();
    let mut bytes = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// A connection to `addr` from the loopback address `local`.
async fn connect_from(local: [u8; 4], addr: SocketAddr) -> Conn {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((local, 0))).unwrap();
    let stream = within(5, "connecting", socket.connect(addr)).await.unwrap();
    Conn::from_stream(stream)
}

#[tokio::test]
async fn a_thousand_initialize_calls_from_one_client_take_its_share_and_another_client_is_served() {
    let probe = Probe::default();
    let addr = serve_http(tools(&probe).build().unwrap(), HttpConfig::default()).await;
    let mut attacker = connect_from([127, 0, 0, 1], addr).await;
    let (mut opened, mut refused) = (0, 0);
    let started = std::time::Instant::now();
    for id in 0..1024 {
        let (head, body) = within(
            10,
            "an initialize answer",
            attacker.exchange(&raw_post(&initialize(id))),
        )
        .await
        .unwrap();
        match head.status {
            200 => {
                assert!(head.header("mcp-session-id").is_some());
                opened += 1;
            }
            429 => {
                let reply: Value = serde_json::from_slice(&body).unwrap();
                let message = reply["error"]["message"].as_str().unwrap_or_default();
                assert!(
                    message.contains("too many sessions for this caller (limit 128)"),
                    "{reply}"
                );
                refused += 1;
            }
            status => panic!("initialize {id} got {status}"),
        }
    }
    assert_eq!((opened, refused), (128, 1024 - 128));
    eprintln!(
        "1024 initialize calls from one address: {opened} sessions, {refused} refused (429), in {:?}",
        started.elapsed()
    );

    let mut other = connect_from([127, 0, 0, 2], addr).await;
    let (head, body) = within(
        10,
        "the other client's initialize",
        other.exchange(&raw_post(&initialize(1))),
    )
    .await
    .unwrap();
    assert_eq!(head.status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(head.header("mcp-session-id").is_some());
}
