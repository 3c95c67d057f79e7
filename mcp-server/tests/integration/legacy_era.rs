//! The 2025-11-25 era beside 2026-07-28: a client that opens with `initialize` is served over
//! stdio (an in-memory duplex through `serve_io`) and over Streamable HTTP (the endpoint as a
//! tower `Service`, in process), and the exact wire shapes are asserted: the handshake, `ping`,
//! lists and calls without the 2026 fields, `logging/setLevel`, resource subscriptions with
//! their notifications, the session header, GET stream and DELETE. Modern requests keep being
//! served statelessly beside a session, and a modern `initialize` is still refused.

use crate::support::stdio_pipe::StdioPipe as Stdio;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::typemcp_core::protocol::{
    ElicitRequestParams, InputRequest, InputRequiredResult, LoggingLevel, RequestedSchema,
};
use typemcp_server::{RequestContext, ResourceRoute, Server, ToolRoute};

const URI: &str = "test://watched";
const MODERN: &str = "2026-07-28";

fn server() -> Server {
    Server::builder()
        .name("legacy-test")
        .version("1.2.3")
        .instructions("Be kind.")
        .logging(true)
        .tool(ToolRoute::new("echo", || async { "hi" }).description("Says hi."))
        .tool(
            ToolRoute::new("chatty", |ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Debug, None, json!("debug line"))
                    .await;
                ctx.log(LoggingLevel::Info, None, json!("info line")).await;
                "done"
            })
            .description("Logs at debug and info."),
        )
        .tool(
            ToolRoute::new("ask", || async {
                let form = ElicitRequestParams::form("Sure?", RequestedSchema::default());
                InputRequiredResult::new().with_request("q", InputRequest::Elicitation(form))
            })
            .description("Asks the client a question."),
        )
        .resource(
            ResourceRoute::new(URI, "watched", || async { "content" }).description("Watched."),
        )
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn initialize(id: u64, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "old-client", "version": "0.9"}
    }})
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn modern_meta() -> Value {
    crate::support::wire::meta(json!({}))
}

/// The `initialize` result this server gives for `version`.
fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {
            "logging": {},
            "resources": {"subscribe": true, "listChanged": true},
            "tools": {"listChanged": true}
        },
        "serverInfo": {"name": "legacy-test", "version": "1.2.3"},
        "instructions": "Be kind."
    })
}

fn ok(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn assert_no_2026_fields(result: &Value) {
    for field in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(result.get(field).is_none(), "{field} in {result}");
    }
}

// ----- stdio -----

#[tokio::test]
async fn stdio_serves_a_legacy_session_beside_modern_requests() {
    let server = server();
    let mut io = Stdio::start(server.clone());

    // An unsupported revision is answered with the preferred one.
    let answer = io.call(initialize(1, "2024-10-07")).await;
    assert_eq!(answer, ok(1, initialize_result("2025-11-25")));
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(
        io.call(request(2, "ping", json!({}))).await,
        ok(2, json!({}))
    );

    let list = io.call(request(3, "tools/list", json!({}))).await;
    assert_no_2026_fields(&list["result"]);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "chatty", "ask"]);

    let call = io
        .call(request(4, "tools/call", json!({"name": "echo"})))
        .await;
    assert_eq!(
        call,
        ok(4, json!({"content": [{"type": "text", "text": "hi"}]}))
    );

    // No level chosen: no log notifications, only the response.
    let quiet = io
        .call(request(5, "tools/call", json!({"name": "chatty"})))
        .await;
    assert_eq!(quiet["id"], 5, "{quiet}");
    let set = io
        .call(request(6, "logging/setLevel", json!({"level": "info"})))
        .await;
    assert_eq!(set, ok(6, json!({})));
    io.send(&request(7, "tools/call", json!({"name": "chatty"})))
        .await;
    assert_eq!(
        io.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "data": "info line"}})
    );
    assert_eq!(io.next().await["id"], 7);

    let read = io
        .call(request(8, "resources/read", json!({"uri": URI})))
        .await;
    assert_eq!(
        read,
        ok(
            8,
            json!({"contents": [{"uri": URI, "mimeType": "text/plain", "text": "content"}]})
        )
    );

    let subscribed = io
        .call(request(9, "resources/subscribe", json!({"uri": URI})))
        .await;
    assert_eq!(subscribed, ok(9, json!({})));
    server.notify_resource_updated(URI);
    assert_eq!(
        io.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": URI}})
    );
    let unsubscribed = io
        .call(request(10, "resources/unsubscribe", json!({"uri": URI})))
        .await;
    assert_eq!(unsubscribed, ok(10, json!({})));
    server.notify_resource_updated(URI);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        io.call(request(11, "ping", json!({}))).await,
        ok(11, json!({}))
    );

    // A handler asking for input has its question pushed to the client (legacy_pushed.rs
    // covers the whole flow); a client that refuses it fails the call.
    let pushed = io
        .call(request(12, "tools/call", json!({"name": "ask"})))
        .await;
    assert_eq!(pushed["method"], "elicitation/create", "{pushed}");
    assert_eq!(pushed["params"]["message"], "Sure?", "{pushed}");
    io.send(&json!({"jsonrpc": "2.0", "id": pushed["id"],
                    "error": {"code": -32601, "message": "Method not found"}}))
        .await;
    let asked = io.next().await;
    assert_eq!(asked["id"], 12, "{asked}");
    assert_eq!(asked["error"]["code"], -32603, "{asked}");
    assert!(
        asked["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("elicitation/create")),
        "{asked}"
    );

    // Modern requests are still served statelessly, with the 2026 fields.
    let modern = io
        .call(request(13, "tools/list", json!({"_meta": modern_meta()})))
        .await;
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    let discover = io.call(request(14, "server/discover", json!({}))).await;
    assert_eq!(discover["error"]["code"], -32601, "{discover}");
    let again = io.call(initialize(15, "2025-11-25")).await;
    assert_eq!(again["error"]["code"], -32600, "{again}");
}

#[tokio::test]
async fn a_session_keeps_a_bounded_client_description_and_bounded_subscriptions() {
    let server = server();
    let mut io = Stdio::start(server.clone());
    // 100 kB of clientInfo would be kept for the session's life: refused.
    let mut huge = initialize(1, "2025-11-25");
    huge["params"]["clientInfo"]["title"] = json!("x".repeat(100_000));
    let refused = io.call(huge).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("65536 bytes"), "{message}");
    // The server keeps serving: a normal initialize opens the session.
    assert_eq!(
        io.call(initialize(2, "2025-11-25")).await,
        ok(2, initialize_result("2025-11-25"))
    );
    for n in 0..1024u64 {
        let uri = format!("{URI}/{n}");
        let answer = io
            .call(request(10 + n, "resources/subscribe", json!({"uri": uri})))
            .await;
        assert_eq!(answer, ok(10 + n, json!({})));
    }
    let over = io
        .call(request(
            9000,
            "resources/subscribe",
            json!({"uri": "file:///more"}),
        ))
        .await;
    assert_eq!(over["error"]["code"], -32602, "{over}");
    let message = over["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("at most 1024 resources"), "{message}");
    // Subscribing again to a URI already watched is fine; a URI of 4 kB is not.
    let again = io
        .call(request(
            9001,
            "resources/subscribe",
            json!({"uri": format!("{URI}/7")}),
        ))
        .await;
    assert_eq!(again, ok(9001, json!({})));
    io.call(request(
        9002,
        "resources/unsubscribe",
        json!({"uri": format!("{URI}/7")}),
    ))
    .await;
    let long = io
        .call(request(
            9003,
            "resources/subscribe",
            json!({"uri": "x".repeat(4096)}),
        ))
        .await;
    assert_eq!(long["error"]["code"], -32602, "{long}");
}

#[tokio::test]
async fn stdio_refuses_a_modern_initialize_and_needs_meta_before_initialize() {
    let mut io = Stdio::start(server());
    let mut modern = initialize(1, MODERN);
    modern["params"]["_meta"] = modern_meta();
    let refused = io.call(modern).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let bare = io.call(request(2, "tools/list", json!({}))).await;
    assert_eq!(bare["error"]["code"], -32602, "{bare}");
    let bad = io
        .call(request(3, "initialize", json!({"protocolVersion": 7})))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    // A well-formed one still opens the session afterwards.
    let answer = io.call(initialize(4, "2025-06-18")).await;
    assert_eq!(answer, ok(4, initialize_result("2025-06-18")));
}

// ----- HTTP -----

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    /// The JSON body, or the data of the last SSE event.
    body: Value,
    /// Every SSE event's data (empty for a JSON body).
    events: Vec<Value>,
}

fn post(session: Option<&str>, version: Option<&str>, body: &Value) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    if let Some(version) = version {
        builder = builder.header("mcp-protocol-version", version);
    }
    builder
        .body(Body::from(body.to_string()))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn bare(method: Method, session: Option<&str>) -> Request<Body> {
    let mut builder = Request::builder()
        .method(method)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("accept", "text/event-stream");
    if let Some(session) = session {
        builder = builder.header("mcp-session-id", session);
    }
    builder
        .body(Body::empty())
        .unwrap_or_else(|e| panic!("{e}"))
}

async fn send(app: &Router, request: Request<Body>) -> Reply {
    let response = app
        .clone()
        .oneshot(request)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let (parts, body) = response.into_parts();
    let bytes = body
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let is_sse = parts
        .headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let events: Vec<Value> = if is_sse {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect()
    } else {
        Vec::new()
    };
    let body = match events.last() {
        Some(last) => last.clone(),
        None if text.is_empty() => Value::Null,
        None => serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    };
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
        events,
    }
}

#[tokio::test]
async fn http_sessions_serve_the_legacy_era_and_end_with_delete() {
    let server = server();
    let app = server.http_service();

    let opened = send(&app, post(None, None, &initialize(1, "2025-11-25"))).await;
    assert_eq!(opened.status, StatusCode::OK);
    assert_eq!(opened.body, ok(1, initialize_result("2025-11-25")));
    let session = opened
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no Mcp-Session-Id"))
        .to_owned();
    assert!(
        session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{session}"
    );
    let id = Some(session.as_str());
    let v = Some("2025-11-25");

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = send(&app, post(id, v, &initialized)).await;
    assert_eq!(accepted.status, StatusCode::ACCEPTED);

    let ping = send(&app, post(id, v, &request(2, "ping", json!({})))).await;
    assert_eq!((ping.status, ping.body), (StatusCode::OK, ok(2, json!({}))));

    let list = send(&app, post(id, v, &request(3, "tools/list", json!({})))).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_no_2026_fields(&list.body["result"]);
    assert_eq!(list.body["result"]["tools"][0]["name"], "echo");

    let call = request(4, "tools/call", json!({"name": "echo"}));
    let called = send(&app, post(id, v, &call)).await;
    assert_eq!(
        called.body,
        ok(4, json!({"content": [{"type": "text", "text": "hi"}]}))
    );

    let level = request(5, "logging/setLevel", json!({"level": "debug"}));
    assert_eq!(send(&app, post(id, v, &level)).await.body, ok(5, json!({})));
    let chatty = request(6, "tools/call", json!({"name": "chatty"}));
    let logged = send(&app, post(id, v, &chatty)).await;
    let levels: Vec<&Value> = logged
        .events
        .iter()
        .filter(|e| e["method"] == "notifications/message")
        .map(|e| &e["params"]["level"])
        .collect();
    assert_eq!(levels, [&json!("debug"), &json!("info")]);
    assert_eq!(logged.body["id"], 6);

    // The GET stream carries the updates of subscribed resources.
    let subscribe = request(7, "resources/subscribe", json!({"uri": URI}));
    assert_eq!(
        send(&app, post(id, v, &subscribe)).await.body,
        ok(7, json!({}))
    );
    let stream = app
        .clone()
        .oneshot(bare(Method::GET, id))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stream.status(), StatusCode::OK);
    let mut body = stream.into_body();
    server.notify_resource_updated(URI);
    let frame = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let frame = body
                .frame()
                .await
                .unwrap_or_else(|| panic!("the stream ended"))
                .unwrap_or_else(|e| panic!("{e}"));
            if let Some(data) = frame.data_ref() {
                let text = String::from_utf8_lossy(data).into_owned();
                if text.contains("data:") {
                    return text;
                }
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no notification on the GET stream"));
    let data = frame
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(data.trim()).ok(),
        Some(
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                    "params": {"uri": URI}})
        )
    );

    // Modern requests need no session, and get none.
    let modern = request(8, "tools/list", json!({"_meta": modern_meta()}));
    let mut modern_request = post(None, Some(MODERN), &modern);
    modern_request
        .headers_mut()
        .insert("mcp-method", http::HeaderValue::from_static("tools/list"));
    let served = send(&app, modern_request).await;
    assert_eq!(served.status, StatusCode::OK);
    assert_eq!(served.body["result"]["resultType"], "complete");
    assert!(served.headers.get("mcp-session-id").is_none());

    // DELETE ends the session: it is then unknown (404), and so is a second DELETE.
    assert_eq!(
        send(&app, bare(Method::DELETE, id)).await.status,
        StatusCode::OK
    );
    let after = send(&app, post(id, v, &request(9, "ping", json!({})))).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    assert_eq!(after.body["id"], 9);
    assert_eq!(
        send(&app, bare(Method::DELETE, id)).await.status,
        StatusCode::NOT_FOUND
    );
    // The ended session's GET stream ends too.
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = body.frame().await {}
    })
    .await;
    assert!(ended.is_ok(), "the GET stream outlived its session");
}

#[tokio::test]
async fn http_routes_each_request_to_its_era() {
    let app = server().http_service();

    // A modern `initialize` (header and `_meta`) is refused as before: no session.
    let mut modern = initialize(1, MODERN);
    modern["params"]["_meta"] = modern_meta();
    let mut refused_request = post(None, Some(MODERN), &modern);
    refused_request
        .headers_mut()
        .insert("mcp-method", http::HeaderValue::from_static("initialize"));
    let refused = send(&app, refused_request).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert_eq!(refused.body["error"]["code"], -32601);
    assert!(refused.headers.get("mcp-session-id").is_none());

    // A legacy request without its session: 400; with an unknown one: 404.
    let list = request(2, "tools/list", json!({}));
    let missing = send(&app, post(None, Some("2025-11-25"), &list)).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    assert!(
        missing.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Mcp-Session-Id")),
        "{}",
        missing.body
    );
    let unknown = send(
        &app,
        post(Some("no-such-session"), Some("2025-11-25"), &list),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(
        send(&app, bare(Method::GET, Some("no-such-session")))
            .await
            .status,
        StatusCode::NOT_FOUND
    );

    // Without a session, GET and DELETE stay 405 as on a modern-only server.
    for method in [Method::GET, Method::DELETE] {
        assert_eq!(
            send(&app, bare(method, None)).await.status,
            StatusCode::METHOD_NOT_ALLOWED
        );
    }

    // An older revision is answered as asked.
    let opened = send(
        &app,
        post(None, Some("2025-03-26"), &initialize(3, "2025-03-26")),
    )
    .await;
    assert_eq!(opened.body, ok(3, initialize_result("2025-03-26")));
    let session = opened
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let id = session.as_deref();

    // On a session, JSON-RPC errors come with 200 (404 would mean "session gone").
    let unknown_method = request(4, "tools/explode", json!({}));
    let error = send(&app, post(id, Some("2025-03-26"), &unknown_method)).await;
    assert_eq!(error.status, StatusCode::OK);
    assert_eq!(error.body["error"]["code"], -32601);
    let no_tool = request(5, "tools/call", json!({"name": "nope"}));
    let error = send(&app, post(id, Some("2025-03-26"), &no_tool)).await;
    assert_eq!(error.status, StatusCode::OK);
    assert_eq!(error.body["error"]["code"], -32602);
    // A revision the server does not serve in the header: 400.
    let ping = request(6, "ping", json!({}));
    let bad = send(&app, post(id, Some("1999-01-01"), &ping)).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn shutting_down_ends_the_session_streams() {
    let server = server();
    let app = server.http_service();
    let opened = send(&app, post(None, None, &initialize(1, "2025-11-25"))).await;
    let id = opened
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let stream = app
        .clone()
        .oneshot(bare(Method::GET, id.as_deref()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stream.status(), StatusCode::OK);
    let mut body = stream.into_body();
    server.shutdown();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = body.frame().await {}
    })
    .await;
    assert!(ended.is_ok(), "the GET stream outlived the server");
}

#[tokio::test]
async fn http_sessions_are_bounded_and_expire() {
    let config = HttpConfig::default()
        .max_sessions(1)
        .session_idle_timeout(Duration::from_millis(100));
    let app = server().http_service_with(config);
    let first = send(&app, post(None, None, &initialize(1, "2025-11-25"))).await;
    assert_eq!(first.status, StatusCode::OK);
    let full = send(&app, post(None, None, &initialize(2, "2025-11-25"))).await;
    assert_eq!(full.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(full.body["error"]["code"], -32603);
    assert!(full.headers.get("mcp-session-id").is_none());

    tokio::time::sleep(Duration::from_millis(150)).await;
    let id = first
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let expired = send(
        &app,
        post(
            id.as_deref(),
            Some("2025-11-25"),
            &request(3, "ping", json!({})),
        ),
    )
    .await;
    assert_eq!(expired.status, StatusCode::NOT_FOUND);
    let again = send(&app, post(None, None, &initialize(4, "2025-11-25"))).await;
    assert_eq!(again.status, StatusCode::OK);
}

#[tokio::test]
async fn in_process_calls_stay_stateless() {
    let server = server();
    let transport = typemcp_server::TransportInfo::in_process();
    let message = initialize(1, "2025-11-25").to_string();
    let reply = server
        .handle_message(message.as_bytes(), transport)
        .await
        .unwrap_or_else(|| panic!("no reply"));
    let reply: Value = serde_json::from_slice(&reply).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

#[tokio::test]
async fn an_authenticated_session_belongs_to_its_subject() {
    let app = server().http_service();
    let as_user = |mut request: Request<Body>, subject: &str| {
        request
            .extensions_mut()
            .insert(typemcp_server::AuthIdentity::new(subject));
        request
    };
    let opened = send(
        &app,
        as_user(post(None, None, &initialize(1, "2025-11-25")), "alice"),
    )
    .await;
    let id = opened
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let id = id.as_deref();
    let ping = request(2, "ping", json!({}));
    let v = Some("2025-11-25");
    let stolen = send(&app, as_user(post(id, v, &ping), "mallory")).await;
    assert_eq!(stolen.status, StatusCode::NOT_FOUND);
    let anonymous = send(&app, post(id, v, &ping)).await;
    assert_eq!(anonymous.status, StatusCode::NOT_FOUND);
    let deleted = send(&app, as_user(bare(Method::DELETE, id), "mallory")).await;
    assert_eq!(deleted.status, StatusCode::NOT_FOUND);
    let own = send(&app, as_user(post(id, v, &ping), "alice")).await;
    assert_eq!((own.status, own.body), (StatusCode::OK, ok(2, json!({}))));
}
