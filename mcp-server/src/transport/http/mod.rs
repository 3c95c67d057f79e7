//! The Streamable HTTP transport (2026-07-28): one POST endpoint answering JSON, or an SSE
//! stream per request when the handler sends notifications (progress, logs, listen).
//!
//! The 2025-11-25 era is served beside it: `initialize` (without a modern
//! `MCP-Protocol-Version` header or `_meta`) opens a session whose id comes back in
//! `Mcp-Session-Id`; later requests name it (missing: 400, unknown or expired: 404, for
//! requests, responses and notifications alike), GET with it opens the session's notification
//! stream and DELETE ends it. Sessions are bounded in all ([`HttpConfig::max_sessions`]) and
//! per caller ([`HttpConfig::max_sessions_per_caller`]), give way to new ones once idle
//! ([`HttpConfig::session_min_idle`]) and expire ([`HttpConfig::session_idle_timeout`]);
//! behind authentication, a session belongs to the subject that opened it. A session's SSE
//! streams are resumable (GET with `Last-Event-ID`), and a handler may close its stream
//! mid-call for the client to poll ([`HttpConfig::sse_retry`]); what is kept for replay is
//! bounded in bytes per stream, per session and for the endpoint
//! ([`HttpConfig::replay_buffer_bytes`], [`HttpConfig::replay_bytes_per_session`],
//! [`HttpConfig::replay_bytes_total`]; see `resume`).
//!
//! - [`Server::http_service`] gives an axum [`Router`] to nest inside your own application;
//! - [`Server::serve_http`] binds an address and serves `/mcp` until SIGTERM or Ctrl-C (then
//!   shuts down gracefully: see [`Server::serve_http_on`]), with a time
//!   limit on each request's head and body and a bound on open connections
//!   ([`HttpConfig::request_head_timeout`], [`HttpConfig::body_timeout`],
//!   [`HttpConfig::max_connections`]; see `serve`).
//!
//! Every request is checked in this order: method (405), Host/Origin (403), the caller's share
//! of requests in flight (429, [`HttpConfig::max_in_flight_per_caller`]), Content-Type
//! (415), Accept (406), body size (413) and time (408), JSON-RPC shape (400), `_meta` (400,
//! `-32602`), `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers and, on `tools/call`,
//! the `Mcp-Param-*` headers of the arguments the tool mirrors (400, `-32020`), protocol
//! version (400, `-32022`), method (404, `-32601`). With
//! [`HttpConfig::authenticate`], authentication (401) comes first: see [`auth`].

pub mod auth;
mod config;
mod directory;
mod endpoint;
#[cfg(feature = "http2")]
mod h2_limits;
mod in_flight;
mod mount;
mod negotiate;
mod origin;
mod resume;
mod serve;
pub mod session_store;
mod sessions;
mod shared;
mod status;
mod stream;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::sync::Arc;

use axum::Router;
use tokio::net::{TcpListener, ToSocketAddrs};
use tower::util::BoxCloneSyncService;

use crate::Server;
use crate::transport::Signals;

pub use config::{HostPolicy, HttpConfig};

impl Server {
    /// An axum router serving this server at its root path, with the default
    /// [`HttpConfig`] (loopback Host/Origin only). Nest it where you like:
    ///
    /// ```
    /// use axum::{Router, routing::get};
    /// use typemcp_server::{Server, ToolRoute};
    ///
    /// let mcp = Server::builder().tool(ToolRoute::new("ping", || async { "pong" }).description("Pings.")).build().unwrap();
    /// let app: Router = Router::new()
    ///     .nest_service("/mcp", mcp.http_service())
    ///     .route("/health", get(|| async { "ok" }));
    /// # let _ = app;
    /// ```
    pub fn http_service(&self) -> Router {
        self.http_service_with(HttpConfig::default())
    }

    /// Like [`Server::http_service`], with explicit settings.
    pub fn http_service_with(&self, config: HttpConfig) -> Router {
        Router::new().route_service("/", self.endpoint_service(config))
    }

    /// The endpoint as one service, behind the authentication layer when `config` has one.
    fn endpoint_service(
        &self,
        config: HttpConfig,
    ) -> BoxCloneSyncService<axum::extract::Request, axum::response::Response, Infallible> {
        if let Some(signer) = &self.config().state_signer {
            signer.warn_if_process_key();
        }
        let auth = config.auth.as_ref().map(|auth| auth.layer.clone());
        let endpoint =
            endpoint::EndpointService(Arc::new(endpoint::Endpoint::new(self.clone(), config)));
        match auth {
            Some(layer) => BoxCloneSyncService::new(tower::Layer::layer(&layer, endpoint)),
            None => BoxCloneSyncService::new(endpoint),
        }
    }

    /// Serves `/mcp` on `addr` until SIGTERM or Ctrl-C (SIGINT), then shuts down
    /// gracefully (see [`Server::serve_http_on`]) and returns `Ok`. Bind to a loopback
    /// address for a local server.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<()> {
        let signals = Signals::install().first(self.clone());
        let listener = TcpListener::bind(addr).await?;
        self.serve_http_on(listener, HttpConfig::default(), signals)
            .await
    }

    /// Serves `/mcp` on an already bound listener until `shutdown` resolves, then shuts
    /// down gracefully:
    ///
    /// 1. new requests are answered 503 with a JSON-RPC error (`Service Unavailable: the
    ///    server is shutting down`), while the client's answers to pushed requests and its
    ///    cancellations are still taken; open `subscriptions/listen` streams end;
    /// 2. in-flight calls, pushed rounds of 2025-11-25 sessions included, have
    ///    [`ServerBuilder::shutdown_grace`](crate::ServerBuilder::shutdown_grace) (default
    ///    10 s) to finish;
    /// 3. the server stops ([`Server::shutdown`]: what is left is answered with an error and
    ///    its handler dropped), sessions end, the listener closes, connections finish what
    ///    they were writing (1 s at most) and the function returns `Ok`.
    ///
    /// Pass your own signal here (a channel, a `CancellationToken`); [`Server::serve_http`]
    /// passes SIGTERM and Ctrl-C.
    pub async fn serve_http_on(
        self,
        listener: TcpListener,
        config: HttpConfig,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        if let Ok(addr) = listener.local_addr() {
            tracing::info!(%addr, "serving MCP over Streamable HTTP at /mcp");
        }
        let metadata = config.auth.as_ref().map(|auth| auth.metadata.router());
        let limits = config.clone();
        let mount = mount::Mount::new(self.endpoint_service(config), metadata.unwrap_or_default());
        let server = self.clone();
        let grace = self.config().shutdown_grace;
        serve::serve(listener, mount, &limits, async move {
            shutdown.await;
            tracing::info!(
                in_flight = server.lifecycle().in_flight(),
                "shutting down: refusing new requests, waiting for those in flight"
            );
            server.lifecycle().finish(grace).await;
        })
        .await
    }
}
