//! A request that needs a client capability it did not declare fails with `-32021`, and the
//! message names that capability (the client's user sees the message, not `data`): a form
//! asked through `Round`, and a tool that runs only as a task. The server keeps serving.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::confirm::{Confirm, Flow, FlowAnswered, FlowAsking};
use serde_json::{Value, json};
use typemcp_server::state::{Reply, Round, Step};
use typemcp_server::{Server, TransportInfo, tool};

/// Asks for a confirmation.
#[tool]
async fn confirm(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Go ahead?".into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok }),
        }) => Step::done(format!("ok: {ok}")),
        Some(FlowAnswered::Confirming { .. }) => Step::done("no".to_owned()),
    }
}

/// Runs only as a task.
#[tool(task = "required")]
async fn export() -> String {
    "exported".to_owned()
}

/// Answers at once.
#[tool]
async fn ping() -> String {
    "pong".to_owned()
}

async fn call(server: &Server, name: &str, capabilities: Value) -> Value {
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities
        }}
    });
    let reply = server
        .handle_message(request.to_string().as_bytes(), TransportInfo::in_process())
        .await
        .expect("a reply");
    serde_json::from_slice(&reply).unwrap()
}

fn server() -> Server {
    Server::builder()
        .tool(confirm)
        .tool(export)
        .tool(ping)
        .build()
        .expect("builds")
}

#[tokio::test]
async fn a_form_asked_of_a_client_without_elicitation_names_elicitation_form() {
    let server = server();
    let reply = call(&server, "confirm", json!({})).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "Missing required client capability: the client did not declare the \
         `elicitation.form` capability",
        "{reply}"
    );
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    // Declared, the same call asks its question; and the server serves on.
    let asked = call(&server, "confirm", json!({"elicitation": {}})).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let pong = call(&server, "ping", json!({})).await;
    assert_eq!(pong["result"]["content"][0]["text"], "pong", "{pong}");
}

#[tokio::test]
async fn a_task_only_tool_called_without_the_extension_names_the_extension() {
    let server = server();
    let reply = call(&server, "export", json!({})).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["message"],
        "Missing required client capability: the client did not declare the \
         `extensions[\"io.modelcontextprotocol/tasks\"]` capability",
        "{reply}"
    );
}
