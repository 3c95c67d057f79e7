//! What each era gets of a tool's structured output (SEP-2106): a tool returning
//! `Json<Vec<T>>` (or any output whose schema is not an object) is listed with its
//! `outputSchema` and answered with `structuredContent` on the 2026-07-28 wire, and served to a
//! 2025-11-25 session without either (the JSON as text content only), so that no client of
//! that era refuses the whole `tools/list`. A tool whose output is an object gets both in both
//! eras. Driven by `typemcp-client` in process, in both eras.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use typemcp_client::{Client, Era, ToolResultExt};
use typemcp_server::{Json, Server, tool};

use crate::support::client::wires;
use crate::support::stdio_pipe::StdioPipe;

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
    let room = |name: &str, seats| Room {
        name: name.into(),
        seats,
    };
    Json(vec![room("Blue", 4), room("Green", 10)])
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

#[tokio::test]
async fn the_current_era_gets_any_output_schema_and_the_legacy_era_objects_only() {
    let run = async |client: Client, run: typemcp_client::Run| {
        let modern = run.era == Era::Modern;
        let tools = client.list_tools().await.unwrap();
        let output = |name: &str| {
            let tool = tools.iter().find(|tool| tool.name == name).unwrap();
            tool.output_schema
                .as_ref()
                .map(|schema| schema["type"].clone())
        };
        let (array, integer) = (Some(json!("array")), Some(json!("integer")));
        let expected = if modern {
            (array, integer)
        } else {
            (None, None)
        };
        assert_eq!(
            (output("list_rooms"), output("count_rooms")),
            expected,
            "{run}"
        );
        assert_eq!(output("forecast"), Some(json!("object")), "{run}");

        // The JSON as text in both eras; as structured content where the era takes it.
        let rooms: Value = serde_json::from_str(ROOMS).unwrap();
        for (tool, text, structured) in [
            ("list_rooms", ROOMS, modern.then(|| rooms.clone())),
            ("count_rooms", "2", modern.then(|| json!(2))),
            (
                "forecast",
                r#"{"celsius":21.5}"#,
                Some(json!({"celsius": 21.5})),
            ),
        ] {
            let result = client.call_tool(tool, json!({})).await.unwrap();
            assert_eq!(result.text(), text, "{run}: {tool}");
            assert_eq!(result.content.len(), 1, "{run}: {tool}");
            assert_eq!(result.structured_content, structured, "{run}: {tool}");
        }
    };
    wires(server).run(Client::builder, run).await.unwrap();
}

/// On the raw 2025-11-25 wire, a list's result is its text alone: no `structuredContent`, not
/// even `null`, which a client of that era could refuse (the client above reads both alike).
#[tokio::test]
async fn a_legacy_session_gets_a_list_as_its_text_alone() {
    let mut io = StdioPipe::start(server());
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old-client", "version": "1.0"}}});
    assert_eq!(
        io.call(init).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "list_rooms"}});
    let answer = io.call(call).await;
    let text = json!({"content": [{"type": "text", "text": ROOMS}]});
    assert_eq!(answer["result"], text, "{answer}");
}
