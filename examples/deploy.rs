//! The deploy tool of the multi-round guide, and `list_regions`: the regions a target can be
//! deployed to, a list as structured output (see "Structured output in each era" in the tool
//! guide). The deploy asks for confirmation; then, in one round, for a rollout plan (a
//! derived form) and a region (options computed for this call); then, for production, sends
//! the user to the change-management page to approve (a URL-mode question). Where it stands travels in a `requestState`, signed (or sealed) and good for
//! one use: the tool is destructive, so a finished flow cannot be replayed and an earlier
//! round's state cannot rewind it.
//!
//! ```text
//! cargo run --example deploy                      # stdio
//! cargo run --example deploy -- --http 3000       # Streamable HTTP on 127.0.0.1:3000/mcp
//! MCP_REQUEST_STATE_KEY=$(head -c 32 /dev/urandom | base64) cargo run --example deploy -- --state-ttl 300
//! # Two instances behind a load balancer: one key ring, single use shared through Redis.
//! export MCP_REQUEST_STATE_KEYS="k2:$(head -c 32 /dev/urandom | base64),k1:$(head -c 32 /dev/urandom | base64)"
//! cargo run --example deploy -- --http 3000 --redis redis://127.0.0.1:6379/ --sealed
//! cargo run --example deploy -- --http 3001 --redis redis://127.0.0.1:6379/ --sealed
//! # Bearer JWTs: states are bound to the token's subject.
//! cargo run --example deploy -- --http 3000 --jwks jwks.json \
//!     --issuer https://auth.example.com --audience http://127.0.0.1:3000/mcp
//! ```
//!
//! Flags:
//!
//! - `--http PORT`: serve Streamable HTTP on `127.0.0.1:PORT/mcp` (without it, stdio).
//! - `--state-ttl SECONDS`: how long a state stays valid (default 10 minutes).
//! - `--redis URL`: record consumed states in the Redis at `URL` (`redis://host:port/`), so
//!   that every instance using it refuses a state consumed on any of them, and keep the
//!   2025-11-25 sessions there, so that any instance serves them (a client that opens with
//!   `initialize`, behind a balancer without affinity; see
//!   `typemcp_server::transport::http::session_store`). Without it, both are kept in this
//!   process's memory. A Redis that cannot be reached refuses the request (fail closed).
//! - `--sealed`: seal states (encrypted, XChaCha20-Poly1305): the client cannot read them.
//!   Without it, states are signed, and their payload is readable base64 JSON.
//! - `--jwks FILE --issuer ISS --audience AUD` (with `--http`, all three together): accept
//!   only bearer JWTs (RS256 or ES256, keys from the JWKS document `FILE`) issued by `ISS`
//!   for `AUD`. A missing, expired or wrongly signed token gets 401 with
//!   `WWW-Authenticate`; each state is bound to the token's subject, so one caller cannot
//!   resume another's flow. `AUD` is also the resource of the protected-resource metadata,
//!   served at `/.well-known/oauth-protected-resource/<path of AUD>`: use the URL clients
//!   connect to.
//!
//! Keys: with `MCP_REQUEST_STATE_KEYS` (a key ring: `ID:BASE64` entries separated by
//! commas, at least 32 bytes each, optionally `ID:BASE64:RETIRE_UNIX_SECONDS`; the first
//! mints, every one verifies), states verify on every instance sharing the ring, and a
//! rotation loses no state in flight: add the new key after the old one on every instance,
//! then put it first, then drop the old one after a TTL (see `typemcp_server::state::threat_model`).
//! Otherwise, with `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes), states survive
//! restarts and verify on every instance sharing the key. Without either, the server draws
//! a key for its own lifetime (and warns, when serving HTTP, that another instance could not
//! resume its flows).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use typemcp_server::state::single_use::{MemoryStore, RedisStore};
use typemcp_server::state::{
    Continuation, OneOf, QuestionKind, Reply, RequestStateSigner, Round, Step, UrlVisit,
};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::transport::http::auth::{JwtAuthenticator, ProtectedResourceMetadata};
use typemcp_server::transport::http::session_store::RedisSessionStore;
use typemcp_server::{ElicitForm, FormChoice, Json, McpError, Server, tool};

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

/// A region a target runs in.
#[derive(Serialize, schemars::JsonSchema)]
struct Region {
    /// The region's id, as the deploy asks for it.
    id: String,
    /// Its name, for people.
    label: String,
}

// Structured output that is a list, not an object: 2026-07-28 clients get it as
// `structuredContent` with its `outputSchema`; 2025-11-25 clients, whose era allows only
// objects there, get the tool without `outputSchema` and the same JSON as text.
/// The regions a target can be deployed to, with their names.
#[tool(read_only)]
async fn list_regions(target: Target) -> Json<Vec<Region>> {
    let regions = regions(target)
        .into_iter()
        .map(|(id, label)| Region { id, label });
    Json(regions.collect())
}

/// Opens a change request for `plan` and returns its id: a stand-in for the change-management
/// system (here a side effect in the log). The user approves it there.
fn open_change_request(plan: &str, at: u64) -> String {
    let change = format!("CHG-{at}");
    eprintln!("opened change request {change}: deploy {plan}");
    change
}

/// Rolls the deploy out: a stand-in for the deployment system (here a side effect in the
/// log, one line per deploy that runs).
fn roll_out(plan: &str) {
    eprintln!("rolling out: deploy {plan}");
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
        None => round.ask(DeployFlowAsking::Confirming {
            confirm: format!("Deploy to {target:?}?").into(),
        }),
        Some(DeployFlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok: true }),
        }) => round.ask(DeployFlowAsking::Configuring {
            approved_at: now(),
            rollout: "How should it roll out?".into(),
            region: OneOf::titled("Which region?", regions(target)),
        }),
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
                roll_out(&plan);
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
            round.ask(DeployFlowAsking::Approving {
                plan,
                change,
                approval: UrlVisit::prompt(
                    "Approve the deploy in the change-management page.",
                    url,
                ),
            })
        }
        Some(DeployFlowAnswered::Configuring { .. }) => Step::done("Deploy cancelled."),
        Some(DeployFlowAnswered::Approving {
            plan,
            change,
            approval: Reply::Accepted(UrlVisit),
        }) if change_approved(&change) => {
            roll_out(&plan);
            Step::done(format!("Deployed {plan}, change {change} approved."))
        }
        Some(DeployFlowAnswered::Approving { change, .. }) => {
            Step::done(format!("Deploy not approved (change {change})."))
        }
    }
}

/// The flags, as the unknown-flag error lists them.
const USAGE: &str = "--http PORT, --state-ttl SECONDS, --redis URL, --sealed, \
                     --jwks FILE --issuer ISS --audience AUD";

/// Bearer JWT settings: `--jwks FILE --issuer ISS --audience AUD`.
struct JwtOptions {
    jwks: PathBuf,
    issuer: String,
    audience: String,
}

/// Command-line settings.
#[derive(Default)]
struct Options {
    http: Option<u16>,
    state_ttl: Option<Duration>,
    redis: Option<String>,
    sealed: bool,
    jwt: Option<JwtOptions>,
}

fn options() -> Result<Options, String> {
    let mut options = Options::default();
    let (mut jwks, mut issuer, mut audience) = (None, None, None);
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
            "--redis" => options.redis = Some(value("--redis")?),
            "--sealed" => options.sealed = true,
            "--jwks" => jwks = Some(PathBuf::from(value("--jwks")?)),
            "--issuer" => issuer = Some(value("--issuer")?),
            "--audience" => audience = Some(value("--audience")?),
            other => {
                return Err(format!("unknown argument {other:?} (expected {USAGE})"));
            }
        }
    }
    options.jwt = match (jwks, issuer, audience) {
        (None, None, None) => None,
        (Some(jwks), Some(issuer), Some(audience)) => Some(JwtOptions {
            jwks,
            issuer,
            audience,
        }),
        _ => return Err("--jwks, --issuer and --audience go together".into()),
    };
    if options.jwt.is_some() && options.http.is_none() {
        return Err("--jwks authenticates HTTP requests: it needs --http PORT".into());
    }
    Ok(options)
}

/// The request-state signer: the key ring of `MCP_REQUEST_STATE_KEYS`, else the single key of
/// `MCP_REQUEST_STATE_KEY`, else a key drawn for this process; sealed with `--sealed`; each
/// state consumed once, in Redis with `--redis`, else in memory.
async fn signer(options: &Options) -> Result<RequestStateSigner, Box<dyn std::error::Error>> {
    let signer = if std::env::var_os("MCP_REQUEST_STATE_KEYS").is_some() {
        RequestStateSigner::from_env_ring("MCP_REQUEST_STATE_KEYS")?
    } else if std::env::var_os("MCP_REQUEST_STATE_KEY").is_some() {
        RequestStateSigner::from_env("MCP_REQUEST_STATE_KEY")?
    } else {
        RequestStateSigner::generate()?
    };
    let signer = match options.state_ttl {
        Some(ttl) => signer.ttl(ttl)?,
        None => signer,
    };
    let signer = if options.sealed {
        signer.sealed()
    } else {
        signer
    };
    Ok(match &options.redis {
        // The URL may hold a password: it is not printed.
        Some(url) => signer.single_use(RedisStore::connect(url).await?),
        None => signer.single_use(MemoryStore::new()),
    })
}

/// The HTTP settings: sessions kept in Redis with `--redis`; bearer JWTs and the
/// protected-resource metadata with `--jwks`.
async fn http_config(options: &Options) -> Result<HttpConfig, Box<dyn std::error::Error>> {
    let config = match &options.redis {
        Some(url) => HttpConfig::default().session_store(RedisSessionStore::connect(url).await?),
        None => HttpConfig::default(),
    };
    let Some(jwt) = &options.jwt else {
        return Ok(config);
    };
    let authenticator = JwtAuthenticator::builder(&jwt.issuer, &jwt.audience)
        .jwks_file(&jwt.jwks)
        .build()?;
    let metadata =
        ProtectedResourceMetadata::new(&jwt.audience, &jwt.issuer)?.resource_name("Deployments");
    Ok(config.authenticate(authenticator, metadata))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr (stdout carries the protocol over stdio); `RUST_LOG=typemcp_server=debug`
    // shows every request served.
    typemcp_server::logging::init();
    let options = options()?;
    let server = Server::builder()
        .name("deployer")
        .version("1.0.0")
        .request_state_signer(signer(&options).await?)
        .tool(deploy)
        .tool(list_regions)
        .build()?;
    match options.http {
        Some(port) => {
            let config = http_config(&options).await?;
            let listener = TcpListener::bind(("127.0.0.1", port)).await?;
            server
                .serve_http_on(
                    listener,
                    config,
                    typemcp_server::transport::shutdown_signal(),
                )
                .await?;
        }
        None => server.serve_stdio().await?,
    }
    Ok(())
}
