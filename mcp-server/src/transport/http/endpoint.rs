//! The endpoint: transport checks, the era decided (`dispatch::era`), then the dispatcher.
//!
//! POST carries requests of both eras. GET (the session's notification stream) and DELETE
//! (ending the session) exist only for 2025-11-25 sessions: without an `Mcp-Session-Id` they
//! are 405, as on a modern-only server; with one naming no live session, 404.
//!
//! On a session, a POSTed JSON-RPC response answers a request the server sent on an SSE stream
//! (202), and a POSTed `notifications/cancelled` cancels the request it names. A session's SSE
//! answers are resumable streams, and GET with `Last-Event-ID` resumes one (see
//! [`super::resume`]).
//!
//! Every POST, GET and DELETE that names a session this endpoint does not know (it ended,
//! expired, gave way, or never existed here) gets the same 404, requests, responses and
//! notifications alike, so that a client behind a balancer starts a new session at once
//! instead of waiting for an answer that will never come. (A request or notification with
//! modern `_meta` is the exception: it is served as on the 2026-07-28 wire, which ignores the
//! header; see `dispatch::era`.)
//!
//! With a shared session store ([`super::session_store`]), a session named here is found
//! through the store (adopted, when another instance opened it; read again at most once a
//! second, see `super::shared`); an answer
//! to a request another instance pushed is forwarded to it (410 when that instance is gone),
//! a `notifications/cancelled` to every instance, and a GET resuming a stream another
//! instance holds is relayed from it. A store that fails refuses the message with 503.
//!
//! Each request holds a place of its caller's share of requests in flight
//! ([`super::in_flight`]) until its answer is sent and its handler is done; beyond the
//! share, 429.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::FutureExt;
use http::header::{ALLOW, CONTENT_LENGTH};
use http::{Method, StatusCode};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use typemcp_core::McpError;
use typemcp_core::jsonrpc::{IncomingMessage, IncomingRequest, parse_message};

use super::directory::{Answered, Directory, Unavailable};
use super::in_flight::{self, Held, InFlight, Place};
use super::origin;
use super::resume::Resumable;
use super::sessions::{Full, InUse};
use super::{HttpConfig, negotiate, resume, status, stream};
use crate::Server;
use crate::caller::Caller;
use crate::context::{AuthIdentity, TransportInfo};
use crate::dispatch::{Era, Reply, Scope, SessionHeader, has_modern_meta};
use crate::header_names::{LAST_EVENT_ID, SESSION_ID};
use crate::outbound::Outbound;
use crate::service::McpRequest;
use crate::session::Session;

/// Shared state of one mounted endpoint.
#[derive(Debug)]
pub(crate) struct Endpoint {
    server: Server,
    config: HttpConfig,
    /// Its 2025-11-25 sessions (and their store, if shared).
    sessions: Directory,
    in_flight: Arc<InFlight>,
    /// This endpoint's key into the worker threads' memo of the last `Host` accepted.
    host_memo: origin::HostMemo,
    /// Whether the log said once that unauthenticated callers share one quota.
    warned_anonymous: std::sync::atomic::AtomicBool,
}

impl Endpoint {
    pub(crate) fn new(server: Server, config: HttpConfig) -> Self {
        let sessions = Directory::new(&config);
        let in_flight = InFlight::new(config.max_in_flight_per_caller);
        Self {
            server,
            config,
            sessions,
            in_flight,
            host_memo: origin::HostMemo::new(),
            warned_anonymous: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// What the request's `Mcp-Session-Id` names: `None` without the header, `Some(None)`
    /// when it names no live session of this caller; a live one is marked in use. With a
    /// shared store, the store says whether it lives (a failing store: the 503 to answer).
    async fn session_of(
        &self,
        parts: &http::request::Parts,
    ) -> Result<Option<Option<InUse>>, Response> {
        let Some(id) = parts.headers.get(&SESSION_ID) else {
            return Ok(None);
        };
        let Some(id) = id.to_str().ok().map(str::trim) else {
            return Ok(Some(None));
        };
        let caller = || caller_of(parts);
        let found = self.sessions.find(&self.server, id, owner(parts), &caller);
        found
            .await
            .map(Some)
            .map_err(|Unavailable| store_unavailable())
    }

    /// The client's answer to a request the server pushed on a session, wherever it waits.
    async fn session_answer(&self, session_id: &str, session: &Session, bytes: &[u8]) -> Response {
        match self.sessions.answer(session_id, session, bytes).await {
            Answered::Accepted => StatusCode::ACCEPTED.into_response(),
            Answered::OwnerGone => {
                tracing::info!("refused an answer to a request pushed by an instance that is gone");
                refuse(
                    StatusCode::GONE,
                    "Gone: the server instance that sent this request is no longer running, \
                     and the request it belongs to ended with it; send that request again",
                )
            }
            Answered::Unavailable => store_unavailable(),
            Answered::TooLarge => refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload Too Large: an answer to a request another instance sent is forwarded \
                 to it only up to 64 KiB",
            ),
        }
    }
}

/// The session id a request names (trimmed), if readable.
fn session_id(parts: &http::request::Parts) -> &str {
    parts
        .headers
        .get(&SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .unwrap_or_default()
}

/// The refusal of a message when the shared session store failed.
fn store_unavailable() -> Response {
    let error = McpError::internal("Service Unavailable: the session store is unavailable");
    stream::json_with(
        Reply::error(None, error).body,
        StatusCode::SERVICE_UNAVAILABLE,
    )
}

/// The authenticated subject of a request, which owns the sessions it opens.
fn owner(parts: &http::request::Parts) -> Option<&str> {
    parts
        .extensions
        .get::<AuthIdentity>()
        .map(AuthIdentity::subject)
}

fn method_not_allowed() -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response
        .headers_mut()
        .insert(ALLOW, http::HeaderValue::from_static("POST"));
    response
}

/// A transport-level refusal: a status and a JSON-RPC error without id.
fn refuse(status: StatusCode, message: &'static str) -> Response {
    let reply = Reply::error(None, McpError::invalid_request(message));
    stream::json_with(reply.body, status)
}

/// The answer to every message naming a session this endpoint does not know: 404, which
/// tells a 2025-11-25 client to start a new session.
fn session_not_found(id: Option<typemcp_core::RequestId>) -> Response {
    stream::json(Reply::unknown_session(id))
}

/// The refusal of a request beyond its caller's share of requests in flight.
fn too_many_in_flight(limit: usize) -> Response {
    let error = McpError::invalid_request(format!(
        "Too Many Requests: too many requests in flight for this caller (limit {limit})"
    ));
    let reply = Reply::error(None, error);
    let mut response = stream::json_with(reply.body, StatusCode::TOO_MANY_REQUESTS);
    response.headers_mut().insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from_static("1"),
    );
    response
}

/// The endpoint as a plain `tower::Service` (no axum handler, extractors or path
/// parameters around it: one boxed future per request).
#[derive(Clone)]
pub(crate) struct EndpointService(pub(crate) Arc<Endpoint>);

impl tower::Service<Request> for EndpointService {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Response, std::convert::Infallible>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Box::pin(handle(Arc::clone(&self.0), request).map(Ok))
    }
}

async fn handle(endpoint: Arc<Endpoint>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let session_verb = parts.method == Method::GET || parts.method == Method::DELETE;
    if parts.method != Method::POST && !(session_verb && parts.headers.contains_key(&SESSION_ID)) {
        return method_not_allowed();
    }
    let authority = parts.uri.authority().map(|a| a.as_str());
    if let Err(refused) = origin::check(
        &parts.headers,
        authority,
        &endpoint.config.hosts,
        &endpoint.config.origins,
        Some(&endpoint.host_memo),
    ) {
        refused.log(&parts.headers);
        return refuse(refused.status(), refused.message());
    }
    let caller = caller_of(&parts);
    // Read before it is written: a write on every request would bounce the flag's cache line
    // between the cores serving them.
    if caller == Caller::Anonymous
        && !endpoint
            .warned_anonymous
            .load(std::sync::atomic::Ordering::Relaxed)
        && !endpoint
            .warned_anonymous
            .swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        tracing::warn!(
            "unauthenticated HTTP clients share one per-caller quota: the peer address of \
             requests is unknown (serve the router with \
             into_make_service_with_connect_info::<SocketAddr>(), or authenticate)"
        );
    }
    let Some(place) = endpoint.in_flight.enter(caller) else {
        let limit = endpoint.in_flight.limit();
        tracing::debug!(
            caller = %caller_of(&parts),
            limit,
            "refused a request beyond its caller's share of requests in flight"
        );
        return too_many_in_flight(limit);
    };
    if session_verb {
        return endpoint.session_request(&parts, place).await;
    }
    if !negotiate::is_json_body(&parts.headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let accepts = negotiate::accepts(&parts.headers);
    if !accepts.json && !accepts.sse {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must include application/json and text/event-stream",
        );
    }
    let limit = endpoint.config.max_body_bytes;
    let read = tokio::time::timeout(
        endpoint.config.body_timeout,
        read_body(&parts.headers, body, limit),
    );
    let bytes = match read.await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(response)) => return response,
        Err(_) => {
            tracing::debug!("refused a request whose body took too long");
            let mut response = refuse(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the body took too long to arrive",
            );
            // The rest of the body may still be on its way: do not read it as a new request.
            response.headers_mut().insert(
                http::header::CONNECTION,
                http::HeaderValue::from_static("close"),
            );
            return response;
        }
    };
    match parse_message(&bytes) {
        Err(error) => stream::json(Reply::error(error.id.clone(), error.error)),
        Ok(IncomingMessage::Notification(notification)) => {
            match endpoint.session_of(&parts).await {
                Ok(Some(Some(live))) => {
                    live.session.touch();
                    // `notifications/cancelled` cancels the request it names (and so the
                    // server's requests pushed for it); the others need no action.
                    if let Some(params) = crate::transport::cancelled(notification) {
                        let id = session_id(&parts);
                        let cancel = endpoint
                            .sessions
                            .cancel(id, &live.session, params.request_id);
                        cancel.await;
                    }
                    StatusCode::ACCEPTED.into_response()
                }
                Ok(Some(None)) if !has_modern_meta(&notification.params) => {
                    tracing::debug!("refused a notification naming an unknown session");
                    session_not_found(None)
                }
                Err(unavailable) if !has_modern_meta(&notification.params) => unavailable,
                _ => StatusCode::ACCEPTED.into_response(),
            }
        }
        // Answers to the server's requests on a session (late ones are dropped); on a
        // session this endpoint does not know, 404.
        Ok(IncomingMessage::Response { id }) if parts.headers.contains_key(&SESSION_ID) => {
            match endpoint.session_of(&parts).await {
                Ok(Some(Some(live))) => {
                    live.session.touch();
                    endpoint
                        .session_answer(session_id(&parts), &live.session, &bytes)
                        .await
                }
                Err(unavailable) => unavailable,
                _ => {
                    tracing::debug!("refused a response naming an unknown session");
                    session_not_found(id)
                }
            }
        }
        Ok(IncomingMessage::Response { id }) => stream::json(Reply::error(
            id,
            McpError::invalid_request(
                "Invalid request: clients do not send responses to a 2026-07-28 server",
            ),
        )),
        Ok(IncomingMessage::Request(request)) if endpoint.server.is_draining() => {
            tracing::debug!(method = %request.method, "refused a request: shutting down");
            let error = McpError::internal("Service Unavailable: the server is shutting down");
            let reply = Reply::error(Some(request.id), error);
            stream::json_with(reply.body, StatusCode::SERVICE_UNAVAILABLE)
        }
        Ok(IncomingMessage::Request(request)) => {
            endpoint.request(parts, request, accepts, place).await
        }
    }
}

/// The caller of an HTTP request, from what its extensions carry (the authentication
/// layer's identity, the connection's peer address).
fn caller_of(parts: &http::request::Parts) -> Caller {
    Caller::of(owner(parts), crate::caller::peer_of(parts))
}

/// How much of an oversized body is read and discarded, and for how long at most, before
/// answering 413: a client that uploads the whole body in one go then reads the answer
/// instead of a broken pipe, and a client that stalls holds the server for no longer.
const DRAIN_BYTES: usize = 16 * 1024 * 1024;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_millis(500);

/// Reads the body up to the limit (a body of one frame, the usual case, without a copy);
/// 413 beyond it.
async fn read_body(
    headers: &http::HeaderMap,
    mut body: Body,
    limit: usize,
) -> Result<Bytes, Response> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_none_or(|len| len <= limit as u64) {
        match Limited::new(&mut body, limit).collect().await {
            Ok(collected) => return Ok(collected.to_bytes()),
            Err(error) if error.is::<LengthLimitError>() => {}
            Err(_) => {
                return Err(refuse(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the body could not be read",
                ));
            }
        }
    }
    let _ = tokio::time::timeout(DRAIN_TIME, async {
        let mut drained = 0usize;
        while let Some(Ok(frame)) = body.frame().await {
            drained = drained.saturating_add(frame.data_ref().map_or(0, Bytes::len));
            if drained > DRAIN_BYTES {
                break;
            }
        }
    })
    .await;
    Err(refuse(StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large"))
}

impl Endpoint {
    /// GET (the session's stream) or DELETE (end it) with an `Mcp-Session-Id`; a GET
    /// stream holds `place` (and its session in use) for as long as it is open.
    async fn session_request(&self, parts: &http::request::Parts, place: Place) -> Response {
        let id = session_id(parts);
        if parts.method == Method::DELETE {
            return match self.sessions.remove(id, owner(parts)).await {
                Ok(true) => StatusCode::OK.into_response(),
                Ok(false) => session_not_found(None),
                Err(Unavailable) => store_unavailable(),
            };
        }
        let live = match self.session_of(parts).await {
            Ok(Some(Some(live))) => live,
            Ok(_) => return session_not_found(None),
            Err(unavailable) => return unavailable,
        };
        if !negotiate::accepts(&parts.headers).sse {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: Accept must include text/event-stream",
            );
        }
        live.session.touch();
        let keep_alive = self.config.keep_alive;
        let Some(last_event_id) = parts.headers.get(&LAST_EVENT_ID) else {
            let stream = resume::listen(&live.streams, &live.session, keep_alive);
            return in_flight::until_sent(stream, Held::new(place, Some(live), None));
        };
        let resumed = match last_event_id.to_str() {
            Ok(last_event_id) => {
                let resumed = self.sessions.resume(id, &live, last_event_id, keep_alive);
                Box::pin(resumed).await
            }
            Err(_) => Err(resume::Refused::Bad(resume::BadEventId::Malformed).message()),
        };
        match resumed {
            Ok(stream) => in_flight::until_sent(stream, Held::new(place, Some(live), None)),
            Err(message) => refuse(StatusCode::BAD_REQUEST, message),
        }
    }

    /// A request of either era; its answer holds `place` (and its session in use) until it
    /// is sent and the handler is done.
    async fn request(
        &self,
        parts: http::request::Parts,
        request: IncomingRequest,
        accepts: negotiate::Accepts,
        place: Place,
    ) -> Response {
        let named = match self.session_of(&parts).await {
            Ok(named) => named,
            Err(unavailable) => return unavailable,
        };
        let session = match &named {
            None => SessionHeader::Absent,
            Some(Some(live)) => SessionHeader::Live(&live.session),
            Some(None) => SessionHeader::Unknown,
        };
        let scope = Scope::Http {
            session,
            headers: &parts.headers,
        };
        let era = match self.server.era_of(&request, scope) {
            // Boxed: this rare branch (2.5 KB) would otherwise double every request's future,
            // which is copied whole each time it is boxed (twice per request).
            Ok(era @ Era::Opening(_)) => {
                return Box::pin(self.initialize(parts, request, era, place)).await;
            }
            Ok(era) => era,
            Err(reply) => return stream::json(reply),
        };
        let id = request.id.clone();
        let token = CancellationToken::new();
        let cancel_on_drop = token.clone().drop_guard();
        let (outbound, notifications) = if accepts.sse {
            let (tx, rx) = mpsc::channel(64);
            (Outbound::Channel(tx), Some(rx))
        } else {
            (Outbound::Discard, None)
        };
        let mut transport = TransportInfo::http(parts);
        let on_session = matches!(era, Era::Session(..));
        // A session's stream is resumable, and its handler may close it (polling).
        let resumable = match (&named, &outbound) {
            (Some(Some(live)), Outbound::Channel(tx)) if on_session => {
                let (stream, control) = live.streams.prepare(tx);
                if let Some(control) = control {
                    transport = transport.with_sse_control(control);
                }
                Some(Resumable::new(Arc::clone(&live.streams), stream))
            }
            _ => None,
        };
        let serving = self.server.lifecycle().serving();
        let session = named
            .as_ref()
            .and_then(|named| named.as_ref().map(|live| Arc::clone(&live.session)));
        let held = Held::new(place, named.flatten(), Some(serving));
        let (status, cancelled) = if on_session {
            (status::on_session as fn(_) -> _, Some(token.clone()))
        } else {
            (status::of as fn(_) -> _, None)
        };
        let request = McpRequest::new(request, era, transport, outbound, token);
        let answer = stream::Answer {
            reply: stream::serve(self.server.clone(), request, Arc::clone(&held), cancelled),
            status,
            notifications,
            json_allowed: accepts.json,
            id,
            cancel_on_drop,
            resumable,
        };
        let response = stream::respond(answer, self.config.keep_alive).await;
        if let Some(session) = session {
            // A change the request made (its log level) is stored before it is answered.
            session.settled().await;
        }
        in_flight::until_sent(response, held)
    }

    /// `initialize`, through the service like every request: the session it opens is kept
    /// for the authenticated subject, if any, under a new `Mcp-Session-Id`, and counted
    /// against the caller of `place`.
    async fn initialize(
        &self,
        parts: http::request::Parts,
        request: IncomingRequest,
        era: Era,
        place: Place,
    ) -> Response {
        let id = request.id.clone();
        let owner = owner(&parts).map(str::to_owned);
        let request = McpRequest::new(
            request,
            era,
            TransportInfo::http(parts),
            Outbound::Discard,
            CancellationToken::new(),
        );
        let response = self.server.call_service(request).await;
        let (reply, session) = match response.into_parts() {
            (reply, Some(session)) => (reply, session),
            // Refused (by a layer, or for malformed params): no session.
            (reply, None) => return stream::json(reply),
        };
        let stored = Box::pin(self.sessions.open(&session, owner, place.caller())).await;
        match stored {
            Ok(session_id) => {
                let mut response = stream::json(reply);
                if let Ok(value) = http::HeaderValue::from_str(&session_id) {
                    response.headers_mut().insert(SESSION_ID, value);
                }
                response
            }
            Err(full) => {
                session.close();
                let caller = place.caller();
                let (status, error) = match full {
                    Full::TooMany => {
                        tracing::warn!(
                            %caller,
                            "refused a new session: the session table is full and no session can give way"
                        );
                        (
                            StatusCode::SERVICE_UNAVAILABLE,
                            McpError::internal(
                                "Service Unavailable: too many open sessions, try again later",
                            ),
                        )
                    }
                    Full::CallerShare(limit) => {
                        tracing::warn!(
                            %caller,
                            limit,
                            "refused a new session: the caller holds its share of sessions and none can give way"
                        );
                        (
                            StatusCode::TOO_MANY_REQUESTS,
                            McpError::invalid_request(format!(
                                "Too Many Requests: too many sessions for this caller (limit {limit})"
                            )),
                        )
                    }
                    Full::NoRandomness => (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        McpError::internal("Internal error: no session id could be minted"),
                    ),
                    Full::Unavailable => (
                        StatusCode::SERVICE_UNAVAILABLE,
                        McpError::internal("Service Unavailable: the session store is unavailable"),
                    ),
                };
                stream::json_with(Reply::error(Some(id), error).body, status)
            }
        }
    }
}
