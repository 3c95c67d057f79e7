//! This workspace's SDK (`mcp-server`) serving the `echo` tool and the three-round
//! `flow` tool.
//!
//! HTTP: `Server::http_service()` is an axum `Router` answering at its root, so
//! it is nested at `/mcp` and driven through the same hyper HTTP/1.1 plumbing
//! as the other targets ([`super::spawn_tower_http1`]); its default `HttpConfig`
//! accepts the loopback `Host` the harness sends. The same service serves the 2025-11-25
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

use axum::Router;
use mcp_server::state::{Continuation, Reply, Round, Step};
use mcp_server::{Arguments, ElicitForm, Server, ServerBuilder, ToolRoute, tool};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

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
        let router = Router::new().nest_service("/mcp", echo_server()?.http_service());
        super::spawn_tower_http1(listener, shutdown, router);
        Ok(())
    }

    fn has_flow(&self) -> bool {
        true
    }

    fn has_session(&self) -> bool {
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
        None => round.ask(Flow::AskingName, "Step 1: What is your name?"),
        Some(FlowAnswered::AskingName {
            step1: Reply::Accepted(NameForm { name }),
        }) => round.ask(
            Flow::AskingColor { name },
            "Step 2: What is your favorite color?",
        ),
        Some(FlowAnswered::AskingColor {
            name,
            step2: Reply::Accepted(ColorForm { color }),
        }) => Step::done(format!("Multi-round complete for {name} who likes {color}")),
        Some(_) => Step::done("Multi-round cancelled."),
    }
}

/// Arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, mcp_server::ToolInput)]
pub struct EchoArgs {
    /// Text to send back.
    pub text: String,
}

/// The server with its `echo` and `flow` tools.
pub fn echo_server() -> anyhow::Result<Server> {
    echo_server_with(Server::builder())
}

/// The server with its `echo` and `flow` tools, built from `builder` (with a request-state
/// signer of its own, for instance).
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
        .build()?)
}

/// Serves [`echo_server`] on this process's stdin/stdout until stdin closes.
pub async fn serve_stdio() -> anyhow::Result<()> {
    echo_server()?.serve_stdio().await?;
    Ok(())
}
