//! A 2025-11-25 session's own event stream (the `GET`) is open before the client's first
//! request after `initialize` goes out. The TypeScript SDK's server sends a request of its own
//! that belongs to no request of the client's (`server.request(…)` in a tool) on that stream,
//! and drops it when no stream is open yet: a call that waits on its answer then waits
//! forever. The stand-in server here answers the `GET` only after a delay, and records when
//! each request arrived. It also answers a method it does not know with a 404, as a server
//! of both eras may: the server's error, not the end of the session.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use typemcp_client::{Client, EraChoice};

/// What the server saw, in order.
type Seen = Arc<Mutex<Vec<String>>>;

/// How long the server takes to answer the `GET`.
const STREAM_SETUP: Duration = Duration::from_millis(300);

async fn on_post(State(seen): State<Seen>, body: Bytes) -> Response {
    let message: Value = serde_json::from_slice(&body).unwrap();
    let method = message["method"]
        .as_str()
        .unwrap_or("a response")
        .to_owned();
    seen.lock().unwrap().push(method.clone());
    let result = match method.as_str() {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "stand-in", "version": "1"},
        }),
        "tools/list" => json!({"tools": []}),
        // Method not found, as a server of both eras may say it over HTTP: a 404.
        "prompts/list" => {
            let error = json!({"code": -32601, "message": "Method not found: prompts/list"});
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "error": error});
            let headers = [(header::CONTENT_TYPE, "application/json")];
            return (StatusCode::NOT_FOUND, headers, answer.to_string()).into_response();
        }
        _ => return StatusCode::ACCEPTED.into_response(),
    };
    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
    let headers = [
        (header::CONTENT_TYPE, "application/json"),
        (header::HeaderName::from_static("mcp-session-id"), "s-1"),
    ];
    (headers, answer.to_string()).into_response()
}

async fn on_get(State(seen): State<Seen>, headers: HeaderMap) -> Response {
    assert_eq!(headers["mcp-session-id"], "s-1");
    tokio::time::sleep(STREAM_SETUP).await;
    seen.lock().unwrap().push("GET answered".to_owned());
    let events = futures_util::stream::pending::<Result<Bytes, std::io::Error>>();
    let headers = [(header::CONTENT_TYPE, "text/event-stream")];
    (headers, Body::from_stream(events)).into_response()
}

/// Serves the stand-in on a loopback port; what it sees, and a client in a session with it.
async fn stand_in_session() -> (Seen, Client) {
    let seen = Seen::default();
    let app = Router::new()
        .route("/mcp", post(on_post).get(on_get))
        .with_state(Arc::clone(&seen));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = Client::builder()
        .era(EraChoice::Session)
        .connect_http(&url)
        .await
        .unwrap();
    (seen, client)
}

#[tokio::test]
async fn the_session_stream_is_open_before_the_first_request_after_initialize() {
    let (seen, client) = stand_in_session().await;
    assert!(client.list_tools().await.unwrap().is_empty());

    let seen = seen.lock().unwrap().clone();
    let expected = [
        "initialize",
        "notifications/initialized",
        "GET answered",
        "tools/list",
    ];
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn a_404_naming_an_unknown_method_is_the_servers_error_not_the_end_of_the_session() {
    let (seen, client) = stand_in_session().await;
    let error = client.list_prompts().await.unwrap_err();
    assert_eq!(error.code(), Some(-32601), "{error:?}");
    assert_eq!(client.session_id().as_deref(), Some("s-1"));
    let initialized = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|m| *m == "initialize")
        .count();
    assert_eq!(initialized, 1, "no new session for it");
}
