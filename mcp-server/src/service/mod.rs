//! The MCP service: one transport-agnostic [`tower::Service`] that every transport (stdio,
//! Streamable HTTP, in-process) hands its decoded requests to.
//!
//! A transport reads a message, has its era decided and checked (2026-07-28, or an open
//! 2025-11-25 session: the dispatcher's era module, the same for every transport), and
//! builds an [`McpRequest`]: plain data, the JSON-RPC request, its era and what the
//! transport knows of the caller (its [`TransportInfo`](crate::TransportInfo), the
//! authenticated identity). [`McpService`], which holds the server, serves it (method
//! routing, the multi-round guard, handlers) and answers an [`McpResponse`]: the serialized
//! JSON-RPC response. The user's layers are boxed once, when the server is built, and
//! cloned without a lock for each request. Notifications and, on an
//! older session, the server's own requests to the client go out through the request's stream
//! while it runs.
//!
//! Because the boundary is an ordinary `tower::Service`, ordinary tower layers apply to
//! every transport at once: register them with [`ServerBuilder::layer`](crate::ServerBuilder::layer).
//! Timeouts, concurrency limits, tracing, metrics and per-tool authorization can be written
//! once, outside the handlers. A layer reads the method and tool name from the request
//! ([`McpRequest::method`], [`McpRequest::tool_name`]) and may answer by itself
//! ([`McpResponse::error`]).
//!
//! An error returned by a layer (such as `tower::timeout::error::Elapsed`) never reaches the
//! transport as a failure: it becomes a JSON-RPC error `-32603` (internal error) whose message
//! names the cause, e.g. `Internal error: request timed out`, and the server keeps serving.
//! MCP defines no dedicated code for a timed-out or refused request. A layer that panics is
//! answered the same way.
//!
//! Every request passes through the service, `initialize` included: a layer can refuse to
//! open a 2025-11-25 session (an authentication layer, say), and the session an `initialize`
//! opens travels back in its [`McpResponse`] to the transport that keeps it.
//!
//! Messages that are not requests do not pass through the layers: `notifications/initialized`
//! and `notifications/cancelled`, and the client's answers to the server's own requests (the
//! elicitations pushed to a 2025-11-25 client). The transport hands them straight to the
//! session they belong to. This is deliberate: a handler waiting for the client's answer
//! holds its place in every layer around it, so a concurrency limit (or a rate limit) that
//! also held back the answer would wait on itself forever. A cancellation, likewise, must
//! reach a request however busy the server is.
//!
//! # The span of each request
//!
//! Every request, of every transport, is served in a `debug` span of target
//! `typemcp_server::request` named `mcp.request`, around the layers, so their spans and the
//! handler's nest in it. Its fields follow the OpenTelemetry semantic conventions for MCP
//! (`gen-ai/mcp.md`, status development; an OpenTelemetry layer such as
//! `tracing-opentelemetry` reads `otel.name` and `otel.kind`):
//!
//! | field | value |
//! |---|---|
//! | `otel.name` | `{mcp.method.name} {target}`, the target being the tool or prompt name (e.g. `tools/call add`) |
//! | `otel.kind` | `server` |
//! | `mcp.method.name` | the method, e.g. `tools/call` |
//! | `mcp.protocol.version` | the revision it is served under |
//! | `mcp.session.id` | on a 2025-11-25 HTTP session: the first 16 hex digits of the SHA-256 of its id (the id itself is a bearer credential) |
//! | `jsonrpc.request.id`, `jsonrpc.protocol.version` | the request's id, `2.0` |
//! | `network.transport` | `pipe` (stdio) or `tcp` (HTTP); absent in process |
//! | `gen_ai.operation.name`, `gen_ai.tool.name` | `execute_tool` and the tool, for `tools/call` |
//! | `gen_ai.prompt.name` | the prompt, for `prompts/get` |
//! | `error.type`, `rpc.response.status_code` | the JSON-RPC error code, when the answer is an error |
//!
//! When the request is answered, one `debug` event in the span gives the outcome (`ok`,
//! `error -32602`, `cancelled`...) and the duration, so `RUST_LOG=debug` prints one line per
//! request. No argument, answer, result, `requestState` or token is ever a field, nor a
//! resource's URI (it may carry its template's arguments). With the target disabled the span
//! costs one check of the level.

mod boxed;
mod request;
mod span;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::future::Either;

pub use crate::dispatch::McpResponse;
pub use boxed::BoxMcpService;
pub use request::McpRequest;

use crate::server::WeakServer;

/// The error type layers may return; see the module documentation for how it is answered.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The innermost MCP service of a server: serves one request of either era, never fails.
///
/// [`ServerBuilder::layer`](crate::ServerBuilder::layer) wraps the server's own around your
/// layers; make one with [`McpService::new`] to build a stack by hand (in a test, say).
///
/// ```
/// use typemcp_server::Server;
/// use typemcp_server::service::{McpRequest, McpResponse, McpService};
///
/// fn assert_service<S: tower::Service<McpRequest, Response = McpResponse>>(_: S) {}
/// let server = Server::builder().build().unwrap();
/// assert_service(McpService::new(&server));
/// ```
#[derive(Debug, Clone)]
pub struct McpService {
    server: Held,
}

/// How the service holds its server: a hand-built stack keeps it alive; the stack a server
/// keeps itself holds it weakly, since the server holds the stack (no cycle keeps a
/// dropped server alive).
#[derive(Debug, Clone)]
enum Held {
    Strong(crate::Server),
    Weak(WeakServer),
}

impl McpService {
    /// The service that serves `server`'s requests.
    pub fn new(server: &crate::Server) -> Self {
        Self {
            server: Held::Strong(server.clone()),
        }
    }

    /// The innermost service of the stack `server` keeps.
    pub(crate) fn innermost(server: WeakServer) -> Self {
        Self {
            server: Held::Weak(server),
        }
    }
}

impl tower::Service<McpRequest> for McpService {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let server = match &self.server {
            Held::Strong(server) => Some(server.clone()),
            Held::Weak(server) => server.upgrade(),
        };
        Box::pin(async move {
            Ok(match server {
                Some(server) => request.serve(&server).await,
                // Never while a transport serves: it holds the server.
                None => McpResponse::error(
                    request.id().clone(),
                    internal_error!("a request reached a server that was dropped"),
                ),
            })
        })
    }
}

impl crate::Server {
    /// Hands a request to the service stack (the user's layers, then the dispatcher), in
    /// the request's span ([`span::RequestSpan`]), until the server stops: every transport
    /// serves its requests through here.
    ///
    /// The future holds the dispatch's whole (several kilobytes) when no layers are set:
    /// each transport boxes the future of a request once, around this one (stdio and HTTP
    /// for their own reasons, the in-process transport for this), so that nothing moves it
    /// whole and no second box is made.
    pub(crate) async fn call_service(&self, request: McpRequest) -> McpResponse {
        let _serving = self.lifecycle().serving();
        let id = request.id().clone();
        let span = span::RequestSpan::of(&request);
        // Made in place, where it is polled: moved, a future of this size would be kept twice.
        let mut serve = std::pin::pin!(match self.layers() {
            Some(stack) => Either::Left(stack.serve(request)),
            None => Either::Right(request.serve(self)),
        });
        // The server stopped (the grace period of a shutdown over, or `Server::shutdown`):
        // the handler is dropped, and the client told why. Polled in place, inside the span,
        // the request first.
        let stopped = self.shutdown_token().cancelled();
        tokio::pin!(stopped);
        let served =
            std::future::poll_fn(
                |cx| match span.span().in_scope(|| serve.as_mut().poll(cx)) {
                    Poll::Ready(response) => Poll::Ready(response),
                    Poll::Pending => stopped.as_mut().poll(cx).map(|()| {
                        McpResponse::error(
                            id.clone(),
                            typemcp_core::McpError::internal(
                                "Internal error: the server shut down",
                            ),
                        )
                    }),
                },
            )
            .await;
        span.finish(&served);
        served
    }

    /// The user's layers around the MCP service, if any were registered.
    fn layers(&self) -> Option<&BoxMcpService> {
        self.layers_slot()
            .and_then(|slot| slot.downcast_ref::<BoxMcpService>())
    }
}
