//! Answering one request: a JSON body when the handler finishes without notifying, or an
//! SSE stream (notifications, then the response) as soon as it sends its first
//! notification. Every request of either era is answered here; only where an SSE answer's
//! events go differs: a stream of its own, which dropping (the client went away) cancels
//! the handler, or a 2025-11-25 session's resumable stream ([`super::resume`]), which
//! outlives its connection.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderValue};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};
use typemcp_core::RequestId;

use super::in_flight::Held;
use super::resume::Resumable;
use super::status;
use crate::Server;
use crate::dispatch::{Reply, Verdict};
use crate::service::McpRequest;

/// A reply as a JSON response, its status following what it reports.
pub(crate) fn json(reply: Reply) -> Response {
    let status = status::of(reply.verdict);
    json_with(reply.body, status)
}

/// A JSON body with an explicit status.
pub(crate) fn json_with(body: Bytes, status: StatusCode) -> Response {
    let mut response = (status, body).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A reply as a JSON response; an empty body (a request the client cancelled, which gets no
/// response) as `202 Accepted` without one.
fn json_or_nothing(reply: Reply, status: fn(Verdict) -> StatusCode) -> Response {
    if reply.body.is_empty() {
        StatusCode::ACCEPTED.into_response()
    } else {
        json_with(reply.body, status(reply.verdict))
    }
}

type ReplyFuture = Pin<Box<dyn Future<Output = Reply> + Send>>;

/// Serves `request` through the service, holding `held` (its caller's place, its session)
/// until the handler is done, even when the answer's stream went away. A request of a session
/// whose client cancelled it (`cancelled`) gets no response: an empty body.
pub(crate) fn serve(
    server: Server,
    request: McpRequest,
    held: Arc<Held>,
    cancelled: Option<CancellationToken>,
) -> ReplyFuture {
    Box::pin(async move {
        let _held = held;
        let mut reply = server.call_service(request).await.into_reply();
        if cancelled.is_some_and(|token| token.is_cancelled()) {
            reply.body = Bytes::new();
        }
        reply
    })
}

/// What [`respond`] needs of the request being served.
pub(crate) struct Answer {
    /// The request's reply, once the handler is done.
    pub(crate) reply: ReplyFuture,
    /// The status of a JSON answer, from what its reply reports.
    pub(crate) status: fn(Verdict) -> StatusCode,
    /// The handler's messages, when the client accepts SSE.
    pub(crate) notifications: Option<mpsc::Receiver<Bytes>>,
    /// Whether the client accepts a JSON answer.
    pub(crate) json_allowed: bool,
    pub(crate) id: RequestId,
    /// Cancels the handler when dropped (a plain stream that went away), unless disarmed.
    pub(crate) cancel_on_drop: DropGuard,
    /// A 2025-11-25 session's resumable stream for the events, if any.
    pub(crate) resumable: Option<Resumable>,
}

/// Runs the request and answers with JSON or SSE, whichever fits.
pub(crate) async fn respond(answer: Answer, keep_alive: Duration) -> Response {
    let Answer {
        mut reply,
        status,
        notifications,
        json_allowed,
        id,
        cancel_on_drop,
        resumable,
    } = answer;
    let Some(mut rx) = notifications else {
        let response = json_or_nothing(reply.await, status);
        drop(cancel_on_drop.disarm());
        return response;
    };
    let mut pending = VecDeque::new();
    let mut done = None;
    if json_allowed {
        // A stream's close request is a message too: it makes the answer a stream.
        tokio::select! {
            biased;
            finished = &mut reply => {
                // Notifications queued before the handler finished still go first, on a stream.
                while let Ok(message) = rx.try_recv() {
                    pending.push_back(message);
                }
                if pending.is_empty() {
                    drop(cancel_on_drop.disarm());
                    return json_or_nothing(finished, status);
                }
                done = Some(finished);
            }
            Some(first) = rx.recv() => pending.push_back(first),
        }
    }
    if let Some(resumable) = resumable {
        let task = match done {
            Some(finished) => tokio::spawn(std::future::ready(finished)),
            None => tokio::spawn(reply),
        };
        return resumable.answer(pending, rx, task, id, cancel_on_drop, keep_alive);
    }
    match done {
        Some(finished) => {
            drop(cancel_on_drop.disarm());
            if !finished.body.is_empty() {
                pending.push_back(finished.body);
            }
            let nothing_to_cancel = CancellationToken::new().drop_guard();
            sse(pending, rx, None, id, nothing_to_cancel, keep_alive)
        }
        None => sse(
            pending,
            rx,
            Some(tokio::spawn(reply)),
            id,
            cancel_on_drop,
            keep_alive,
        ),
    }
}

fn sse(
    pending: VecDeque<Bytes>,
    rx: mpsc::Receiver<Bytes>,
    task: Option<JoinHandle<Reply>>,
    id: RequestId,
    cancel_on_drop: DropGuard,
    keep_alive: Duration,
) -> Response {
    let stream = EventStream {
        pending,
        rx,
        task,
        id,
        _cancel_on_drop: cancel_on_drop,
    };
    let mut response = Sse::new(futures_util::stream::unfold(stream, EventStream::next))
        .keep_alive(KeepAlive::new().interval(keep_alive))
        .into_response();
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The events of one request's stream.
struct EventStream {
    pending: VecDeque<Bytes>,
    rx: mpsc::Receiver<Bytes>,
    /// The running request; `None` once its response is queued.
    task: Option<JoinHandle<Reply>>,
    id: RequestId,
    _cancel_on_drop: DropGuard,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl EventStream {
    async fn next(mut self) -> Option<(Result<Event, Infallible>, Self)> {
        loop {
            if let Some(message) = self.pending.pop_front() {
                return Some((Ok(event(&message)), self));
            }
            let task = self.task.as_mut()?;
            tokio::select! {
                biased;
                Some(message) = self.rx.recv() => self.pending.push_back(message),
                done = task => {
                    self.task = None;
                    // Notifications sent before the response come first.
                    while let Ok(message) = self.rx.try_recv() {
                        self.pending.push_back(message);
                    }
                    let body = done.map(|reply| reply.body).unwrap_or_else(|err| {
                        let error = internal_error!(
                            request_id = %self.id,
                            error = %err,
                            "a request's task ended without a response"
                        );
                        Reply::error(Some(self.id.clone()), error).body
                    });
                    // An empty body: the request was cancelled, and gets no response.
                    if !body.is_empty() {
                        self.pending.push_back(body);
                    }
                }
            }
        }
    }
}

fn event(message: &Bytes) -> Event {
    Event::default().data(String::from_utf8_lossy(message))
}
