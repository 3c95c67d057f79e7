//! This workspace's SDK (`typemcp-server`) serving the `echo` tool, the three-round `flow` tool
//! and `task_echo`, the `echo` tool run as a task.
//!
//! HTTP: `Server::serve_http_on` on the harness's listener, what `Server::serve_http` runs
//! (the server's own hyper HTTP/1.1 connection driver, `/mcp` served with no router in
//! between); its default `HttpConfig` accepts the loopback `Host` the harness sends. The same service serves the 2025-11-25
//! session scenario: requests are routed to an era by what they carry, and `initialize`
//! opens a session in the endpoint's table (default limits). stdio: `Server::serve_stdio`.
//!
//! `flow` is the typed multi-round API as an application would write it (the same shape as
//! `test_input_required_result_multi_round` of the conformance server): a state enum
//! deriving `Continuation`, a `Round<Flow>` extractor, `Step` results. Every round with a
//! state costs the server: verifying the echoed token under the request's binding
//! (canonical-JSON + SHA-256 digest of the arguments), deserializing the envelope, checking
//! the answer against the form's compiled JSON Schema, then serializing, signing and
//! re-verifying the next state. The server's signer is the default one (a key generated at
//! start-up).
//!
//! `task_echo` is `echo` registered with `.task()`, whose handler yields once before it
//! answers: called by a client that declares the tasks extension, it becomes a task at that
//! first wait (the default grace of zero) and completes in the background. Tasks live in the
//! default in-memory store, with a TTL of [`TASK_TTL`] and room for [`TASK_CAPACITY`] live
//! tasks: the load creates thousands a second, which the defaults (one hour, 10 000 tasks)
//! would turn into a full store, and every later call into an error, within seconds.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::tasks::MemoryTaskStore;
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{Arguments, ElicitForm, Server, ServerBuilder, ToolRoute, tool};

use super::{Target, TargetKind};

/// The target for this workspace's SDK.
#[derive(Debug, Clone, Copy)]
pub struct Ours;

impl Target for Ours {
    fn name(&self) -> &'static str {
        "ours"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Ours
    }

    fn has_http(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        serve_http(echo_server()?, HttpConfig::default(), listener, shutdown);
        Ok(())
    }

    fn has_flow(&self) -> bool {
        true
    }

    fn has_session(&self) -> bool {
        true
    }

    fn has_tasks(&self) -> bool {
        true
    }

    fn stdio_bin(&self) -> Option<&'static str> {
        Some("ours_stdio_server")
    }
}

/// The user's name.
#[derive(Debug, ElicitForm)]
struct NameForm {
    /// Your name.
    name: String,
}

/// A favourite colour.
#[derive(Debug, ElicitForm)]
struct ColorForm {
    /// Your favourite colour.
    color: String,
}

/// Where a `flow` call stands: two questions, one after the other; the name travels in
/// the state. (Private: the twin enum `FlowAnswered` that `Continuation` derives carries no
/// documentation, which `missing_docs` would flag on a public enum.)
#[derive(Debug, Clone, Serialize, Deserialize, Continuation)]
enum Flow {
    /// Waiting for the name.
    #[awaits(step1: NameForm)]
    AskingName,
    /// Waiting for the colour.
    #[awaits(step2: ColorForm)]
    AskingColor {
        /// The name given in round 2.
        name: String,
    },
}

/// Asks for a name, then a colour, then answers.
#[tool]
async fn flow(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::AskingName {
            step1: "Step 1: What is your name?".into(),
        }),
        Some(FlowAnswered::AskingName {
            step1: Reply::Accepted(NameForm { name }),
        }) => round.ask(FlowAsking::AskingColor {
            name,
            step2: "Step 2: What is your favorite color?".into(),
        }),
        Some(FlowAnswered::AskingColor {
            name,
            step2: Reply::Accepted(ColorForm { color }),
        }) => Step::done(format!("Multi-round complete for {name} who likes {color}")),
        Some(_) => Step::done("Multi-round cancelled."),
    }
}

/// Arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, typemcp_server::ToolInput)]
pub struct EchoArgs {
    /// Text to send back.
    pub text: String,
}

/// How long the server keeps a task (its `ttlMs`): the harness polls each task to completion
/// within milliseconds and never reads it again.
pub const TASK_TTL: Duration = Duration::from_secs(5);

/// How many live tasks the server's store holds: at [`TASK_TTL`], room for 40 000 tasks a
/// second, far more than a 2-core machine creates.
pub const TASK_CAPACITY: usize = 200_000;

/// The server with its `echo`, `flow` and `task_echo` tools.
pub fn echo_server() -> anyhow::Result<Server> {
    echo_server_with(Server::builder())
}

/// The server with its `echo`, `flow` and `task_echo` tools, built from `builder` (with a
/// request-state signer of its own, for instance); its task store and TTL are set here.
pub fn echo_server_with(builder: ServerBuilder) -> anyhow::Result<Server> {
    Ok(builder
        .name("mcp-benchmarks-echo")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(
            ToolRoute::new(
                "echo",
                |Arguments(EchoArgs { text }): Arguments<EchoArgs>| async move { text },
            )
            .description("Echo the text back"),
        )
        .tool(flow)
        .tool(
            ToolRoute::new(
                "task_echo",
                |Arguments(EchoArgs { text }): Arguments<EchoArgs>| async move {
                    tokio::task::yield_now().await;
                    text
                },
            )
            .description("Echo the text back, as a task for clients that declare the extension")
            .task(),
        )
        .task_store(MemoryTaskStore::with_capacity(TASK_CAPACITY))
        .task_ttl(TASK_TTL)
        .build()?)
}

/// Serves `server` with `config` on `listener` until `shutdown`: what `Server::serve_http`
/// runs (the server's own connection driver, `/mcp` served with no router in between), on
/// the harness's listener. Called from inside the servers' runtime.
pub(super) fn serve_http(
    server: Server,
    config: HttpConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) {
    let stopped = async move { shutdown.cancelled().await };
    tokio::spawn(server.serve_http_on(listener, config, stopped));
}

/// Serves [`echo_server`] on this process's stdin/stdout until stdin closes.
pub async fn serve_stdio() -> anyhow::Result<()> {
    echo_server()?.serve_stdio().await?;
    Ok(())
}
