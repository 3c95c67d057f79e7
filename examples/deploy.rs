//! The deploy tool of the multi-round guide. It asks for confirmation; then, in one round,
//! for a rollout plan (a derived form) and a region (options computed for this call); then,
//! for production, sends the user to the change-management page to approve (a URL-mode
//! question). Where it stands travels in a signed `requestState`.
//!
//! ```text
//! cargo run --example deploy                      # stdio
//! cargo run --example deploy -- --http 3000       # Streamable HTTP on 127.0.0.1:3000/mcp
//! MCP_REQUEST_STATE_KEY=$(head -c 32 /dev/urandom | base64) cargo run --example deploy -- --state-ttl 300
//! ```
//!
//! With `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes) states survive restarts and verify
//! on every instance sharing the key; without it the server draws a key for its own lifetime
//! (and warns, when serving HTTP, that another instance could not resume its flows).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_server::state::{
    Ask, Continuation, OneOf, QuestionKind, Reply, RequestStateSigner, Round, Step, UrlVisit,
};
use mcp_server::{ElicitForm, FormChoice, McpError, Server, tool};
use serde::{Deserialize, Serialize};

/// Where to deploy.
#[derive(Deserialize, schemars::JsonSchema, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Target {
    /// The staging environment.
    Staging,
    /// Production: customer-facing, approved in the change-management page.
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
    /// Two questions in one round: a derived form, and options computed for this call.
    #[awaits(rollout: Rollout, region: OneOf<String>)]
    Configuring { approved_at: u64 },
    /// Production only: approval in the change-management page (URL mode).
    #[awaits(approval: UrlVisit)]
    Approving { plan: String, change: String },
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The regions `target` runs in, with their labels: a stand-in for an inventory query, so
/// the options are computed on each call.
fn regions(target: Target) -> Vec<(String, String)> {
    let all = [
        ("eu-west-1", "Europe (Ireland)"),
        ("us-east-1", "US East (Virginia)"),
        ("ap-south-1", "Asia Pacific (Mumbai)"),
    ];
    let count = match target {
        Target::Staging => 1,
        Target::Production => all.len(),
    };
    all.iter()
        .take(count)
        .map(|(id, label)| ((*id).to_owned(), (*label).to_owned()))
        .collect()
}

/// Opens a change request for `plan` and returns its id: a stand-in for the change-management
/// system (here a side effect in the log). The user approves it there.
fn open_change_request(plan: &str, at: u64) -> String {
    let change = format!("CHG-{at}");
    eprintln!("opened change request {change}: deploy {plan}");
    change
}

/// Whether the change was approved: a stand-in for asking the change-management system.
/// A URL-mode answer only says the user consented to go to the page; the outcome is checked
/// out of band, keyed by the change id the state carries.
fn change_approved(_change: &str) -> bool {
    true
}

/// Deploy the service to a target: confirm, plan the rollout and pick a region, and for
/// production approve the change in the change-management page.
#[tool(destructive)]
async fn deploy(
    /// Where to deploy.
    target: Target,
    round: Round<DeployFlow>,
) -> Step<DeployFlow, String> {
    match round.resume() {
        None => round.ask(DeployFlow::Confirming, format!("Deploy to {target:?}?")),
        Some(DeployFlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok: true }),
        }) => round.ask(
            DeployFlow::Configuring { approved_at: now() },
            Ask::message("How should it roll out?")
                .with("region", OneOf::titled("Which region?", regions(target))),
        ),
        Some(DeployFlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok: false }) | Reply::Declined,
        }) => Step::done("Deploy declined."),
        Some(DeployFlowAnswered::Confirming {
            confirm: Reply::Cancelled,
        }) => Step::done("Deploy cancelled."),
        Some(DeployFlowAnswered::Configuring {
            approved_at,
            rollout: Reply::Accepted(plan),
            region: Reply::Accepted(OneOf(region)),
        }) => {
            let strategy = match plan.strategy {
                Strategy::Immediate => "all at once",
                Strategy::Rolling => "one replica at a time",
            };
            let reason = plan.reason.unwrap_or_else(|| "no reason given".into());
            let plan = format!(
                "to {target:?} in {region} with {} replicas, {strategy} (approved at {approved_at}; {reason})",
                plan.replicas
            );
            if target == Target::Staging {
                return Step::done(format!("Deployed {plan}."));
            }
            // Check, then act, then ask: a client that cannot open the approval page fails
            // before a change request is opened for nothing.
            if !round.can_ask::<UrlVisit>() {
                return Step::fail(McpError::missing_client_capability(
                    QuestionKind::Url.capability(),
                ));
            }
            let change = open_change_request(&plan, approved_at);
            let url = format!("https://changes.example.com/requests/{change}");
            round.ask(
                DeployFlow::Approving { plan, change },
                UrlVisit::prompt("Approve the deploy in the change-management page.", url),
            )
        }
        Some(DeployFlowAnswered::Configuring { .. }) => Step::done("Deploy cancelled."),
        Some(DeployFlowAnswered::Approving {
            plan,
            change,
            approval: Reply::Accepted(UrlVisit),
        }) if change_approved(&change) => {
            Step::done(format!("Deployed {plan}, change {change} approved."))
        }
        Some(DeployFlowAnswered::Approving { change, .. }) => {
            Step::done(format!("Deploy not approved (change {change})."))
        }
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
        Some(ttl) => signer.ttl(ttl)?,
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
