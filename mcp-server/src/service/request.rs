//! [`McpRequest`]: one decoded JSON-RPC request and what the transport knows of its caller.

use mcp_core::RequestId;
use mcp_core::jsonrpc::IncomingRequest;
use mcp_core::protocol::methods;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::McpResponse;
use crate::Server;
use crate::context::{AuthIdentity, Outbound, TransportInfo};
use crate::dispatch::Routed;

/// A request on its way to the [`McpService`](super::McpService), as a transport built it.
///
/// Layers read it to decide (the method, the tool, the caller) and pass it on unchanged.
///
/// ```
/// use mcp_server::service::McpRequest;
///
/// // A rule a per-tool authorization layer could apply.
/// fn allowed(request: &McpRequest) -> bool {
///     request.tool_name() != Some("drop_tables")
///         || request.auth().is_some_and(|who| who.has_scope("admin"))
/// }
/// # let _ = allowed;
/// ```
#[derive(Debug)]
pub struct McpRequest {
    server: Server,
    routed: Routed,
    transport: TransportInfo,
    outbound: Outbound,
    cancellation: CancellationToken,
}

impl McpRequest {
    pub(crate) fn new(
        server: Server,
        routed: Routed,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            server,
            routed,
            transport,
            outbound,
            cancellation,
        }
    }

    fn request(&self) -> &IncomingRequest {
        match &self.routed {
            Routed::Modern(checked) => &checked.request,
            Routed::Legacy(request, _) | Routed::Initialize(request) => request,
        }
    }

    /// The JSON-RPC request id.
    pub fn id(&self) -> &RequestId {
        &self.request().id
    }

    /// The method, such as `tools/call`.
    pub fn method(&self) -> &str {
        &self.request().method
    }

    /// The params. On the 2026-07-28 wire, `_meta` has already been taken out and checked.
    pub fn params(&self) -> &Map<String, Value> {
        &self.request().params
    }

    /// The tool a `tools/call` names (`None` for other methods, or without a string `name`).
    pub fn tool_name(&self) -> Option<&str> {
        if self.method() != methods::TOOLS_CALL {
            return None;
        }
        self.params().get("name").and_then(Value::as_str)
    }

    /// The protocol revision the request is served under: its `_meta` version on the
    /// 2026-07-28 wire, the session's negotiated one on the 2025-11-25 era.
    pub fn protocol_version(&self) -> &str {
        match &self.routed {
            Routed::Modern(checked) => &checked.meta.protocol_version,
            Routed::Legacy(_, session) => session.version(),
            Routed::Initialize(_) => "",
        }
    }

    /// Whether the request belongs to an `initialize`d session of the 2025-11-25 era rather
    /// than to the stateless 2026-07-28 wire.
    pub fn is_legacy_session(&self) -> bool {
        matches!(self.routed, Routed::Legacy(..))
    }

    /// What the transport knows of the request.
    pub fn transport(&self) -> &TransportInfo {
        &self.transport
    }

    /// The caller an authentication layer vouched for, if any.
    pub fn auth(&self) -> Option<&AuthIdentity> {
        self.transport.auth()
    }

    /// Fires when the client cancels the request or goes away.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The server the request is for.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Serves the request (what [`McpService`](super::McpService) does).
    pub(crate) async fn serve(self) -> McpResponse {
        let Self {
            server,
            routed,
            transport,
            outbound,
            cancellation,
        } = self;
        McpResponse::from_reply(
            server
                .serve(routed, transport, outbound, cancellation)
                .await,
        )
    }
}
