//! A request that needs a client capability it did not declare fails with `-32021`, and the
//! message names that capability (the client's user sees the message, not `data`): a form
//! asked through `Round`, and a tool that runs only as a task. The server keeps serving.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use typemcp_client::{
    Client, ClientBuilder, ClientError, EraChoice, NoAnswers, Scripted, ToolResultExt,
};
use typemcp_server::state::{Reply, Round, Step};
use typemcp_server::{McpError, Server, tool};

use crate::support::client::connect;
use crate::support::confirm::{Confirm, Flow, FlowAnswered, FlowAsking};

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

fn server() -> Server {
    Server::builder()
        .tool(confirm)
        .tool(export)
        .tool(ping)
        .build()
        .expect("builds")
}

/// The JSON-RPC error a modern client of `server` built by `builder` gets calling `tool`.
async fn refusal(server: &Server, builder: ClientBuilder, tool: &str) -> McpError {
    let client = connect(server.clone(), builder.era(EraChoice::Modern)).await;
    match client.call_tool(tool, json!({})).await {
        Err(ClientError::Server(error)) => error,
        other => panic!("{tool}: not refused: {other:?}"),
    }
}

#[tokio::test]
async fn a_form_asked_of_a_client_without_elicitation_names_elicitation_form() {
    let server = server();
    let error = refusal(&server, Client::builder().answers(NoAnswers), "confirm").await;
    assert_eq!(error.code.0, -32021, "{error:?}");
    assert_eq!(
        error.message,
        "Missing required client capability: the client did not declare the \
         `elicitation.form` capability"
    );
    let needed = error.data.map(|data| data["requiredCapabilities"].clone());
    assert_eq!(needed, Some(json!({"elicitation": {"form": {}}})));
    // Declared, the same call asks its question; and the server serves on.
    let yes = typemcp_client::Reply::accept(&Confirm { ok: true });
    let script = Scripted::new().reply("confirm", yes);
    let client = connect(server.clone(), Client::builder().answers(script)).await;
    let done = client.call_tool("confirm", json!({})).await.unwrap();
    assert_eq!(done.text(), "ok: true");
    assert_eq!(
        client.call_tool("ping", json!({})).await.unwrap().text(),
        "pong"
    );
}

#[tokio::test]
async fn a_task_only_tool_called_without_the_extension_names_the_extension() {
    let server = server();
    let error = refusal(&server, Client::builder(), "export").await;
    assert_eq!(error.code.0, -32021, "{error:?}");
    assert_eq!(
        error.message,
        "Missing required client capability: the client did not declare the \
         `extensions[\"io.modelcontextprotocol/tasks\"]` capability"
    );
    // Declared, it runs as a task, followed to its result.
    let client = connect(server, Client::builder().tasks()).await;
    assert_eq!(
        client.call_tool("export", json!({})).await.unwrap().text(),
        "exported"
    );
}
