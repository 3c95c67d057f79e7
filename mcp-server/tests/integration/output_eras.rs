//! What each era gets of a tool's structured output (SEP-2106): a tool returning
//! `Json<Vec<T>>` (or any output whose schema is not an object) is listed with its
//! `outputSchema` and answered with `structuredContent` on the 2026-07-28 wire, and served to a
//! 2025-11-25 session without either (the JSON as text content only), so that no client of
//! that era refuses the whole `tools/list`. A tool whose output is an object gets both in both
//! eras. The legacy session runs over stdio (an in-memory duplex through `serve_io`), the
//! modern requests through [`Server::handle_message`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::stdio_pipe::StdioPipe;
use serde_json::{Value, json};
use typemcp_server::{Json, Server, TransportInfo, tool};

/// A meeting room.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Room {
    name: String,
    seats: u32,
}

/// The weather, an object.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    celsius: f64,
}

/// Lists the rooms: an array.
#[tool]
async fn list_rooms() -> Json<Vec<Room>> {
    Json(vec![
        Room {
            name: "Blue".into(),
            seats: 4,
        },
        Room {
            name: "Green".into(),
            seats: 10,
        },
    ])
}

/// Counts the rooms: a number.
#[tool]
async fn count_rooms() -> Json<u32> {
    Json(2)
}

/// The weather: an object.
#[tool]
async fn forecast() -> Json<Forecast> {
    Json(Forecast { celsius: 21.5 })
}

const ROOMS: &str = r#"[{"name":"Blue","seats":4},{"name":"Green","seats":10}]"#;

fn server() -> Server {
    Server::builder()
        .tool(list_rooms)
        .tool(count_rooms)
        .tool(forecast)
        .build()
        .unwrap()
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A request on the 2026-07-28 wire.
async fn modern(server: &Server, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let bytes = serde_json::to_vec(&request(1, method, params)).unwrap();
    let reply = server
        .handle_message(&bytes, TransportInfo::in_process())
        .await
        .expect("a reply");
    serde_json::from_slice(&reply).unwrap()
}

/// A session of the 2025-11-25 era over stdio.
async fn legacy_session(server: Server) -> StdioPipe {
    let mut io = StdioPipe::start(server);
    let opened = io
        .call(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "old-client", "version": "1.0"}}}),
        )
        .await;
    assert_eq!(
        opened["result"]["protocolVersion"], "2025-11-25",
        "{opened}"
    );
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    io
}

/// The listed tool named `name`.
fn listed<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {list}"))
}

#[tokio::test]
async fn the_current_era_gets_any_output_schema_and_structured_content() {
    let server = server();
    let list = modern(&server, "tools/list", json!({})).await;
    let rooms = &listed(&list, "list_rooms")["outputSchema"];
    assert_eq!(rooms["type"], "array", "{list}");
    assert_eq!(
        listed(&list, "count_rooms")["outputSchema"]["type"],
        "integer"
    );
    assert_eq!(listed(&list, "forecast")["outputSchema"]["type"], "object");

    let call = modern(&server, "tools/call", json!({"name": "list_rooms"})).await;
    let result = &call["result"];
    assert_eq!(
        result["structuredContent"],
        serde_json::from_str::<Value>(ROOMS).unwrap()
    );
    assert_eq!(result["content"], json!([{"type": "text", "text": ROOMS}]));
    let count = modern(&server, "tools/call", json!({"name": "count_rooms"})).await;
    assert_eq!(count["result"]["structuredContent"], 2, "{count}");
}

#[tokio::test]
async fn the_legacy_era_gets_object_output_only_and_the_rest_as_text() {
    let mut io = legacy_session(server()).await;
    let list = io.call(request(1, "tools/list", json!({}))).await;
    // Every listed outputSchema is an object, as a 2025-11-25 client requires.
    for tool in list["result"]["tools"].as_array().unwrap() {
        if let Some(schema) = tool.get("outputSchema") {
            assert_eq!(schema["type"], "object", "{tool}");
        }
    }
    assert!(
        listed(&list, "list_rooms").get("outputSchema").is_none(),
        "{list}"
    );
    assert!(
        listed(&list, "count_rooms").get("outputSchema").is_none(),
        "{list}"
    );
    assert_eq!(listed(&list, "forecast")["outputSchema"]["type"], "object");

    let call = io
        .call(request(2, "tools/call", json!({"name": "list_rooms"})))
        .await;
    assert_eq!(
        call["result"],
        json!({"content": [{"type": "text", "text": ROOMS}]}),
        "{call}"
    );
    let count = io
        .call(request(3, "tools/call", json!({"name": "count_rooms"})))
        .await;
    assert_eq!(
        count["result"],
        json!({"content": [{"type": "text", "text": "2"}]})
    );
    let weather = io
        .call(request(4, "tools/call", json!({"name": "forecast"})))
        .await;
    assert_eq!(
        weather["result"],
        json!({"content": [{"type": "text", "text": r#"{"celsius":21.5}"#}],
               "structuredContent": {"celsius": 21.5}})
    );
}
