//! [`McpRequest`]: one decoded JSON-RPC request and what the transport knows of its caller.

use std::future::Future;

use std::borrow::Cow;
use std::sync::OnceLock;

use tokio_util::sync::CancellationToken;
use typemcp_core::jsonrpc::{IncomingMessage, IncomingRequest, Params, parse_message};
use typemcp_core::protocol::methods;
use typemcp_core::{McpError, RequestId};

use super::McpResponse;
use crate::Server;
use crate::context::{AuthIdentity, TransportInfo};
use crate::dispatch::{Era, Reply};
use crate::outbound::Outbound;

/// A request on its way to the [`McpService`](super::McpService), as a transport built it:
/// the JSON-RPC request, the era it is served in (decided, and checked, before it is made),
/// and what the transport knows of its caller. Plain data: the service serves it.
///
/// Layers read it to decide (the method, the tool, the caller) and pass it on unchanged.
///
/// ```
/// use typemcp_server::service::McpRequest;
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
    request: IncomingRequest,
    era: Era,
    transport: TransportInfo,
    outbound: Outbound,
    cancellation: CancellationToken,
    /// Members of the params read for the accessors below, once asked for.
    read: Read,
}

/// Members of a request's params read out of its text, once asked for.
#[derive(Debug, Default)]
struct Read {
    tool_name: OnceLock<Option<String>>,
    asked_version: OnceLock<String>,
}

impl McpRequest {
    pub(crate) fn new(
        request: IncomingRequest,
        era: Era,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            request,
            era,
            transport,
            outbound,
            cancellation,
            read: Read::default(),
        }
    }

    /// A request for `server` from one serialized JSON-RPC message, as the in-process
    /// transport builds it: served on the stateless 2026-07-28 wire, with what `transport`
    /// says of the caller (such as [`TransportInfo::in_process`] with an identity from
    /// [`TransportInfo::with_auth`]). Notifications the request emits are dropped.
    ///
    /// Use it to drive your layers without a transport, in a test:
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use typemcp_server::service::{McpRequest, McpService};
    /// use typemcp_server::{Server, ToolRoute, TransportInfo};
    /// use tower::ServiceExt;
    ///
    /// let server = Server::builder()
    ///     .tool(ToolRoute::new("hi", || async { "hello" }).description("Greets."))
    ///     .build()
    ///     .unwrap();
    /// let message = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hi",
    ///     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
    ///              "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let request = McpRequest::from_message(&server, message, TransportInfo::in_process())
    ///     .unwrap();
    /// assert_eq!(request.tool_name(), Some("hi"));
    ///
    /// let stack = tower::ServiceBuilder::new()
    ///     .concurrency_limit(8)
    ///     .service(McpService::new(&server));
    /// let response = stack.oneshot(request).await.unwrap();
    /// let json: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
    /// assert_eq!(json["result"]["content"][0]["text"], "hello");
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// The response to send instead when the message is not a request that can be served:
    /// malformed JSON (`-32700`), not a JSON-RPC request (`-32600`: notifications and
    /// responses included), invalid `_meta` (`-32602`).
    pub fn from_message(
        server: &Server,
        message: &[u8],
        transport: TransportInfo,
    ) -> Result<Self, McpResponse> {
        let request = match parse_message(message) {
            Ok(IncomingMessage::Request(request)) => request,
            Ok(IncomingMessage::Notification(_) | IncomingMessage::Response { .. }) => {
                return Err(McpResponse::from_reply(Reply::error(
                    None,
                    McpError::invalid_request("Invalid request: not a JSON-RPC request"),
                )));
            }
            Err(error) => {
                return Err(McpResponse::from_reply(Reply::error(
                    error.id.clone(),
                    error.error,
                )));
            }
        };
        Self::stateless(server, request, transport)
    }

    /// A parsed request for `server` on the stateless wire (the in-process transport).
    pub(crate) fn stateless(
        server: &Server,
        request: IncomingRequest,
        transport: TransportInfo,
    ) -> Result<Self, McpResponse> {
        let era = server
            .modern_era(&request)
            .map_err(McpResponse::from_reply)?;
        Ok(Self::new(
            request,
            era,
            transport,
            Outbound::Discard,
            CancellationToken::new(),
        ))
    }

    fn request(&self) -> &IncomingRequest {
        &self.request
    }

    /// The JSON-RPC request id.
    pub fn id(&self) -> &RequestId {
        &self.request().id
    }

    /// The method, such as `tools/call`.
    pub fn method(&self) -> &str {
        &self.request().method
    }

    /// The params, as the client's JSON text (on the 2026-07-28 wire, `_meta` included, already
    /// checked: the request's [`RequestContext`](crate::RequestContext) has it read). Read
    /// them with [`Params::parse`] into a type of yours, or one member with
    /// [`Params::member`].
    pub fn params(&self) -> &Params {
        &self.request().params
    }

    /// The tool a `tools/call` names (`None` for other methods, or without a string `name`).
    pub fn tool_name(&self) -> Option<&str> {
        if self.method() != methods::TOOLS_CALL {
            return None;
        }
        let name = self.read.tool_name.get_or_init(|| {
            let name = self.params().str_member("name");
            name.map(Cow::into_owned)
        });
        name.as_deref()
    }

    /// The protocol revision the request is served under: its `_meta` version on the
    /// 2026-07-28 wire, the session's negotiated one on the 2025-11-25 era, and for
    /// `initialize` the revision the client asks for (empty if it names none).
    pub fn protocol_version(&self) -> &str {
        self.era.protocol_version().unwrap_or_else(|| {
            self.read.asked_version.get_or_init(|| {
                let asked = self.request.params.str_member("protocolVersion");
                asked.map(Cow::into_owned).unwrap_or_default()
            })
        })
    }

    /// Whether the request belongs to an `initialize`d session of the 2025-11-25 era rather
    /// than to the stateless 2026-07-28 wire.
    pub fn is_legacy_session(&self) -> bool {
        self.era.is_session()
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

    /// Serves the request for `server` (what [`McpService`](super::McpService) does): the
    /// dispatcher's future, made without an await of its own.
    pub(crate) fn serve(self, server: &Server) -> impl Future<Output = McpResponse> + Send + '_ {
        let Self {
            request,
            era,
            transport,
            outbound,
            cancellation,
            read: _,
        } = self;
        server.dispatch(era, request, transport, outbound, cancellation)
    }
}
