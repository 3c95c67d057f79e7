//! Tower layers around the MCP service (`ServerBuilder::layer`), on every transport: a
//! timeout turns a slow tool into a JSON-RPC error over stdio and HTTP and the server keeps
//! serving; a concurrency limit of one serialises two calls; a custom layer refuses one tool
//! by name; a layer's panic is answered; layers see the requests of both protocol eras,
//! `initialize` included, and can refuse to open a session; the client's answers to pushed
//! requests bypass the layers, so a concurrency limit of one cannot wait on itself; a stack
//! built by hand around `McpService` serves an `McpRequest` built from a message.

use crate::support::stdio_pipe::StdioPipe as Stdio;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower::layer::layer_fn;
use tower::limit::ConcurrencyLimitLayer;
use tower::timeout::TimeoutLayer;
use tower::{Service, ServiceExt};
use typemcp_server::service::{McpRequest, McpResponse, McpService};
use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::{
    AuthIdentity, ElicitForm, McpError, Server, ServerBuilder, ToolRoute, TransportInfo, tool,
};

const MODERN: &str = "2026-07-28";

/// A server with a fast tool, a slow one (2 s) and one that counts how many of its calls
/// overlap.
fn builder(overlap: &Arc<Overlap>) -> ServerBuilder {
    let overlap = Arc::clone(overlap);
    Server::builder()
        .tool(ToolRoute::new("fast", || async { "quick" }).description("Answers at once."))
        .tool(
            ToolRoute::new("slow", || async {
                tokio::time::sleep(Duration::from_secs(2)).await;
                "late"
            })
            .description("Answers after two seconds."),
        )
        .tool(
            ToolRoute::new("busy", move || {
                let overlap = Arc::clone(&overlap);
                async move {
                    overlap.enter();
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    overlap.leave();
                    "done"
                }
            })
            .description("Works for 150 ms."),
        )
}

/// The most calls of `busy` seen running at once.
#[derive(Debug, Default)]
struct Overlap {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Overlap {
    fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
    }
    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
    fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

fn modern_call(id: u64, tool: &str) -> Value {
    let meta = crate::support::wire::meta(json!({}));
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "_meta": meta}})
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply}"))
}

// ----- stdio -----

// ----- HTTP (the endpoint as a tower Service, in process) -----

async fn post(app: &Router, body: &Value) -> (StatusCode, Value) {
    let tool = body["params"]["name"].as_str().unwrap_or_default();
    let request = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Body::from(body.to_string()))
        .unwrap_or_else(|e| panic!("{e}"));
    let response = app
        .clone()
        .oneshot(request)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .to_bytes();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)));
    (status, json)
}

fn assert_timed_out(reply: &Value, id: u64) {
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(
        reply["error"]["message"], "Internal error: request timed out",
        "{reply}"
    );
}

#[tokio::test]
async fn a_timeout_layer_turns_a_slow_tool_into_an_error_over_stdio() {
    let server = builder(&Arc::default())
        .layer(TimeoutLayer::new(Duration::from_millis(100)))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut io = Stdio::start(server);
    assert_timed_out(&io.call(modern_call(1, "slow")).await, 1);
    // The server keeps serving.
    assert_eq!(text(&io.call(modern_call(2, "fast")).await), "quick");
}

#[tokio::test]
async fn a_timeout_layer_turns_a_slow_tool_into_an_error_over_http() {
    let server = builder(&Arc::default())
        .layer(TimeoutLayer::new(Duration::from_millis(100)))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let app = server.http_service();
    let (status, reply) = post(&app, &modern_call(1, "slow")).await;
    assert_eq!(status, StatusCode::OK);
    assert_timed_out(&reply, 1);
    let (status, reply) = post(&app, &modern_call(2, "fast")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(text(&reply), "quick");
}

/// Sends two `busy` calls at once over stdio and returns how many overlapped at most.
async fn overlap_of_two_calls(builder: ServerBuilder, overlap: &Overlap) -> usize {
    let server = builder.build().unwrap_or_else(|e| panic!("{e}"));
    let mut io = Stdio::start(server);
    io.send(&modern_call(1, "busy")).await;
    io.send(&modern_call(2, "busy")).await;
    let mut ids = vec![io.next().await["id"].clone(), io.next().await["id"].clone()];
    ids.sort_by_key(|id| id.as_u64());
    assert_eq!(ids, [json!(1), json!(2)]);
    overlap.most()
}

#[tokio::test]
async fn a_concurrency_limit_of_one_serialises_two_calls() {
    // Without the limit, the two calls run side by side…
    let free = Arc::default();
    assert_eq!(overlap_of_two_calls(builder(&free), &free).await, 2);
    // …with it, one after the other.
    let limited = Arc::default();
    let builder = builder(&limited).layer(ConcurrencyLimitLayer::new(1));
    assert_eq!(overlap_of_two_calls(builder, &limited).await, 1);
}

/// A per-tool authorization layer: refuses `tools/call` of one tool, passes the rest on.
#[derive(Clone)]
struct DenyTool<S> {
    inner: S,
    tool: &'static str,
}

impl<S> Service<McpRequest> for DenyTool<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if request.tool_name() == Some(self.tool) {
            let refused = McpResponse::error(
                request.id().clone(),
                McpError::invalid_params(format!("Forbidden: tool {} is not allowed", self.tool)),
            );
            return Box::pin(async move { Ok(refused) });
        }
        Box::pin(self.inner.call(request))
    }
}

#[tokio::test]
async fn a_custom_layer_refuses_one_tool_by_name() {
    let server = builder(&Arc::default())
        .layer(layer_fn(|inner| DenyTool {
            inner,
            tool: "slow",
        }))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));

    // In process…
    let call = |id, tool| {
        let server = server.clone();
        async move {
            let message = modern_call(id, tool).to_string();
            let reply = server
                .handle_message(message.as_bytes(), TransportInfo::in_process())
                .await
                .unwrap_or_else(|| panic!("no reply"));
            serde_json::from_slice::<Value>(&reply).unwrap_or_else(|e| panic!("{e}"))
        }
    };
    let refused = call(1, "slow").await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "Forbidden: tool slow is not allowed"
    );
    assert_eq!(text(&call(2, "fast").await), "quick");

    // …over stdio, and over HTTP.
    let mut io = Stdio::start(server.clone());
    assert_eq!(
        io.call(modern_call(3, "slow")).await["error"]["code"],
        -32602
    );
    assert_eq!(text(&io.call(modern_call(4, "fast")).await), "quick");
    let app = server.http_service();
    let (status, reply) = post(&app, &modern_call(5, "slow")).await;
    assert_eq!(
        (status, &reply["error"]["code"]),
        (StatusCode::OK, &json!(-32602))
    );
}

#[derive(Clone)]
struct Panics<S>(S);

impl<S> Service<McpRequest> for Panics<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        assert_ne!(request.tool_name(), Some("slow"), "the layer gives up");
        self.0.call(request)
    }
}

#[tokio::test]
async fn a_panicking_layer_is_answered_and_the_server_keeps_serving() {
    let server = builder(&Arc::default())
        .layer(layer_fn(Panics))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut io = Stdio::start(server);
    let reply = io.call(modern_call(1, "slow")).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(text(&io.call(modern_call(2, "fast")).await), "quick");
}

/// Records the method, revision and era of every request it sees.
#[derive(Clone)]
struct Record<S> {
    inner: S,
    seen: Arc<Mutex<Vec<(String, String, bool)>>>,
}

impl<S: Service<McpRequest>> Service<McpRequest> for Record<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((
                request.method().to_owned(),
                request.protocol_version().to_owned(),
                request.is_legacy_session(),
            ));
        self.inner.call(request)
    }
}

#[tokio::test]
async fn layers_see_the_requests_of_both_eras() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let server = builder(&Arc::default())
        .layer(layer_fn(move |inner| Record {
            inner,
            seen: Arc::clone(&record),
        }))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut io = Stdio::start(server);
    let init = io
        .call(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "old-client", "version": "0.9"}
            }}),
        )
        .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    let old = io
        .call(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "fast"}}))
        .await;
    assert_eq!(text(&old), "quick");
    let ping = io
        .call(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(ping["result"], json!({}));
    assert_eq!(text(&io.call(modern_call(4, "fast")).await), "quick");

    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let legacy = |method: &str| (method.to_owned(), "2025-11-25".to_owned(), true);
    assert_eq!(
        seen,
        [
            ("initialize".to_owned(), "2025-11-25".to_owned(), false),
            legacy("tools/call"),
            legacy("ping"),
            ("tools/call".to_owned(), MODERN.to_owned(), false),
        ]
    );
}

// ----- initialize through the layers -----

/// Refuses `initialize` from a caller no authentication layer vouched for.
#[derive(Clone)]
struct SessionsNeedAuth<S>(S);

impl<S> Service<McpRequest> for SessionsNeedAuth<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if request.method() == "initialize" && request.auth().is_none() {
            let refused = McpResponse::error(
                request.id().clone(),
                McpError::invalid_request("Unauthorized: sessions need a signed-in caller"),
            );
            return Box::pin(async move { Ok(refused) });
        }
        Box::pin(self.0.call(request))
    }
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "old-client", "version": "0.9"}
    }})
}

fn assert_unauthorized(reply: &Value) {
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_eq!(
        reply["error"]["message"], "Unauthorized: sessions need a signed-in caller",
        "{reply}"
    );
}

#[tokio::test]
async fn a_layer_can_refuse_to_open_a_session_over_stdio() {
    let server = builder(&Arc::default())
        .layer(layer_fn(SessionsNeedAuth))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut io = Stdio::start(server);
    assert_unauthorized(&io.call(initialize(1)).await);
    // No session was opened: a request without modern `_meta` is still refused as such…
    let old = io
        .call(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "fast"}}))
        .await;
    assert_eq!(old["error"]["code"], -32602, "{old}");
    // …and the modern wire is served as before.
    assert_eq!(text(&io.call(modern_call(3, "fast")).await), "quick");
}

/// POSTs an `initialize` (no session yet) and returns the status, session id and reply.
async fn post_initialize(app: &Router, body: &Value) -> (StatusCode, Option<String>, Value) {
    let request = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(body.to_string()))
        .unwrap_or_else(|e| panic!("{e}"));
    let response = app
        .clone()
        .oneshot(request)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = response
        .into_body()
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .to_bytes();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)));
    (status, session, json)
}

#[tokio::test]
async fn a_layer_can_refuse_to_open_a_session_over_http() {
    let server = builder(&Arc::default())
        .layer(layer_fn(SessionsNeedAuth))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let app = server.http_service();
    let (_, session, reply) = post_initialize(&app, &initialize(1)).await;
    assert_unauthorized(&reply);
    assert_eq!(session, None, "a refused initialize opens no session");

    // The same server without the layer opens one.
    let open = builder(&Arc::default())
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
        .http_service();
    let (status, session, reply) = post_initialize(&open, &initialize(1)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25", "{reply}");
    assert!(session.is_some_and(|id| !id.is_empty()));
}

// ----- answers to pushed requests bypass the layers -----

/// Whether to go ahead.
#[derive(ElicitForm)]
struct GoAhead {
    /// Go ahead?
    ok: bool,
}

/// One question.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Ask {
    #[awaits(answer: GoAhead)]
    Asking,
}

/// Asks one question, then says what the answer was.
#[tool]
async fn confirm(round: Round<Ask>) -> Step<Ask, String> {
    match round.resume() {
        None => round.ask(AskAsking::Asking {
            answer: "Go ahead?".into(),
        }),
        Some(AskAnswered::Asking {
            answer: Reply::Accepted(GoAhead { ok }),
        }) => Step::done(format!("ok={ok}")),
        Some(AskAnswered::Asking { .. }) => Step::done("no answer".to_owned()),
    }
}

#[tokio::test]
async fn a_concurrency_limit_of_one_does_not_hold_back_the_answer_a_handler_waits_for() {
    // The `tools/call` holds the only permit while its handler waits for the client's answer
    // to the pushed `elicitation/create`; the answer reaches it without one.
    let server = Server::builder()
        .tool(confirm)
        .layer(ConcurrencyLimitLayer::new(1))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut io = Stdio::start(server);
    let opened = io.call(initialize(1)).await;
    assert_eq!(
        opened["result"]["protocolVersion"], "2025-11-25",
        "{opened}"
    );
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let asked = io
        .call(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "confirm"}}))
        .await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let done = io
        .call(json!({"jsonrpc": "2.0", "id": asked["id"].clone(),
                     "result": {"action": "accept", "content": {"ok": true}}}))
        .await;
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(text(&done), "ok=true");
}

// ----- a stack built by hand -----

#[tokio::test]
async fn a_hand_built_stack_serves_a_request_built_from_a_message() {
    let server = builder(&Arc::default())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let stack = tower::ServiceBuilder::new()
        .layer(layer_fn(|inner| DenyTool {
            inner,
            tool: "slow",
        }))
        .service(McpService::new(&server));
    let request = |id, tool| {
        let message = modern_call(id, tool).to_string();
        let caller = TransportInfo::in_process().with_auth(AuthIdentity::new("alice"));
        McpRequest::from_message(&server, message.as_bytes(), caller)
            .unwrap_or_else(|response| panic!("{:?}", response.body()))
    };
    let built = request(1, "fast");
    assert_eq!(built.tool_name(), Some("fast"));
    assert_eq!(built.auth().map(AuthIdentity::subject), Some("alice"));
    assert_eq!(built.protocol_version(), MODERN);
    assert!(!built.is_legacy_session());
    let response = stack.clone().oneshot(built).await;
    let json: Value = match response {
        Ok(response) => serde_json::from_slice(response.body()).unwrap_or_else(|e| panic!("{e}")),
        Err(never) => match never {},
    };
    assert_eq!(text(&json), "quick");
    let refused = match stack.oneshot(request(2, "slow")).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let json: Value = serde_json::from_slice(refused.body()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json["error"]["code"], -32602, "{json}");

    // What is not a request to serve is answered instead of built.
    for (message, code) in [
        (&b"{not json"[..], -32700),
        (
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            -32600,
        ),
        (
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#,
            -32602,
        ),
    ] {
        let refused = McpRequest::from_message(&server, message, TransportInfo::in_process())
            .err()
            .unwrap_or_else(|| panic!("built a request from {}", String::from_utf8_lossy(message)));
        let json: Value = serde_json::from_slice(refused.body()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json["error"]["code"], code, "{json}");
        assert!(!refused.opens_session());
    }
}
