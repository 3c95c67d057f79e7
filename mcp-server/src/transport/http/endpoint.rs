//! The POST endpoint: transport checks, then the dispatcher.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use http::header::{ALLOW, CONTENT_LENGTH};
use http::{Method, StatusCode};
use http_body_util::BodyExt;
use mcp_core::McpError;
use mcp_core::jsonrpc::{IncomingMessage, IncomingRequest, parse_message};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::origin::{self, Forbidden};
use super::{HttpConfig, headers, negotiate, stream};
use crate::Server;
use crate::context::{Outbound, TransportInfo};
use crate::dispatch::{Reply, ReplyStatus};

/// Shared state of one mounted endpoint.
#[derive(Debug)]
pub(crate) struct Endpoint {
    server: Server,
    config: HttpConfig,
}

impl Endpoint {
    pub(crate) fn new(server: Server, config: HttpConfig) -> Self {
        Self { server, config }
    }
}

/// A transport-level refusal: a status and a JSON-RPC error without id.
fn refuse(status: StatusCode, message: &'static str) -> Response {
    let reply = Reply::error_with_status(None, McpError::invalid_request(message), ReplyStatus::Ok);
    let mut response = stream::json(reply);
    *response.status_mut() = status;
    response
}

pub(crate) async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if parts.method != Method::POST {
        let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
        response
            .headers_mut()
            .insert(ALLOW, http::HeaderValue::from_static("POST"));
        return response;
    }
    let authority = parts.uri.authority().map(|a| a.as_str());
    match origin::check(
        &parts.headers,
        authority,
        &endpoint.config.hosts,
        &endpoint.config.origins,
    ) {
        Ok(()) => {}
        Err(Forbidden::Host) => {
            tracing::warn!(host = ?parts.headers.get(http::header::HOST), "refused a request for a host this server does not serve");
            return refuse(StatusCode::FORBIDDEN, "Forbidden: Host not allowed");
        }
        Err(Forbidden::Origin) => {
            tracing::warn!(origin = ?parts.headers.get(http::header::ORIGIN), "refused a request from a foreign origin");
            return refuse(StatusCode::FORBIDDEN, "Forbidden: Origin not allowed");
        }
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
    let bytes = match read_body(&parts.headers, body, endpoint.config.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    match parse_message(&bytes) {
        Err(error) => stream::json(Reply::error(error.id.clone(), error.error)),
        Ok(IncomingMessage::Notification(_)) => StatusCode::ACCEPTED.into_response(),
        Ok(IncomingMessage::Response { id }) => stream::json(Reply::error(
            id,
            McpError::invalid_request(
                "Invalid request: clients do not send responses to a 2026-07-28 server",
            ),
        )),
        Ok(IncomingMessage::Request(request)) => endpoint.request(parts, request, accepts).await,
    }
}

/// How much of an oversized body is read and discarded, and for how long at most, before
/// answering 413: a client that uploads the whole body in one go then reads the answer
/// instead of a broken pipe, and a client that stalls holds the server for no longer.
const DRAIN_BYTES: usize = 16 * 1024 * 1024;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_millis(500);

/// Reads the body up to the limit; 413 beyond it.
async fn read_body(
    headers: &http::HeaderMap,
    mut body: Body,
    limit: usize,
) -> Result<Bytes, Response> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut collected = BytesMut::new();
    if declared.is_none_or(|len| len <= limit as u64) {
        loop {
            match body.frame().await {
                None => return Ok(collected.freeze()),
                Some(Err(_)) => {
                    return Err(refuse(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: the body could not be read",
                    ));
                }
                Some(Ok(frame)) => {
                    let Ok(data) = frame.into_data() else {
                        continue;
                    };
                    if collected.len() + data.len() > limit {
                        break;
                    }
                    collected.extend_from_slice(&data);
                }
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
    async fn request(
        &self,
        parts: http::request::Parts,
        request: IncomingRequest,
        accepts: negotiate::Accepts,
    ) -> Response {
        let checked = match self.server.check_meta(request) {
            Ok(checked) => checked,
            Err(reply) => return stream::json(reply),
        };
        if let Err(error) = headers::check(&parts.headers, &checked) {
            return stream::json(Reply::error(Some(checked.request.id), error));
        }
        let id = checked.request.id.clone();
        let token = CancellationToken::new();
        let cancel_on_drop = token.clone().drop_guard();
        let (outbound, notifications) = if accepts.sse {
            let (tx, rx) = mpsc::channel(64);
            (Outbound::Channel(tx), Some(rx))
        } else {
            (Outbound::Discard, None)
        };
        let server = self.server.clone();
        let transport = TransportInfo::http(parts);
        let reply =
            Box::pin(async move { server.dispatch(checked, transport, outbound, token).await });
        stream::respond(
            reply,
            notifications,
            accepts.json,
            id,
            cancel_on_drop,
            self.config.keep_alive,
        )
        .await
    }
}
