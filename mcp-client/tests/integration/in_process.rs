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
async fn a_declined_question_reaches_the_handler_in_both_eras() {
    // A pushed question (2025-11-25) has no key: it takes the untyped reply in script order.
    for era in [EraChoice::Modern, EraChoice::Session] {
        let script = Scripted::new().reply_in(1, "confirm", Reply::decline());
        let client = connect(era, script).await;
        let done = client
            .call_tool("deploy", json!({"target": "prod"}))
            .await
            .unwrap();
        assert_eq!(done.text(), "Deploy declined.", "{era:?}");
    }
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

/// A server of the sessions only, by hand: `server/discover` is an unknown method,
/// `initialize` opens a session of revision `version`, `tools/list` lists one tool.
async fn legacy_only_server(
    version: &'static str,
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
                "protocolVersion": version,
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

/// A client of [`legacy_only_server`] answering `initialize` with `version`.
async fn connect_legacy(version: &'static str) -> Result<Client, ClientError> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(legacy_only_server(version, read, write));
    let (read, write) = tokio::io::split(client_end);
    Client::builder().connect_io(read, write).await
}

#[tokio::test]
async fn a_server_without_discover_gets_a_session() {
    let client = connect_legacy("2025-11-25").await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(client.server().version, "2025-11-25");
    assert_eq!(client.server().info.as_ref().unwrap().name, "legacy");
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "old");
    // An earlier revision the client reads the same way is spoken too.
    let older = connect_legacy("2025-06-18").await.unwrap();
    assert_eq!(older.server().version, "2025-06-18");
}

#[tokio::test]
async fn a_server_answering_with_a_revision_the_client_cannot_speak_is_refused_at_once() {
    let error = connect_legacy("2024-11-05").await.unwrap_err();
    assert!(matches!(error, ClientError::Malformed { .. }), "{error:?}");
    assert!(error.to_string().contains("\"2024-11-05\""), "{error}");
}

/// Told once the slow tool's handler was stopped (cancelled, or dropped by the server).
static CANCELLED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Tells [`CANCELLED`] when dropped.
struct Stopped;

impl Drop for Stopped {
    fn drop(&mut self) {
        CANCELLED.notify_one();
    }
}

/// Never answers on its own.
#[tool]
async fn slow(ctx: typemcp_server::RequestContext) -> String {
    let _stopped = Stopped;
    ctx.cancellation().cancelled().await;
    "cancelled".to_owned()
}

#[tokio::test]
async fn a_request_past_its_timeout_fails_and_is_cancelled_on_the_server() {
    for era in [EraChoice::Modern, EraChoice::Session] {
        let server = Server::builder().tool(slow).tool(add).build().unwrap();
        let (client_end, server_end) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(read, write));
        let (read, write) = tokio::io::split(client_end);
        let client = Client::builder()
            .era(era)
            .request_timeout(std::time::Duration::from_millis(300))
            .connect_io(read, write)
            .await
            .unwrap();
        let error = client.call_tool("slow", json!({})).await.unwrap_err();
        assert!(
            matches!(error, ClientError::TimedOut { ref method, .. } if method == "tools/call"),
            "{era:?}: {error:?}"
        );
        tokio::time::timeout(std::time::Duration::from_secs(5), CANCELLED.notified())
            .await
            .unwrap_or_else(|_| panic!("{era:?}: the server never saw the cancellation"));
        // The connection still serves.
        let sum = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert_eq!(sum.text(), "3", "{era:?}");
    }
}

/// Counts to three, reporting each step as progress.
#[tool]
async fn count(ctx: typemcp_server::RequestContext) -> &'static str {
    for step in 1..=3 {
        ctx.report_progress(f64::from(step), Some(3.0), Some(format!("step {step}")))
            .await;
    }
    "counted"
}

#[tokio::test]
async fn progress_reaches_the_notification_handler_in_both_eras() {
    for era in [EraChoice::Modern, EraChoice::Session] {
        let server = Server::builder().tool(count).build().unwrap();
        let (client_end, server_end) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(read, write));
        let (read, write) = tokio::io::split(client_end);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&seen);
        let client = Client::builder()
            .era(era)
            .on_notification(move |notification| {
                if let Some(progress) = notification.progress() {
                    sink.lock()
                        .unwrap()
                        .push((progress.progress, progress.message));
                }
            })
            .connect_io(read, write)
            .await
            .unwrap();
        let done = client.call_tool("count", json!({})).await.unwrap();
        assert_eq!(done.text(), "counted", "{era:?}");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            [
                (1.0, Some("step 1".to_owned())),
                (2.0, Some("step 2".to_owned())),
                (3.0, Some("step 3".to_owned()))
            ],
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn a_request_after_the_server_ended_its_output_fails_at_once() {
    // One pipe each way, as a child's stdout and stdin are.
    let (client_in, mut server_out) = tokio::io::duplex(64 * 1024);
    let (server_in, client_out) = tokio::io::duplex(64 * 1024);
    // Answers discover, then closes its output while still reading its input.
    tokio::spawn(async move {
        let mut lines = BufReader::new(server_in).lines();
        let line = lines.next_line().await.unwrap().unwrap();
        let id = serde_json::from_str::<Value>(&line).unwrap()["id"].clone();
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {},
            "ttlMs": 0, "cacheScope": "private",
        }});
        server_out
            .write_all(format!("{answer}\n").as_bytes())
            .await
            .unwrap();
        drop(server_out);
        while let Ok(Some(_)) = lines.next_line().await {}
    });
    let client = Client::builder()
        .connect_io(client_in, client_out)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let call = client.call_tool("add", json!({"a": 1, "b": 2}));
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(5), call).await;
    assert!(
        matches!(outcome, Ok(Err(ClientError::Closed))),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_listen_says_it_ended_because_the_connection_was_lost() {
    use typemcp_client::typemcp_core::protocol::SubscriptionFilter;
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server().serve_io(read, write));
    let (read, write) = tokio::io::split(client_end);
    let client = Client::builder().connect_io(read, write).await.unwrap();
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    let mut listen = client.listen(filter).await.unwrap();
    assert!(listen.ended().is_none(), "open");
    serving.abort();
    let next = tokio::time::timeout(std::time::Duration::from_secs(5), listen.next()).await;
    assert!(next.expect("the stream ends").is_none());
    let ended = listen.ended();
    assert!(matches!(ended, Some(Err(ClientError::Closed))), "{ended:?}");
}
