//! A multi-round request from end to end, in one process: a server whose `deploy` tool asks
//! for confirmation and then a rollout plan, and a minimal client that answers as a user
//! would, printing every message on the wire. At the end, a tampered `requestState` is
//! refused before the tool runs.
//!
//! ```text
//! cargo run --example input_required
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::{ElicitForm, Server, TransportInfo, tool};

/// Confirm the deploy.
#[derive(ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// How to roll it out.
#[derive(ElicitForm)]
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

/// The simulated user: accepts every question, with an answer that fits the form.
fn answer(key: &str) -> Value {
    match key {
        "confirm" => json!({ "action": "accept", "content": { "ok": true } }),
        _ => json!({ "action": "accept", "content": { "replicas": 3 } }),
    }
}

fn request(id: i64, inputs: Option<&Value>, state: Option<&str>) -> Value {
    let mut params = json!({
        "name": "deploy",
        "arguments": { "target": "production" },
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} }
        }
    });
    if let Some(inputs) = inputs {
        params["inputResponses"] = inputs.clone();
    }
    if let Some(state) = state {
        params["requestState"] = Value::from(state);
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

async fn send(server: &Server, message: &Value) -> Result<Value, Box<dyn std::error::Error>> {
    println!(
        "client → server\n{}\n",
        serde_json::to_string_pretty(message)?
    );
    let bytes = serde_json::to_vec(message)?;
    let reply = server
        .handle_message(&bytes, TransportInfo::in_process())
        .await
        .ok_or("no response to a request")?;
    let reply: Value = serde_json::from_slice(&reply)?;
    println!(
        "server → client\n{}\n",
        serde_json::to_string_pretty(&reply)?
    );
    Ok(reply)
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

    let mut reply = send(&server, &request(1, None, None)).await?;
    let mut id = 1;
    let mut last_state = None;
    while reply["result"]["resultType"] == "input_required" {
        let result = &reply["result"];
        let inputs: serde_json::Map<String, Value> = result["inputRequests"]
            .as_object()
            .map(|requests| {
                requests
                    .keys()
                    .map(|key| (key.clone(), answer(key)))
                    .collect()
            })
            .unwrap_or_default();
        let state = result["requestState"].as_str().map(str::to_owned);
        id += 1;
        reply = send(
            &server,
            &request(id, Some(&Value::Object(inputs)), state.as_deref()),
        )
        .await?;
        last_state = state;
    }
    println!("Done: {}\n", reply["result"]["content"][0]["text"]);

    println!("The last state, tampered with, is refused before the tool runs:\n");
    let tampered = last_state.map(|s| format!("{s}x"));
    let inputs = json!({ "rollout": answer("rollout") });
    let refused = send(
        &server,
        &request(id + 1, Some(&inputs), tampered.as_deref()),
    )
    .await?;
    if refused["error"]["code"] != -32602 {
        return Err("a tampered state was not refused".into());
    }
    Ok(())
}
