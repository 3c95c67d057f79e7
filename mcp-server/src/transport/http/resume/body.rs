//! The HTTP response of one connection to a resumable stream: its events framed as
//! server-sent events by `sse-stream` (which, unlike axum's `Event`, can send the empty
//! `data` field a priming event needs), with keep-alive comments on a tokio timer.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::response::Response;
use http::HeaderValue;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use sse_stream::{KeepAlive, SseBody, Timer};
use tokio::time::Sleep;

use super::stream::Connection;

/// The SSE response serving `connection`, with a keep-alive comment every `keep_alive`.
pub(crate) fn response(connection: Connection, keep_alive: Duration) -> Response {
    let events = futures_util::stream::unfold(connection, |mut connection| async move {
        let event = connection.next().await?;
        Some((Ok::<_, Infallible>(event), connection))
    });
    let body = SseBody::new(events).with_keep_alive::<Tick>(KeepAlive::new().interval(keep_alive));
    let mut response = Response::new(Body::new(body));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The keep-alive timer: a tokio sleep that can be moved to a later deadline.
struct Tick(Pin<Box<Sleep>>);

impl Future for Tick {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl Timer for Tick {
    fn from_duration(duration: Duration) -> Self {
        Self(Box::pin(tokio::time::sleep(duration)))
    }

    fn reset(mut self: Pin<&mut Self>, deadline: Instant) {
        self.0
            .as_mut()
            .reset(tokio::time::Instant::from_std(deadline));
    }
}
