//! The producers of resumable streams: the task that feeds a request's stream (what its
//! handler sends, in order, then the response) and the one that feeds the session's GET
//! stream (its notifications outside any request). They run apart from any connection, so a
//! stream goes on while no client is connected, until the session ends or gives it up.

use std::collections::VecDeque;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};
use typemcp_core::RequestId;

use super::Streams;
use super::stream::{Pushed, Stream};
use crate::dispatch::Reply;

/// The message a handler's close request travels as, on the channel of its messages, so
/// that it takes effect after what the handler sent before it and before what comes after.
/// Never a JSON-RPC message (those are never empty), and only ever sent on the channel of a
/// resumable stream, whose producer is the only reader.
pub(crate) const CLOSE_REQUEST: Bytes = Bytes::new();

/// Takes in one message from the handler: an event, or its close request; `false` when the
/// session ended first.
async fn take(stream: &Stream, message: Bytes, closed: &CancellationToken) -> bool {
    if message.is_empty() {
        stream.apply_close();
        true
    } else {
        stream.push(message, closed).await
    }
}

/// Feeds a request's stream: `pending` first, then what the handler sends on `rx`, then
/// its response. Ends the request (cancelled) when the session ends or gives the stream up
/// first; a client that went away does not cancel it (it may resume),
/// `notifications/cancelled` does.
pub(crate) async fn request(
    stream: Arc<Stream>,
    pending: VecDeque<Bytes>,
    mut rx: mpsc::Receiver<Bytes>,
    mut task: JoinHandle<Reply>,
    id: RequestId,
    cancel_on_drop: DropGuard,
) {
    let closed = stream.ended().clone();
    let mut fed = true;
    for message in pending {
        fed = fed && take(&stream, message, &closed).await;
    }
    while fed {
        tokio::select! {
            biased;
            () = closed.cancelled() => break,
            Some(message) = rx.recv() => fed = take(&stream, message, &closed).await,
            done = &mut task => {
                drop(cancel_on_drop.disarm());
                // Messages sent before the response come first.
                while let Ok(message) = rx.try_recv() {
                    take(&stream, message, &closed).await;
                }
                let body = done.map(|reply| reply.body).unwrap_or_else(|err| {
                    let error = internal_error!(
                        request_id = %id,
                        error = %err,
                        "a request's task ended without a response"
                    );
                    Reply::error(Some(id), error).body
                });
                // An empty body: the request was cancelled, and gets no response.
                if !body.is_empty() {
                    stream.push(body, &closed).await;
                }
                stream.finish();
                return;
            }
        }
    }
    // The session ended, or gave the stream up: the request is cancelled (dropping the
    // guard) and stopped.
    task.abort();
    stream.finish();
}

/// Feeds the session's GET stream from its notification sink until the sink is replaced
/// or the session ends. A stream nobody reads is given up once its buffer is full, or once
/// an event cannot be kept with no connection serving it, or once it is released for room
/// (the sink then fails, and the session forgets it).
pub(crate) async fn session(
    stream: Arc<Stream>,
    streams: Arc<Streams>,
    mut rx: mpsc::Receiver<Bytes>,
) {
    let closed = stream.ended().clone();
    loop {
        let message = tokio::select! {
            () = closed.cancelled() => None,
            message = rx.recv() => message,
        };
        match message.map(|message| stream.try_push(&message)) {
            Some(Pushed::Kept | Pushed::Passed) => {}
            // Full (nobody reads), lost (nobody connected) or released: given up.
            Some(Pushed::Lost | Pushed::Full) | None => break,
        }
    }
    drop(rx);
    stream.finish();
    if stream.finished_unattached() {
        streams.forget(stream.number());
    }
}
