//! rmcp 3.1.4 (the official Rust SDK) serving one `echo` tool.
//!
//! HTTP: rmcp's `StreamableHttpService` with
//! * `legacy_session_mode = false` — stateless: no `initialize`, no
//!   `Mcp-Session-Id`; in 3.1.4 a request whose `_meta` carries
//!   `io.modelcontextprotocol/protocolVersion` (with the matching
//!   `MCP-Protocol-Version` header) is served per request anyway, but turning
//!   sessions off makes every request take that path;
//! * `json_response = true` — the reply to a terminal result is one
//!   `application/json` body instead of a `text/event-stream`;
//! * `sse_keep_alive = None` — no keep-alive pings on (unused) streams;
//! * `NeverSessionManager` — no session store at all;
//! * the default `allowed_hosts` (loopback names) — the harness sends
//!   `Host: 127.0.0.1:<port>`, which passes rmcp's DNS-rebinding check.
//!
//! The request is accepted as specified; rmcp additionally checks that the
//! `Mcp-Method`/`Mcp-Name` headers match the body (SEP-2243), which they do.
//! The service runs on the same hyper HTTP/1.1 plumbing as the ceiling
//! ([`super::spawn_http1`]).
//!
//! stdio: the `rmcp_stdio_server` bin runs [`serve_stdio`], rmcp's stdio
//! transport. rmcp 3.1.4 serves a first request that carries the `2026-07-28`
//! `_meta` without an `initialize` handshake, then keeps serving the stream.
//!
//! The tool router is built once and shared through an `Arc`, so rmcp's
//! per-request service factory costs one reference-count increment (the
//! `#[tool_handler]` default would rebuild the router for every call).

use std::convert::Infallible;
use std::sync::Arc;

use hyper::service::service_fn;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerInfo};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{Target, TargetKind};

/// The rmcp target.
#[derive(Debug, Clone, Copy)]
pub struct Rmcp;

impl Target for Rmcp {
    fn name(&self) -> &'static str {
        "rmcp"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Rmcp
    }

    fn has_http(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        let service = http_service(shutdown.child_token());
        super::spawn_http1(
            listener,
            shutdown,
            service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            }),
        );
        Ok(())
    }

    fn stdio_bin(&self) -> Option<&'static str> {
        Some("rmcp_stdio_server")
    }
}

/// Arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// Text to send back.
    pub text: String,
}

/// rmcp server exposing the `echo` tool.
#[derive(Debug, Clone)]
pub struct EchoServer {
    tool_router: Arc<ToolRouter<Self>>,
}

impl Default for EchoServer {
    fn default() -> Self {
        Self {
            tool_router: Arc::new(Self::tool_router()),
        }
    }
}

#[tool_router]
impl EchoServer {
    /// Returns its `text` argument.
    #[tool(description = "Echo the text back")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for EchoServer {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The stateless, JSON-response Streamable HTTP service described in the module docs.
pub fn http_service(
    cancellation: CancellationToken,
) -> StreamableHttpService<EchoServer, NeverSessionManager> {
    let server = EchoServer::default();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_cancellation_token(cancellation);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Serves [`EchoServer`] on this process's stdin/stdout until stdin closes.
pub async fn serve_stdio() -> anyhow::Result<()> {
    let running = EchoServer::default()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("rmcp stdio server failed to start: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| anyhow::anyhow!("rmcp stdio server task failed: {e}"))?;
    Ok(())
}
