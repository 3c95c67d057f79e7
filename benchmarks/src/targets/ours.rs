//! This workspace's SDK (`mcp-server`) serving one `echo` tool.
//!
//! HTTP: `Server::http_service()` is an axum `Router` answering at its root, so
//! it is nested at `/mcp` and driven through the same hyper HTTP/1.1 plumbing
//! as the other targets ([`super::spawn_tower_http1`]); its default `HttpConfig`
//! accepts the loopback `Host` the harness sends. stdio: `Server::serve_stdio`.

use axum::Router;
use mcp_server::{Arguments, Server, ToolRoute};
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

    fn stdio_bin(&self) -> Option<&'static str> {
        Some("ours_stdio_server")
    }
}

/// Arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema, mcp_server::ToolInput)]
pub struct EchoArgs {
    /// Text to send back.
    pub text: String,
}

/// The server with its one `echo` tool.
pub fn echo_server() -> anyhow::Result<Server> {
    Ok(Server::builder()
        .name("mcp-benchmarks-echo")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(
            ToolRoute::new(
                "echo",
                |Arguments(EchoArgs { text }): Arguments<EchoArgs>| async move { text },
            )
            .description("Echo the text back"),
        )
        .build()?)
}

/// Serves [`echo_server`] on this process's stdin/stdout until stdin closes.
pub async fn serve_stdio() -> anyhow::Result<()> {
    echo_server()?.serve_stdio().await?;
    Ok(())
}
