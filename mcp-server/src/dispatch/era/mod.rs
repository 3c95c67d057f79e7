//! The protocol era of a request, decided once: [`Server::era_of`] turns a decoded request into
//! [`Era::Modern`] (served statelessly under 2026-07-28, its `_meta` checked),
//! [`Era::Session`] (a request of an open 2025-11-25 session) or [`Era::Opening`]
//! (`initialize`, which opens one). Every transport calls it with what it knows of sessions
//! ([`Scope`]), as the first step of handing a request to the service (`crate::service`).
//!
//! The value then owns the three behaviours that differ between the eras, so that nothing
//! below it asks which era it serves:
//! - building the handler's context ([`Era::context`]): per-request `_meta`, or what
//!   `initialize` negotiated;
//! - fulfilling an `input_required` outcome ([`Era::fulfil`]): returned to a modern client,
//!   which retries; pushed to a session's client as requests of the server's own, the same
//!   handler run again with the answers ([`push`]);
//! - spelling the result ([`Era::spell`]): `serverInfo` stamped into `_meta`, or the 2026
//!   fields removed.
//!
//! The methods each era offers besides the common ones are a table ([`SESSION_ONLY`],
//! [`MODERN_ONLY`]); the session's own methods are served in [`session_methods`].
//!
//! The order of the decision follows the recommended dispatch of a dual-era server (spec
//! notes §4.3), so that a modern client never falls back by mistake:
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
//! 5. Everything else is modern, checked in the order the conformance suite pins: its
//!    `_meta` (`-32602`, 400), then over HTTP the mirrored headers ([`mirrored`],
//!    [`param_headers`]: `-32020`), then the protocol version (`-32022`). The method
//!    (`-32601`) is the dispatcher's.

#[cfg(feature = "http")]
mod mirrored;
#[cfg(feature = "http")]
mod param_headers;
#[cfg(sessions)]
mod push;
#[cfg(sessions)]
mod session_methods;
mod stamp;

#[cfg(sessions)]
use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;
#[cfg(sessions)]
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use typemcp_core::McpError;
use typemcp_core::jsonrpc::IncomingRequest;
use typemcp_core::protocol::{HasMeta, Outcome, ProtocolVersion, RequestMeta, legacy_methods};
#[cfg(sessions)]
use typemcp_core::protocol::{ProgressToken, methods, task_methods};

#[cfg(feature = "http")]
use typemcp_core::protocol::LegacyVersion;

use super::guard::Rounds;
use super::meta::MetaView;
use super::rounds::Round;
use super::{Reply, Verdict};
use crate::context::TransportInfo;
use crate::outbound::Outbound;
use crate::registry::OutputEra;
#[cfg(sessions)]
use crate::session::{Session, Tracked};
use crate::{RequestContext, Server};

/// What a transport that keeps sessions knows of them for one request (in process, none
/// can be kept: every request is modern, [`Server::modern_era`]).
#[cfg(sessions)]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// stdio: the process's session, once `initialize` has been served, and where a new
    /// session's notifications outside any request go (stdout).
    #[cfg(feature = "stdio")]
    Process {
        session: Option<&'a Arc<Session>>,
        sink: &'a mpsc::Sender<Bytes>,
    },
    /// Streamable HTTP: what `Mcp-Session-Id` names, and the request's headers (the
    /// `MCP-Protocol-Version` header, and those a modern request mirrors).
    #[cfg(feature = "http")]
    Http {
        session: SessionHeader<'a>,
        headers: &'a http::HeaderMap,
    },
}

/// What an HTTP request's `Mcp-Session-Id` header names.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy)]
pub(crate) enum SessionHeader<'a> {
    /// No header.
    Absent,
    /// A live session.
    Live(&'a Arc<Session>),
    /// A session that does not exist (any more).
    Unknown,
}

/// The era a request is served in, and what that era knows of it.
#[derive(Debug)]
pub(crate) enum Era {
    /// Served statelessly under 2026-07-28: the request's `_meta`, checked.
    Modern(Box<RequestMeta>),
    /// A request of an open 2025-11-25 session, and the progress token of its `_meta` (read
    /// in the one pass over the params that decided the era).
    #[cfg(sessions)]
    Session(Arc<Session>, Option<ProgressToken>),
    /// `initialize`: opens a session whose notifications outside any request go to the sink
    /// (stdio's output), and which the transport keeps.
    #[cfg(sessions)]
    Opening(Option<mpsc::Sender<Bytes>>),
}

/// What keeps a session's request findable by `notifications/cancelled` while it is
/// served (nothing, where no session can be kept).
#[cfg(sessions)]
type Tracking = Option<Tracked>;
#[cfg(not(sessions))]
type Tracking = ();

/// Methods only a session offers: answered from the session itself.
const SESSION_ONLY: [&str; 5] = [
    legacy_methods::PING,
    legacy_methods::SET_LEVEL,
    legacy_methods::SUBSCRIBE,
    legacy_methods::UNSUBSCRIBE,
    legacy_methods::INITIALIZE,
];

/// Methods only the 2026-07-28 wire offers (the tasks extension's `tasks/*` too).
#[cfg(sessions)]
const MODERN_ONLY: [&str; 2] = [methods::DISCOVER, methods::SUBSCRIPTIONS_LISTEN];

/// Whether a message's params carry modern per-request `_meta` (a protocol version in it):
/// a 2026-07-28 message, whatever session the transport says it belongs to.
#[cfg(feature = "http")]
pub(crate) fn has_modern_meta(params: &typemcp_core::jsonrpc::Params) -> bool {
    MetaView::of(params).is_modern()
}

impl Server {
    /// Decides the era of `request` and checks what that era requires of it (see the module
    /// documentation). A modern request's `_meta` is read (it stays in the params, which the
    /// methods' typed params skip). On refusal, the reply to send.
    #[cfg(sessions)]
    pub(crate) fn era_of(&self, request: &IncomingRequest, scope: Scope<'_>) -> Result<Era, Reply> {
        let meta = MetaView::of(&request.params);
        let modern_meta = meta.is_modern();
        match scope {
            #[cfg(feature = "stdio")]
            Scope::Process { session, sink } => match session {
                Some(session) if !modern_meta => {
                    Ok(Era::Session(Arc::clone(session), meta.progress_token()))
                }
                _ if request.method == legacy_methods::INITIALIZE && !modern_meta => {
                    Ok(Era::Opening(Some(sink.clone())))
                }
                _ => modern(request, &meta, |_, _| Ok(())),
            },
            #[cfg(feature = "http")]
            Scope::Http { session, headers } => {
                let version = headers
                    .get(&crate::header_names::PROTOCOL_VERSION.key)
                    .and_then(|v| v.to_str().ok())
                    .map(str::trim);
                match session {
                    SessionHeader::Live(session) => {
                        return match version {
                            Some(version) if !LegacyVersion::SUPPORTED.contains(&version) => {
                                Err(Reply::malformed(
                                    request,
                                    McpError::invalid_request(format!(
                                        "Bad Request: unsupported MCP-Protocol-Version {version} \
                                         on a session (supported: {})",
                                        LegacyVersion::SUPPORTED.join(", ")
                                    )),
                                ))
                            }
                            _ => Ok(Era::Session(Arc::clone(session), meta.progress_token())),
                        };
                    }
                    SessionHeader::Unknown if !modern_meta => {
                        return Err(Reply::unknown_session(Some(request.id.clone())));
                    }
                    SessionHeader::Absent | SessionHeader::Unknown => {}
                }
                let legacy_header = version.is_none_or(LegacyVersion::is_legacy);
                if request.method == legacy_methods::INITIALIZE && !modern_meta && legacy_header {
                    return Ok(Era::Opening(None));
                }
                if let (SessionHeader::Absent, Some(version)) = (session, version)
                    && LegacyVersion::is_legacy(version)
                    && !modern_meta
                {
                    return Err(Reply::malformed(
                        request,
                        McpError::invalid_request(
                            "Bad Request: Mcp-Session-Id header is required (send initialize \
                             first)",
                        ),
                    ));
                }
                modern(request, &meta, |request, read| {
                    mirrored::check(headers, request, &meta, read)
                        .and_then(|()| param_headers::check(headers, request, &meta, self))
                })
            }
        }
    }
}

impl Server {
    /// The era of a request where no session can be kept (in process): modern, its `_meta`
    /// and version checked. On refusal, the reply to send.
    pub(crate) fn modern_era(&self, request: &IncomingRequest) -> Result<Era, Reply> {
        modern(request, &MetaView::of(&request.params), |_, _| Ok(()))
    }
}

/// A modern request: its `_meta` (`meta`, read from the params, where it stays: the methods'
/// typed params skip it), then what the transport mirrors of it, then its protocol version.
fn modern(
    request: &IncomingRequest,
    meta: &MetaView<'_>,
    check_mirrored: impl FnOnce(&IncomingRequest, &RequestMeta) -> Result<(), McpError>,
) -> Result<Era, Reply> {
    let meta = meta.read_meta().map_err(|e| Reply::malformed(request, e))?;
    check_mirrored(request, &meta).map_err(|e| Reply::error(Some(request.id.clone()), e))?;
    if !ProtocolVersion::is_supported(&meta.protocol_version) {
        return Err(Reply::error(
            Some(request.id.clone()),
            McpError::unsupported_protocol_version(
                ProtocolVersion::SUPPORTED,
                &meta.protocol_version,
            ),
        ));
    }
    Ok(Era::Modern(Box::new(meta)))
}

impl Era {
    /// The revision the request is served under: its `_meta` version, or the session's
    /// negotiated one; `None` for `initialize`, which asks for one.
    pub(crate) fn protocol_version(&self) -> Option<&str> {
        match self {
            Self::Modern(meta) => Some(meta.protocol_version.as_ref()),
            #[cfg(sessions)]
            Self::Session(session, _) => Some(session.version()),
            #[cfg(sessions)]
            Self::Opening(_) => None,
        }
    }

    /// Whether the request belongs to an open 2025-11-25 session.
    pub(crate) fn is_session(&self) -> bool {
        #[cfg(sessions)]
        return matches!(self, Self::Session(..));
        #[cfg(not(sessions))]
        false
    }

    /// Whether this era offers `method` (the common ones, and its own).
    pub(super) fn offers(&self, method: &str) -> bool {
        match self {
            #[cfg(sessions)]
            Self::Session(..) => {
                !MODERN_ONLY.contains(&method) && !task_methods::is_task_request(method)
            }
            _ => !SESSION_ONLY.contains(&method),
        }
    }

    /// Whether a call may become a task (the tasks extension is a 2026-07-28 one).
    pub(super) fn runs_tasks(&self) -> bool {
        matches!(self, Self::Modern(_))
    }

    /// What this era's clients may be given of a tool's structured output.
    pub(super) fn output(&self) -> OutputEra {
        match self {
            #[cfg(sessions)]
            Self::Session(..) => OutputEra::Legacy,
            _ => OutputEra::Current,
        }
    }

    /// The handler's context: the request's `_meta`, or, on a session, what `initialize`
    /// negotiated (with the progress token of the request's own `_meta`). A session's
    /// request is tracked while the guard lives, so that `notifications/cancelled` POSTed
    /// over HTTP finds it. A modern request's `_meta` moves into the context (what the era
    /// keeps of it is its variant).
    pub(super) fn context(
        &mut self,
        server: &Server,
        request: &IncomingRequest,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> (RequestContext, Tracking) {
        let meta = match self {
            Self::Modern(meta) => std::mem::take(&mut **meta),
            #[cfg(sessions)]
            Self::Session(session, progress_token) => session_meta(session, progress_token.take()),
            // Never: `initialize` is answered before any context is built.
            #[cfg(sessions)]
            Self::Opening(_) => RequestMeta::default(),
        };
        let context = RequestContext::new(
            request.id.clone(),
            &request.method,
            meta,
            cancellation,
            outbound,
            transport,
            server.clone(),
        );
        match self {
            #[cfg(sessions)]
            Self::Session(session, _) => {
                let tracked = session.track(request.id.clone(), context.cancellation().clone());
                (context.with_session(Arc::clone(session)), Some(tracked))
            }
            _ => (context, Tracking::default()),
        }
    }

    /// Runs a multi-round method to the outcome this era's client is given: on the
    /// 2026-07-28 wire, the first outcome (an `input_required` one is the client's to retry);
    /// on a session, the input requests are pushed to the client and `run` called again with
    /// the answers until it completes ([`push`]).
    pub(super) async fn fulfil<R: Round>(
        &self,
        ctx: &RequestContext,
        rounds: Rounds,
        round: &R,
    ) -> Result<Outcome<R::Result>, McpError> {
        match self {
            #[cfg(sessions)]
            Self::Session(session, _) => push::fulfil(session, ctx, rounds, round).await,
            _ => round.run(ctx, rounds).await,
        }
    }

    /// Serializes the response as this era spells it: on the 2026-07-28 wire, with
    /// `serverInfo` stamped into the result's `_meta` (unless configured off); on a session,
    /// without the 2026 fields (an `input_required` result cannot be given there).
    pub(super) fn spell<R: Serialize + HasMeta>(
        &self,
        server: &Server,
        id: &typemcp_core::RequestId,
        result: R,
    ) -> Result<Bytes, McpError> {
        match self {
            #[cfg(sessions)]
            Self::Session(..) => {
                session_methods::serialize(id, &session_methods::legacy_result(&result)?)
            }
            _ => stamp::respond(server, id, result),
        }
    }
}

/// What stands for per-request `_meta` on a session: the revision and the client's
/// description from `initialize`, and the progress token of the request's own `_meta`.
#[cfg(sessions)]
fn session_meta(session: &Session, progress_token: Option<ProgressToken>) -> RequestMeta {
    RequestMeta {
        protocol_version: ProtocolVersion::named(session.version()),
        client_capabilities: session.client_capabilities().clone(),
        client_info: Some(session.client_info().clone()),
        log_level: None,
        progress_token,
    }
}

impl Reply {
    /// The reply to a request refused before any method ran, because the message itself is
    /// wrong (invalid `_meta`, a missing session id, a session header naming a revision the
    /// session does not serve).
    fn malformed(request: &IncomingRequest, error: McpError) -> Self {
        Self::error_as(Some(request.id.clone()), error, Verdict::Malformed)
    }
}
