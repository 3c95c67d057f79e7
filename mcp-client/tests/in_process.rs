//! The client against a server of this workspace in the same process (`serve_io` on an
//! in-memory duplex), in both eras: listing, plain calls, a two-round flow answered with the
//! form types the server derived its questions from, and the answers that do not fit failing
//! clearly. A server that does not know `server/discover` gets a 2025-11-25 session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use typemcp_client::{Client, ClientError, Era, EraChoice, Reply, Scripted, ToolResultExt};
use typemcp_server::state::{Continuation, Reply as Answered, Round, Step};
use typemcp_server::{ElicitForm, Json, Server, tool};

/// Confirm the deploy.
#[derive(ElicitForm, Serialize)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// How to roll it out.
#[derive(ElicitForm, Serialize)]
struct Rollout {
    /// How many replicas to run.
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u8,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum DeployFlow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(rollout: Rollout)]
    Configuring,
}

/// Deploy the service to a target.
#[tool]
async fn deploy(target: String, round: Round<DeployFlow>) -> Step<DeployFlow, String> {
    match round.resume() {
        None => round.ask(DeployFlowAsking::Confirming {
            confirm: format!("Deploy to {target}?").into(),
        }),
        Some(DeployFlowAnswered::Confirming {
            confirm: Answered::Accepted(Confirm { ok: true }),
        }) => round.ask(DeployFlowAsking::Configuring {
            rollout: "How should it roll out?".into(),
        }),
        Some(DeployFlowAnswered::Confirming { .. }) => Step::done("Deploy declined."),
        Some(DeployFlowAnswered::Configuring {
            rollout: Answered::Accepted(plan),
        }) => Step::done(format!(
            "Deployed to {target} with {} replicas.",
            plan.replicas
        )),
        Some(DeployFlowAnswered::Configuring { .. }) => Step::done("Deploy cancelled."),
    }
}

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// A sum, as structured output.
#[derive(Serialize, serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
struct Total {
    total: i64,
}

/// Adds two numbers, answering with structured content.
#[tool]
async fn sum(a: i64, b: i64) -> Json<Total> {
    Json(Total { total: a + b })
}

fn server() -> Server {
    Server::builder()
        .tool(deploy)
        .tool(add)
        .tool(sum)
        .build()
        .unwrap()
}

/// A client of `server` over an in-memory duplex.
async fn connect(era: EraChoice, script: Scripted) -> Client {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server().serve_io(read, write));
    let (read, write) = tokio::io::split(client_end);
    Client::builder()
        .era(era)
        .answers(script)
        .connect_io(read, write)
        .await
        .unwrap()
}

fn plan() -> Scripted {
    Scripted::new()
        .reply("confirm", Reply::accept(&Confirm { ok: true }))
        .reply("rollout", Reply::accept(&Rollout { replicas: 3 }))
}

#[tokio::test]
async fn the_era_is_chosen_automatically_and_both_run_the_same_calls() {
    for (choice, era) in [
        (EraChoice::Automatic, Era::Modern),
        (EraChoice::Session, Era::Session),
    ] {
        let client = connect(choice, Scripted::new()).await;
        assert_eq!(client.era(), era);
        let tools: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(tools, ["deploy", "add", "sum"], "{era:?}");
        let added = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(added.text(), "5", "{era:?}");
        let total = client
            .call_tool("sum", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(
            total.structured::<Total>().unwrap(),
            Total { total: 5 },
            "{era:?}"
        );
        assert!(!total.is_tool_error());
    }
}

#[tokio::test]
async fn a_two_round_flow_is_answered_with_the_form_types_in_both_eras() {
    for choice in [EraChoice::Modern, EraChoice::Session] {
        let script = plan();
        let client = connect(choice, script).await;
        let done = client
            .call_tool("deploy", json!({"target": "staging"}))
            .await
            .unwrap();
        assert_eq!(
            done.text(),
            "Deployed to staging with 3 replicas.",
            "{choice:?}"
        );
    }
}

#[tokio::test]
async fn a_declined_question_reaches_the_handler() {
    let script = Scripted::new().reply_in(1, "confirm", Reply::decline());
    let client = connect(EraChoice::Modern, script).await;
    let done = client
        .call_tool("deploy", json!({"target": "prod"}))
        .await
        .unwrap();
    assert_eq!(done.text(), "Deploy declined.");
}

/// The question `deploy` fails on with `script`, and why.
async fn unanswered(script: Scripted) -> (String, String) {
    let client = connect(EraChoice::Modern, script).await;
    let error = client
        .call_tool("deploy", json!({"target": "prod"}))
        .await
        .unwrap_err();
    match error {
        ClientError::Unanswered { question, reason } => (question, reason),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_form_answered_with_the_wrong_type_fails_naming_both() {
    let script = Scripted::new().reply("confirm", Reply::accept(&Rollout { replicas: 3 }));
    let (question, reason) = unanswered(script).await;
    assert_eq!(question, "confirm");
    assert!(
        reason.contains("Rollout") && reason.contains("ok"),
        "{reason}"
    );
}

#[tokio::test]
async fn an_answer_that_breaks_the_form_fails_before_it_is_sent() {
    let script = Scripted::new()
        .reply("confirm", Reply::accept(&Confirm { ok: true }))
        .reply("rollout", Reply::accept(&Rollout { replicas: 40 }));
    let (question, reason) = unanswered(script).await;
    assert_eq!(question, "rollout");
    assert!(reason.contains("replicas"), "{reason}");
}

#[tokio::test]
async fn a_question_the_script_does_not_answer_fails_naming_it_and_its_round() {
    let script = Scripted::new().reply("confirm", Reply::accept(&Confirm { ok: true }));
    let (question, reason) = unanswered(script).await;
    assert_eq!(question, "rollout");
    assert!(reason.contains("round 2"), "{reason}");
}

#[tokio::test]
async fn an_unknown_tool_is_the_servers_error() {
    let client = connect(EraChoice::Automatic, Scripted::new()).await;
    let error = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(error.code(), Some(-32602), "{error:?}");
}

/// A 2025-11-25-only server, by hand: `server/discover` is an unknown method, `initialize`
/// opens the session, `tools/list` lists one tool.
async fn legacy_only_server(
    read: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    mut write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
) {
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).unwrap();
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let reply = match message["method"].as_str() {
            Some("initialize") => json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "legacy", "version": "1"},
            }}),
            Some("tools/list") => json!({"jsonrpc": "2.0", "id": id, "result": {
                "tools": [{"name": "old", "inputSchema": {"type": "object"}}],
            }}),
            _ => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
            }
        };
        let mut line = reply.to_string();
        line.push('\n');
        write.write_all(line.as_bytes()).await.unwrap();
    }
}

#[tokio::test]
async fn a_server_without_discover_gets_a_session() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(legacy_only_server(read, write));
    let (read, write) = tokio::io::split(client_end);
    let client = Client::builder().connect_io(read, write).await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(client.server().version, "2025-11-25");
    assert_eq!(client.server().info.as_ref().unwrap().name, "legacy");
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "old");
}
