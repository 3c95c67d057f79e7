//! Streamable HTTP: each request is a `POST` to the server's endpoint, answered with one JSON
//! message or with a stream of server-sent events that ends with the answer (and may carry
//! the server's notifications and, in a 2025-11-25 session, its own requests, answered by
//! `POST`s of their own).
//!
//! - **Headers**: `MCP-Protocol-Version` once a revision is spoken, `Mcp-Method` on every
//!   request and `Mcp-Name` on `tools/call`, `prompts/get` and `resources/read` (SEP-2243),
//!   the request's own headers (`Mcp-Param-*`), the user's (`Authorization`), and
//!   `Mcp-Session-Id` once a server handed one out.
//! - **Resumption**: a stream that ends before its answer, after an event with an id, is
//!   resumed with a `GET` carrying `Last-Event-ID`, after the server's `retry` delay (SEP-1699).
//! - **Bounds**: a JSON answer or an error body is at most [`MAX_MESSAGE_BYTES`]; one event
//!   stream at most [`MAX_STREAM_BYTES`] in all; at most [`MAX_RESUMPTIONS`] resumptions per
//!   request, each after at most [`MAX_RETRY`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{StreamExt, TryStreamExt};
use http::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming as Body;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value, json};
use sse_stream::SseStream;
use tokio::sync::Semaphore;
use typemcp_core::protocol::{ProtocolVersion, methods, param_headers, task_methods};
use typemcp_core::{ErrorCode, McpError};

use super::{Inbound, Incoming, MAX_MESSAGE_BYTES, MAX_SERVER_REQUESTS, Outgoing, classify};
use crate::error::ClientError;

/// The most bytes one event stream may carry in all (64 MiB).
pub(crate) const MAX_STREAM_BYTES: usize = 4 * MAX_MESSAGE_BYTES;

/// How many times one request's stream is resumed before the request fails.
pub(crate) const MAX_RESUMPTIONS: u32 = 8;

/// The longest `retry` delay honoured (a larger one is cut to this).
pub(crate) const MAX_RETRY: Duration = Duration::from_secs(30);

/// The delay before resuming a stream whose server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The shortest delay before the session's own stream is opened again, whatever `retry` the
/// server gives (a server that ends every stream at once is not asked again in a busy loop).
const MIN_REOPEN: Duration = Duration::from_millis(250);

/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// A client's Streamable HTTP connection to one endpoint.
#[derive(Debug, Clone)]
pub(crate) struct HttpConnection {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    http: HyperClient<HttpConnector, Full<Bytes>>,
    endpoint: Uri,
    /// The user's headers, sent on every request.
    headers: HeaderMap,
    /// The revision spoken, once known.
    version: Mutex<Option<HeaderValue>>,
    /// The session the server handed out, if any.
    session: Mutex<Option<HeaderValue>>,
    inbound: Inbound,
    answering: Arc<Semaphore>,
}

fn read<T: Clone>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

fn write<T>(slot: &Mutex<Option<T>>, value: Option<T>) {
    *slot.lock().unwrap_or_else(PoisonError::into_inner) = value;
}

impl HttpConnection {
    /// A connection to `endpoint` (an `http://` URL), sending `headers` on every request.
    pub(crate) fn new(
        endpoint: &str,
        headers: HeaderMap,
        inbound: Inbound,
    ) -> Result<Self, ClientError> {
        let endpoint: Uri = endpoint.parse().map_err(|error| ClientError::Endpoint {
            endpoint: endpoint.to_owned(),
            reason: format!("not a URL: {error}"),
        })?;
        if endpoint.scheme_str() != Some("http") || endpoint.host().is_none() {
            return Err(ClientError::Endpoint {
                endpoint: endpoint.to_string(),
                reason: "only http:// URLs with a host are supported (no TLS in this client yet)"
                    .to_owned(),
            });
        }
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(CONNECT_TIMEOUT));
        connector.set_nodelay(true);
        let http = HyperClient::builder(TokioExecutor::new()).build(connector);
        Ok(Self {
            shared: Arc::new(Shared {
                http,
                endpoint,
                headers,
                version: Mutex::new(None),
                session: Mutex::new(None),
                inbound,
                answering: Arc::new(Semaphore::new(MAX_SERVER_REQUESTS)),
            }),
        })
    }

    /// Sends `MCP-Protocol-Version: version` from now on (`None`: no such header).
    pub(crate) fn speak(&self, version: Option<&str>) {
        let version = version.and_then(|version| HeaderValue::from_str(version).ok());
        write(&self.shared.version, version);
    }

    /// Whether it speaks the 2026-07-28 wire: no server requests, no resumption, and
    /// cancellation by closing the request's stream.
    pub(crate) fn is_modern(&self) -> bool {
        read(&self.shared.version).is_some_and(|v| v == ProtocolVersion::V2026_07_28)
    }

    /// Sends `request` and waits for its answer.
    pub(crate) async fn request(&self, request: Outgoing<'_>) -> Result<Value, ClientError> {
        let id = request.id;
        // `Mcp-Name` (SEP-2243): what the request is about.
        let name = match request.method {
            methods::TOOLS_CALL | methods::PROMPTS_GET => request.params.get("name"),
            methods::RESOURCES_READ => request.params.get("uri"),
            method if task_methods::is_task_request(method) => request.params.get("taskId"),
            _ => None,
        }
        // Spelled as a mirrored argument is: as it is, or `=?base64?…?=` when it is not
        // printable ASCII.
        .and_then(param_headers::header_value);
        let message =
            json!({"jsonrpc": "2.0", "id": id, "method": request.method, "params": request.params});
        let mut extra = Vec::with_capacity(request.headers.len() + 1);
        if let Some(name) = name {
            extra.push((MCP_NAME.as_str().to_owned(), name));
        }
        extra.extend(request.headers);
        // Read once: the session the request goes in is the one a 404 says has ended.
        let sent_session = read(&self.shared.session);
        let response = self
            .post_in(Some(request.method), &message, &extra, sent_session.clone())
            .await?;
        if request.method == "initialize" {
            self.keep_session(&response);
        }
        let status = response.status();
        if let Some(sent) = sent_session.filter(|_| status == StatusCode::NOT_FOUND) {
            // A 404 naming an unknown method is the server's answer (a server of both eras
            // may answer so); any other 404 in a session says the server ended it (it
            // expired, or was deleted): forget it, unless another request already opened
            // the next one, so the client starts a new one.
            let refused = refusal(status, response).await;
            if matches!(&refused, ClientError::Server(error) if error.code == ErrorCode::METHOD_NOT_FOUND)
            {
                return Err(refused);
            }
            let mut session = self
                .shared
                .session
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if session.as_ref() == Some(&sent) {
                *session = None;
            }
            return Err(ClientError::SessionEnded);
        }
        if status == StatusCode::ACCEPTED {
            return Err(malformed(
                request.method,
                "the server accepted the request without answering it",
            ));
        }
        if !status.is_success() {
            return Err(refusal(status, response).await);
        }
        if is_event_stream(response.headers()) {
            return self.answer_on_stream(id, response).await;
        }
        let body = read_body(response, MAX_MESSAGE_BYTES).await?;
        let message: Value = serde_json::from_slice(&body)
            .map_err(|error| malformed(request.method, &format!("not JSON: {error}")))?;
        match message {
            Value::Object(message) => match classify(message, body.len()) {
                Incoming::Response {
                    id: Some(answered),
                    outcome,
                } if answered == id => outcome.map_err(ClientError::Server),
                _ => Err(malformed(
                    request.method,
                    "the JSON body is not the answer to this request",
                )),
            },
            _ => Err(malformed(request.method, "the JSON body is not an object")),
        }
    }

    /// Sends the notification `method` with `params`.
    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let response = self.post(Some(method), &message, &[]).await?;
        match response.status() {
            status if status.is_success() => Ok(()),
            status => Err(refusal(status, response).await),
        }
    }

    /// Deletes the session on the server, if there is one (a server that does not allow it
    /// answers 405, which is not an error).
    pub(crate) async fn close(&self) -> Result<(), ClientError> {
        let Some(session) = read(&self.shared.session) else {
            return Ok(());
        };
        let mut request = self.base(Method::DELETE);
        request.headers_mut().insert(MCP_SESSION_ID, session);
        let response = self.send(request).await?;
        write(&self.shared.session, None);
        match response.status() {
            status if status.is_success() || status == StatusCode::METHOD_NOT_ALLOWED => Ok(()),
            status => Err(refusal(status, response).await),
        }
    }

    /// A request to the endpoint with the headers every request carries.
    fn base(&self, method: Method) -> Request<Full<Bytes>> {
        self.base_in(method, read(&self.shared.session))
    }

    /// [`base`](Self::base), in `session` (none when `None`).
    fn base_in(&self, method: Method, session: Option<HeaderValue>) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = method;
        *request.uri_mut() = self.shared.endpoint.clone();
        let headers = request.headers_mut();
        headers.extend(self.shared.headers.clone());
        if let Some(version) = read(&self.shared.version) {
            headers.insert(MCP_PROTOCOL_VERSION, version);
        }
        if let Some(session) = session {
            headers.insert(MCP_SESSION_ID, session);
        }
        request
    }

    /// `POST`s one JSON-RPC message: a request or notification of `method`, or (`None`) a
    /// response.
    async fn post(
        &self,
        method: Option<&str>,
        message: &Value,
        extra: &[(String, String)],
    ) -> Result<Response<Body>, ClientError> {
        let session = read(&self.shared.session);
        self.post_in(method, message, extra, session).await
    }

    /// [`post`](Self::post), in `session`.
    async fn post_in(
        &self,
        method: Option<&str>,
        message: &Value,
        extra: &[(String, String)],
        session: Option<HeaderValue>,
    ) -> Result<Response<Body>, ClientError> {
        let mut request = self.base_in(Method::POST, session);
        *request.body_mut() = Full::new(Bytes::from(message.to_string()));
        let headers = request.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Some(value) = method.and_then(|method| HeaderValue::from_str(method).ok()) {
            headers.insert(MCP_METHOD, value);
        }
        for (name, value) in extra {
            let (Ok(name), Ok(value)) = (
                HeaderName::try_from(name.as_str()),
                HeaderValue::from_str(value),
            ) else {
                return Err(malformed(
                    method.unwrap_or("a response"),
                    &format!("the header {name:?} cannot be sent as it is"),
                ));
            };
            headers.insert(name, value);
        }
        self.send(request).await
    }

    async fn send(&self, request: Request<Full<Bytes>>) -> Result<Response<Body>, ClientError> {
        self.shared
            .http
            .request(request)
            .await
            .map_err(|error| ClientError::Io(std::io::Error::other(error)))
    }

    /// Keeps the session id the server hands out with its answer to `initialize`.
    fn keep_session(&self, response: &Response<Body>) {
        let session = response.headers().get(MCP_SESSION_ID).cloned();
        write(&self.shared.session, session);
    }

    /// The session the server handed out, if any.
    pub(crate) fn session(&self) -> Option<String> {
        read(&self.shared.session).and_then(|id| id.to_str().ok().map(str::to_owned))
    }

    /// Reads an event stream until the answer to request `id` (resuming it when it ends
    /// early), answering the server's requests on the way.
    async fn answer_on_stream(
        &self,
        id: u64,
        response: Response<Body>,
    ) -> Result<Value, ClientError> {
        let mut body = response.into_body();
        let mut last_event: Option<String> = None;
        let mut retry = DEFAULT_RETRY;
        let mut resumptions = 0;
        loop {
            let resumed_at = last_event.clone();
            let mut events = std::pin::pin!(events_of(body));
            while let Some(event) = events.next().await {
                let event = match event {
                    Ok(event) => event,
                    Err(error) => {
                        tracing::debug!(%error, "an event stream of the server's ended");
                        break;
                    }
                };
                if let Some(event_id) = event.id {
                    last_event = Some(event_id);
                }
                if let Some(millis) = event.retry {
                    retry = Duration::from_millis(millis).min(MAX_RETRY);
                }
                let Some(message) = event.data.as_deref().and_then(message_of) else {
                    continue;
                };
                match message {
                    Incoming::Response {
                        id: Some(answered),
                        outcome,
                    } if answered == id => return outcome.map_err(ClientError::Server),
                    Incoming::Response { .. } => {
                        tracing::debug!("an answer to another request on this stream");
                    }
                    Incoming::Request { method, .. } if self.is_modern() => {
                        tracing::warn!(%method, "a server request on the 2026-07-28 wire, which has none: ignored");
                    }
                    Incoming::Request { id, method, params } => self.answer(id, method, params),
                    Incoming::Notification {
                        method,
                        params,
                        bytes,
                    } => {
                        self.shared.inbound.notified(method, params, bytes);
                    }
                }
            }
            // The 2026-07-28 wire has no resumption: a stream that ends early is the end.
            let Some(event_id) = last_event.clone().filter(|_| !self.is_modern()) else {
                return Err(ClientError::Closed);
            };
            // A stream that brought new events counts as progress: only resumptions in a row
            // that bring nothing count toward the limit.
            resumptions = if last_event == resumed_at {
                resumptions + 1
            } else {
                1
            };
            if resumptions > MAX_RESUMPTIONS {
                return Err(ClientError::Closed);
            }
            tokio::time::sleep(retry).await;
            body = self.resume(&event_id).await?;
        }
    }

    /// Opens the session's own event stream (a `GET`), on which a 2025-11-25 server sends the
    /// requests and notifications that belong to no request of the client's, and keeps it
    /// open: resumed with `Last-Event-ID` when it ends, until [`MAX_RESUMPTIONS`] attempts in
    /// a row bring nothing. A server without one (405) is left alone. The task ends when the
    /// returned handle is dropped.
    ///
    /// The first `GET` is answered (within `wait`) before this returns, so before the client's
    /// next request goes out: a server that sends a request of its own on this stream while
    /// no stream is open drops it (the TypeScript SDK's does), and the call waiting on the
    /// answer would wait forever.
    pub(crate) async fn listen(&self, wait: Duration) -> AbortOnDrop {
        // The `GET` is never dropped for being slow (a server may hold its headers until its
        // first event, and refuse a second stream while it thinks the first open): past
        // `wait`, the client goes on and the stream opens when it opens.
        let (answered, on_answer) = tokio::sync::oneshot::channel::<()>();
        let connection = self.clone();
        let task = tokio::spawn(async move {
            let mut last_event: Option<String> = None;
            let mut retry = DEFAULT_RETRY;
            let mut fruitless = 0;
            let mut answered = Some(answered);
            while fruitless < MAX_RESUMPTIONS {
                let attempt = connection.open_stream(last_event.as_deref()).await;
                if let Some(answered) = answered.take() {
                    let _ = answered.send(());
                }
                let body = match attempt {
                    Ok(Some(body)) => body,
                    Ok(None) => return,
                    Err(error) => {
                        tracing::debug!(%error, "the session's event stream could not be opened");
                        fruitless += 1;
                        tokio::time::sleep(retry.max(MIN_REOPEN)).await;
                        continue;
                    }
                };
                let mut events = std::pin::pin!(events_of(body));
                let mut fruitful = false;
                while let Some(event) = events.next().await {
                    let Ok(event) = event else { break };
                    fruitful = true;
                    if let Some(event_id) = event.id {
                        last_event = Some(event_id);
                    }
                    if let Some(millis) = event.retry {
                        retry = Duration::from_millis(millis).min(MAX_RETRY);
                    }
                    match event.data.as_deref().and_then(message_of) {
                        Some(Incoming::Request { id, method, params }) => {
                            connection.answer(id, method, params);
                        }
                        Some(Incoming::Notification {
                            method,
                            params,
                            bytes,
                        }) => {
                            connection.shared.inbound.notified(method, params, bytes);
                        }
                        _ => {}
                    }
                }
                fruitless = if fruitful { 0 } else { fruitless + 1 };
                tokio::time::sleep(retry.max(MIN_REOPEN)).await;
            }
        });
        let _ = tokio::time::timeout(wait, on_answer).await;
        AbortOnDrop(task.abort_handle())
    }

    /// A `GET` of the session's event stream (after `last_event`, if given): its body, or
    /// `None` when the server offers no such stream.
    async fn open_stream(&self, last_event: Option<&str>) -> Result<Option<Body>, ClientError> {
        let mut request = self.base(Method::GET);
        let headers = request.headers_mut();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(last) = last_event.and_then(|last| HeaderValue::from_str(last).ok()) {
            headers.insert(LAST_EVENT_ID, last);
        }
        let response = self.send(request).await?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED || status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() || !is_event_stream(response.headers()) {
            return Err(refusal(status, response).await);
        }
        Ok(Some(response.into_body()))
    }

    /// Resumes a stream after the event `last_event`.
    async fn resume(&self, last_event: &str) -> Result<Body, ClientError> {
        let mut request = self.base(Method::GET);
        let headers = request.headers_mut();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let last = HeaderValue::from_str(last_event).map_err(|_| ClientError::Closed)?;
        headers.insert(LAST_EVENT_ID, last);
        let response = self.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            return Err(refusal(status, response).await);
        }
        if !is_event_stream(response.headers()) {
            return Err(ClientError::Closed);
        }
        Ok(response.into_body())
    }

    /// Answers one request of the server's on a task of its own, `POST`ing the response.
    fn answer(&self, id: Value, method: String, params: Value) {
        let connection = self.clone();
        let place = Arc::clone(&self.shared.answering).try_acquire_owned();
        tokio::spawn(async move {
            let reply = match place {
                Err(_) => {
                    let error = McpError::internal("too many requests of the server's at once");
                    json!({"jsonrpc": "2.0", "id": id, "error": error})
                }
                Ok(_place) => match (connection.shared.inbound.requests)(method, params).await {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                },
            };
            match connection.post(None, &reply, &[]).await {
                Ok(response) if response.status().is_success() => {}
                Ok(response) => tracing::warn!(
                    status = %response.status(),
                    "the server refused the answer to its request"
                ),
                Err(error) => {
                    tracing::warn!(%error, "the answer to a request of the server's was not delivered")
                }
            }
        });
    }
}

/// Aborts a task when dropped.
#[derive(Debug)]
pub(crate) struct AbortOnDrop(tokio::task::AbortHandle);

impl AbortOnDrop {
    /// Aborts the task of `handle` when dropped.
    pub(crate) fn new(handle: tokio::task::AbortHandle) -> Self {
        Self(handle)
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The events of an event stream, at most [`MAX_STREAM_BYTES`] in all.
fn events_of(
    body: Body,
) -> impl futures_util::Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> {
    let bytes = Limited::new(body, MAX_STREAM_BYTES)
        .into_data_stream()
        .map_err(std::io::Error::other);
    SseStream::from_bytes_stream(bytes)
}

/// The JSON-RPC message an event carries, if it is one within [`MAX_MESSAGE_BYTES`].
fn message_of(data: &str) -> Option<Incoming> {
    if data.len() > MAX_MESSAGE_BYTES {
        tracing::warn!("the server sent an event larger than 16 MiB");
        return None;
    }
    match serde_json::from_str::<Value>(data) {
        Ok(Value::Object(message)) => Some(classify(message, data.len())),
        _ => None,
    }
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("text/event-stream"))
}

/// The body of `response`, at most `limit` bytes.
async fn read_body(response: Response<Body>, limit: usize) -> Result<Bytes, ClientError> {
    Limited::new(response.into_body(), limit)
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .map_err(|error| ClientError::Io(std::io::Error::other(error)))
}

/// The error a refused request fails with: the JSON-RPC error in the body, if there is one
/// (a `-32022` of a 400, say), else the status.
async fn refusal(status: StatusCode, response: Response<Body>) -> ClientError {
    let body = read_body(response, 64 * 1024).await.unwrap_or_default();
    let error = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|mut message| message.get_mut("error").map(Value::take))
        .and_then(|error| serde_json::from_value::<McpError>(error).ok());
    match error {
        Some(error) => ClientError::Server(error),
        None => ClientError::Http {
            status: status.as_u16(),
            body: String::from_utf8_lossy(&body).chars().take(512).collect(),
        },
    }
}

fn malformed(method: &str, reason: &str) -> ClientError {
    ClientError::Malformed {
        method: method.to_owned(),
        reason: reason.to_owned(),
    }
}
