//! A multi-round request from end to end, in one process: a server whose `deploy` tool asks
//! for confirmation and then a rollout plan, and `typemcp-client` answering each question with
//! a value of the very form type the server derived it from, over an in-memory connection
//! whose every message is printed as it passes. At the end, the last `requestState` seen on
//! the wire, tampered with, is sent by hand and refused before the tool runs.
//!
//! ```text
//! cargo run --example input_required
//! ```

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use typemcp_client::{Client, EraChoice, Scripted, ToolResultExt};
use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::{ElicitForm, Server, TransportInfo, tool};

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

/// Where the conversation stands; travels signed in `requestState`.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum DeployFlow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(rollout: Rollout)]
    Configuring,
}

/// Deploy the service to a target.
#[tool(destructive)]
async fn deploy(
    /// `staging` or `production`.
    target: String,
    round: Round<DeployFlow>,
) -> Step<DeployFlow, String> {
    match round.resume() {
        None => round.ask(DeployFlowAsking::Confirming {
            confirm: format!("Deploy to {target}?").into(),
        }),
        Some(DeployFlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok: true }),
        }) => round.ask(DeployFlowAsking::Configuring {
            rollout: "How should it roll out?".into(),
        }),
        Some(DeployFlowAnswered::Configuring {
            rollout: Reply::Accepted(plan),
        }) => Step::done(format!(
            "Deployed to {target} with {} replicas.",
            plan.replicas
        )),
        Some(_) => Step::done("Deploy cancelled."),
    }
}

/// The last `requestState` the server sent.
type LastState = Arc<Mutex<Option<String>>>;

/// Copies newline-delimited messages from `from` to `to`, printing each under `label` and
/// keeping the last `requestState` it carries.
async fn tap(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    label: &'static str,
    last_state: LastState,
) -> std::io::Result<()> {
    let mut lines = BufReader::new(from).lines();
    while let Some(line) = lines.next_line().await? {
        if let Ok(message) = serde_json::from_str::<Value>(&line) {
            println!("{label}\n{}\n", serde_json::to_string_pretty(&message)?);
            if let Some(state) = message["result"]["requestState"].as_str() {
                *last_state.lock().unwrap_or_else(PoisonError::into_inner) = Some(state.to_owned());
            }
        }
        to.write_all(line.as_bytes()).await?;
        to.write_all(b"\n").await?;
    }
    Ok(())
}

/// A `tools/call` of `deploy` by hand, with `inputs` and `state`.
fn request(id: i64, inputs: &Value, state: Option<&str>) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "deploy",
        "arguments": { "target": "production" },
        "inputResponses": inputs,
        "requestState": state,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} }
        }
    }})
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr, beside the exchange printed on stdout; `RUST_LOG=typemcp_server=debug`
    // shows every request served.
    typemcp_server::logging::init();
    let server = Server::builder()
        .name("deployer")
        .version("1.0.0")
        .tool(deploy)
        .build()?;

    // client ⇄ tap ⇄ server, each link an in-memory pipe.
    let (client_end, tap_client_side) = tokio::io::duplex(64 * 1024);
    let (tap_server_side, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server.clone().serve_io(read, write));
    let last_state = LastState::default();
    let (from_client, to_client) = tokio::io::split(tap_client_side);
    let (from_server, to_server) = tokio::io::split(tap_server_side);
    tokio::spawn(tap(
        from_client,
        to_server,
        "client → server",
        last_state.clone(),
    ));
    tokio::spawn(tap(
        from_server,
        to_client,
        "server → client",
        last_state.clone(),
    ));

    // The user's answers, written as the form types themselves.
    let answers = Scripted::new()
        .reply(
            "confirm",
            typemcp_client::Reply::accept(&Confirm { ok: true }),
        )
        .reply(
            "rollout",
            typemcp_client::Reply::accept(&Rollout { replicas: 3 }),
        );
    let (read, write) = tokio::io::split(client_end);
    let client = Client::builder()
        .era(EraChoice::Modern)
        .answers(answers)
        .connect_io(read, write)
        .await?;
    let done = client
        .call_tool("deploy", json!({ "target": "production" }))
        .await?;
    println!("Done: {:?}\n", done.text());

    println!("The last state, tampered with, is refused before the tool runs:\n");
    let last = last_state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let tampered = last.map(|state| format!("{state}x"));
    let inputs = json!({ "rollout": { "action": "accept", "content": { "replicas": 3 } } });
    let message = serde_json::to_vec(&request(100, &inputs, tampered.as_deref()))?;
    let refused = server
        .handle_message(&message, TransportInfo::in_process())
        .await
        .ok_or("no response to a request")?;
    let refused: Value = serde_json::from_slice(&refused)?;
    println!(
        "server → client\n{}\n",
        serde_json::to_string_pretty(&refused)?
    );
    if refused["error"]["code"] != -32602 {
        return Err("a tampered state was not refused".into());
    }
    Ok(())
}
