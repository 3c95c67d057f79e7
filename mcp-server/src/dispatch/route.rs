//! Era routing: the one place that decides whether a request is served statelessly under
//! 2026-07-28, opens a 2025-11-25 session (`initialize`), or belongs to an open one. Every
//! transport calls [`Server::route`], then hands the routed request (`initialize` included)
//! to the MCP service (`crate::service`, which ends in [`Server::serve`]); HTTP checks its
//! mirrored headers on a modern request in between. The answer to `initialize` carries the
//! session it opened, which the transport keeps (stdio for the process, HTTP under a new
//! `Mcp-Session-Id`).
//!
//! The order follows the recommended dispatch of a dual-era server (spec notes §4.3), so that a
//! modern client never falls back by mistake:
//! 1. HTTP: an `Mcp-Session-Id` naming a live session routes to that session (an
//!    `MCP-Protocol-Version` header naming a revision it does not serve is 400). One naming no
//!    live session is `404` (the client must start again), unless the request carries modern
//!    `_meta`, which a modern server serves and ignores the header for.
//! 2. stdio: once `initialize` has been served, a request without modern `_meta` belongs to
//!    the process's session; one with it is still served statelessly.
//! 3. `initialize` without modern `_meta` and without a modern `MCP-Protocol-Version` header
//!    (absent, or a date up to 2025-11-25) opens a session, where the transport can keep one.
//!    With either, it is a modern request, answered `-32601` like every removed method.
//! 4. HTTP: a request that names a legacy `MCP-Protocol-Version` but no session, and has no
//!    modern `_meta`, is `400` (the session id is missing).
//! 5. Everything else is modern: its `_meta` is read and checked (`-32602`, 400).

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use typemcp_core::McpError;
use typemcp_core::jsonrpc::IncomingRequest;
use typemcp_core::protocol::{LegacyVersion, legacy_methods, meta_keys};

use super::{CheckedRequest, Outcome, Reply, Session};
use crate::Server;
use crate::context::{Outbound, TransportInfo};
use crate::service::McpResponse;

/// What the transport knows of sessions for one request.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// No session can be kept (in-process calls): every request is modern.
    Stateless,
    /// stdio: the process's session, once `initialize` has been served, and where a new
    /// session's notifications outside any request go (stdout).
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))] // Used by the stdio transport.
    Process {
        session: Option<&'a Arc<Session>>,
        sink: &'a mpsc::Sender<Bytes>,
    },
    /// Streamable HTTP: what `Mcp-Session-Id` names, and the `MCP-Protocol-Version` header.
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // Used by the HTTP transport.
    Http {
        session: SessionHeader<'a>,
        version: Option<&'a str>,
    },
}

/// What an HTTP request's `Mcp-Session-Id` header names.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "http"), allow(dead_code))] // Used by the HTTP transport.
pub(crate) enum SessionHeader<'a> {
    /// No header.
    Absent,
    /// A live session.
    Live(&'a Arc<Session>),
    /// A session that does not exist (any more).
    Unknown,
}

/// Where a request goes.
#[derive(Debug)]
pub(crate) enum Routed {
    /// Served statelessly under 2026-07-28, `_meta` checked.
    Modern(Box<CheckedRequest>),
    /// `initialize`: the service opens a session (with [`Server::initialize`]) whose
    /// notifications outside any request go to the sink, and the transport keeps it.
    Initialize(IncomingRequest, Option<mpsc::Sender<Bytes>>),
    /// A request of an open 2025-11-25 session.
    Legacy(IncomingRequest, Arc<Session>),
}

impl Routed {
    /// The request, whatever its era.
    pub(crate) fn request(&self) -> &IncomingRequest {
        match self {
            Self::Modern(checked) => &checked.request,
            Self::Legacy(request, _) | Self::Initialize(request, _) => request,
        }
    }
}

/// Whether the params carry modern per-request `_meta` (a protocol version in it).
fn has_modern_meta(request: &IncomingRequest) -> bool {
    match request.params.get("_meta") {
        Some(Value::Object(meta)) => meta.contains_key(meta_keys::PROTOCOL_VERSION),
        _ => false,
    }
}

impl Server {
    /// Decides the era of `request` (see the module documentation). On refusal, the reply.
    pub(crate) fn route(
        &self,
        request: IncomingRequest,
        scope: Scope<'_>,
    ) -> Result<Routed, Reply> {
        let modern_meta = has_modern_meta(&request);
        match scope {
            Scope::Http {
                session: SessionHeader::Live(session),
                version,
            } => {
                if let Some(version) = version
                    && !LegacyVersion::SUPPORTED.contains(&version)
                {
                    return Err(Reply::error_as(
                        Some(request.id),
                        McpError::invalid_request(format!(
                            "Bad Request: unsupported MCP-Protocol-Version {version} on a \
                             session (supported: {})",
                            LegacyVersion::SUPPORTED.join(", ")
                        )),
                        Outcome::Malformed,
                    ));
                }
                return Ok(Routed::Legacy(request, Arc::clone(session)));
            }
            Scope::Http {
                session: SessionHeader::Unknown,
                ..
            } if !modern_meta => {
                return Err(Reply::error_as(
                    Some(request.id),
                    McpError::invalid_request(
                        "Session not found: it ended or expired; send initialize again",
                    ),
                    Outcome::UnknownSession,
                ));
            }
            Scope::Process {
                session: Some(session),
                ..
            } if !modern_meta => {
                return Ok(Routed::Legacy(request, Arc::clone(session)));
            }
            _ => {}
        }
        let (can_open, sink, header) = match scope {
            Scope::Stateless => (false, None, None),
            Scope::Process { sink, .. } => (true, Some(sink.clone()), None),
            Scope::Http { version, .. } => (true, None, version),
        };
        let legacy_header = header.is_none_or(LegacyVersion::is_legacy);
        if request.method == legacy_methods::INITIALIZE && can_open && !modern_meta && legacy_header
        {
            return Ok(Routed::Initialize(request, sink));
        }
        if let Scope::Http {
            session: SessionHeader::Absent,
            version: Some(version),
        } = scope
            && LegacyVersion::is_legacy(version)
            && !modern_meta
        {
            return Err(Reply::error_as(
                Some(request.id),
                McpError::invalid_request(
                    "Bad Request: Mcp-Session-Id header is required (send initialize first)",
                ),
                Outcome::Malformed,
            ));
        }
        self.check_meta(request)
            .map(|checked| Routed::Modern(Box::new(checked)))
    }

    /// Serves a routed request of either era: `initialize` opens a session, which the
    /// answer carries to the transport (see [`McpResponse`]).
    pub(crate) async fn serve(
        &self,
        routed: Routed,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> McpResponse {
        match routed {
            Routed::Modern(checked) => McpResponse::from_reply(
                self.dispatch(*checked, transport, outbound, cancellation)
                    .await,
            ),
            Routed::Legacy(request, session) => McpResponse::from_reply(
                self.dispatch_legacy(request, session, transport, outbound, cancellation)
                    .await,
            ),
            Routed::Initialize(request, sink) => match self.initialize(request, sink) {
                Ok((reply, session)) => McpResponse::opening(reply, session),
                Err(reply) => McpResponse::from_reply(reply),
            },
        }
    }
}
