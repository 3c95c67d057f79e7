//! The deploy tool of the multi-round guide: it asks for confirmation, then for a rollout
//! plan, carrying where it stands in a signed `requestState`.
//!
//! ```text
//! cargo run --example deploy                      # stdio
//! cargo run --example deploy -- --http 3000       # Streamable HTTP on 127.0.0.1:3000/mcp
//! MCP_REQUEST_STATE_KEY=$(head -c 32 /dev/urandom | base64) cargo run --example deploy -- --state-ttl 300
//! ```
//!
//! With `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes) states survive restarts and verify
//! on every instance sharing the key; without it the server draws a key for its own lifetime.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_server::state::{Continuation, RequestStateSigner, Round, Step};
use mcp_server::{Answer, ElicitForm, FormChoice, Server, tool};
use serde::{Deserialize, Serialize};

/// Where to deploy.
#[derive(Deserialize, schemars::JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
enum Target {
    /// The staging environment.
    Staging,
    /// Production: customer-facing.
    Production,
}

/// Confirm the deploy.
#[derive(ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// How fast to roll out.
#[derive(FormChoice, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Strategy {
    #[choice(title = "All at once")]
    Immediate,
    #[choice(title = "One replica at a time")]
    Rolling,
}

/// How to roll it out.
#[derive(ElicitForm)]
struct Rollout {
    #[form(default = Strategy::Rolling)]
    strategy: Strategy,
    /// How many replicas to run.
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u8,
    /// Why now? Shown in the audit log.
    #[form(max_length = 200)]
    reason: Option<String>,
}

/// Where a deploy conversation stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum DeployFlow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(rollout: Rollout)]
    Configuring { approved_at: u64 },
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Deploy the service to a target, after confirmation and a rollout plan.
#[tool(destructive)]
async fn deploy(
    /// Where to deploy.
    target: Target,
    round: Round<DeployFlow>,
) -> Step<DeployFlow, String> {
    match round.resume() {
        None => round.ask(DeployFlow::Confirming, format!("Deploy to {target:?}?")),
        Some(DeployFlowAnswered::Confirming {
            confirm: Answer::Accepted(Confirm { ok: true }),
        }) => round.ask(
            DeployFlow::Configuring { approved_at: now() },
            "How should it roll out?",
        ),
        Some(DeployFlowAnswered::Confirming { .. }) => Step::done("Deploy cancelled."),
        Some(DeployFlowAnswered::Configuring {
            approved_at,
            rollout: Answer::Accepted(plan),
        }) => {
            let strategy = match plan.strategy {
                Strategy::Immediate => "all at once",
                Strategy::Rolling => "one replica at a time",
            };
            let reason = plan.reason.unwrap_or_else(|| "no reason given".into());
            Step::done(format!(
                "Deployed to {target:?} with {} replicas, {strategy} (approved at {approved_at}; {reason}).",
                plan.replicas
            ))
        }
        Some(DeployFlowAnswered::Configuring { .. }) => Step::done("Deploy cancelled."),
    }
}

/// Command-line settings.
struct Options {
    http: Option<u16>,
    state_ttl: Option<Duration>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        state_ttl: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--http" => {
                options.http = Some(
                    value("--http")?
                        .parse()
                        .map_err(|_| "--http takes a port")?,
                )
            }
            "--state-ttl" => {
                let seconds: u64 = value("--state-ttl")?
                    .parse()
                    .map_err(|_| "--state-ttl takes seconds")?;
                options.state_ttl = Some(Duration::from_secs(seconds));
            }
            other => {
                return Err(format!(
                    "unknown argument {other:?} (expected --http PORT, --state-ttl SECONDS)"
                ));
            }
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let options = options()?;
    let signer = match std::env::var_os("MCP_REQUEST_STATE_KEY") {
        Some(_) => RequestStateSigner::from_env("MCP_REQUEST_STATE_KEY")?,
        None => RequestStateSigner::generate()?,
    };
    let signer = match options.state_ttl {
        Some(ttl) => signer.ttl(ttl),
        None => signer,
    };
    let server = Server::builder()
        .name("deployer")
        .version("1.0.0")
        .request_state_signer(signer)
        .tool(deploy)
        .build()?;
    match options.http {
        Some(port) => server.serve_http(("127.0.0.1", port)).await?,
        None => server.serve_stdio().await?,
    }
    Ok(())
}
