//! Resuming a stream another instance holds: a GET with `Last-Event-ID` landing on an
//! instance that did not begin the stream is relayed from the one that did, over the store's
//! messages.
//!
//! The instance the GET lands on (B) announces a [`Message::Resume`] to every instance under a
//! fresh relay id, and waits up to [`RELAY_WAIT`]. The instance holding the stream (A) resumes
//! it as it would for a GET of its own and sends its SSE body to B in numbered chunks of at
//! most [`CHUNK_BYTES`] ([`Message::RelayChunk`], then [`Message::RelayEnd`]); B answers the
//! GET with them as they come. A stream A can no longer resume is refused by B as A would
//! refuse it; when no instance answers (the one that began the stream is gone), B refuses
//! with the "another instance" message. A chunk lost on the way (a full queue) ends B's
//! answer, and the client resumes again from the last event it got. When B's client goes
//! away, B tells A to stop ([`Message::RelayCancel`]); when A goes silent for longer than
//! twice its keep-alive period, B ends the answer.
//!
//! Bounded: at most [`MAX_RELAYS`] relays at once in each direction on one instance; each
//! GET also holds its caller's place of requests in flight on B.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::HeaderValue;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http_body_util::BodyExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::super::resume::{self, Refused};
use super::super::session_store::{QUEUE, SessionStore};
use super::super::sessions::Sessions;
use super::Message;

/// How long B waits for the instance holding the stream to answer.
pub(crate) const RELAY_WAIT: Duration = Duration::from_secs(2);

/// The most bytes of one chunk.
pub(crate) const CHUNK_BYTES: usize = 32 * 1024;

/// The most relays one instance receives, and serves, at once.
pub(crate) const MAX_RELAYS: usize = 256;

/// A part of a relayed stream, as B receives it.
#[derive(Debug)]
pub(super) enum Part {
    /// A took the resume.
    Start { from: String },
    /// A cannot resume the stream.
    Refused,
    /// Chunk `seq` of the SSE body.
    Chunk { seq: u64, bytes: String },
    /// The stream ended.
    End,
}

/// The relays of one instance, in both directions.
#[derive(Debug, Default)]
pub(super) struct Relays {
    /// Relays this instance receives (as B), by relay id.
    incoming: Mutex<HashMap<String, mpsc::Sender<Part>>>,
    /// Relays this instance serves (as A), by relay id.
    serving: Mutex<HashMap<String, CancellationToken>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Relays {
    /// A part for the relay `relay` this instance receives; dropped if nobody waits (or the
    /// queue is full: the receiver notices the gap).
    pub(super) fn take(&self, relay: &str, part: Part) {
        let tx = lock(&self.incoming).get(relay).cloned();
        if let Some(tx) = tx {
            let _ = tx.try_send(part);
        }
    }

    /// B's client went away: stop serving `relay`.
    pub(super) fn cancel(&self, relay: &str) {
        if let Some(token) = lock(&self.serving).remove(relay) {
            token.cancel();
        }
    }
}

/// The ends of a relay B receives: removed from the table, and A told to stop, when dropped.
struct Receiving {
    relays: Arc<Relays>,
    store: Arc<dyn SessionStore>,
    relay: String,
    from: Option<String>,
}

impl Drop for Receiving {
    fn drop(&mut self) {
        lock(&self.relays.incoming).remove(&self.relay);
        if let Some(from) = self.from.take() {
            let store = Arc::clone(&self.store);
            let cancel = Message::RelayCancel {
                relay: self.relay.clone(),
            };
            if let Ok(bytes) = serde_json::to_vec(&cancel) {
                tokio::spawn(async move {
                    let _ = store.deliver(Some(&from), &bytes).await;
                });
            }
        }
    }
}

/// B: the answer to a GET resuming `last_event_id` of session `session`, relayed from the
/// instance holding the stream; the refusal's message otherwise.
pub(super) async fn receive(
    relays: &Arc<Relays>,
    store: &Arc<dyn SessionStore>,
    instance: &str,
    session: &str,
    last_event_id: &str,
    keep_alive: Duration,
) -> Result<Response, &'static str> {
    let relay = super::random_name().ok_or(Refused::Elsewhere.message())?;
    let (tx, mut rx) = mpsc::channel(QUEUE);
    {
        let mut incoming = lock(&relays.incoming);
        if incoming.len() >= MAX_RELAYS {
            tracing::warn!("refused to relay a stream: too many relays at once");
            return Err(Refused::Elsewhere.message());
        }
        incoming.insert(relay.clone(), tx);
    }
    let mut receiving = Receiving {
        relays: Arc::clone(relays),
        store: Arc::clone(store),
        relay: relay.clone(),
        from: None,
    };
    let resume = Message::Resume {
        session: session.to_owned(),
        last_event_id: last_event_id.to_owned(),
        relay,
        to: instance.to_owned(),
    };
    let sent = match serde_json::to_vec(&resume) {
        Ok(bytes) => store.deliver(None, &bytes).await.unwrap_or(false),
        Err(_) => false,
    };
    if !sent {
        return Err(Refused::Elsewhere.message());
    }
    match tokio::time::timeout(RELAY_WAIT, rx.recv()).await {
        Ok(Some(Part::Start { from })) => receiving.from = Some(from),
        Ok(Some(Part::Refused)) => return Err(Refused::Gone.message()),
        _ => return Err(Refused::Elsewhere.message()),
    }
    // A sends a keep-alive at least every `keep_alive`: silence for longer means it is gone.
    let silence = keep_alive.saturating_mul(2).saturating_add(RELAY_WAIT);
    let chunks = futures_util::stream::unfold(
        (rx, 0u64, receiving),
        move |(mut rx, expected, receiving)| async move {
            let part = tokio::time::timeout(silence, rx.recv())
                .await
                .ok()
                .flatten();
            match part? {
                Part::Chunk { seq, bytes } if seq == expected => Some((
                    Ok::<_, std::convert::Infallible>(Bytes::from(bytes)),
                    (rx, expected + 1, receiving),
                )),
                Part::Chunk { .. } => {
                    tracing::debug!(
                        "a relayed stream lost a chunk: ending it (the client resumes)"
                    );
                    None
                }
                Part::End | Part::Start { .. } | Part::Refused => None,
            }
        },
    );
    let mut response = Response::new(Body::from_stream(chunks));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// A: a [`Message::Resume`] from `to` for relay `relay`: if this instance holds the stream,
/// resumes it and sends it there; if it holds it but cannot resume it, says so; otherwise
/// (another instance's stream) stays silent.
#[allow(clippy::too_many_arguments)]
pub(super) fn serve(
    relays: &Arc<Relays>,
    store: &Arc<dyn SessionStore>,
    instance: &str,
    sessions: &Sessions,
    keep_alive: Duration,
    session: &str,
    last_event_id: &str,
    relay: String,
    to: String,
) {
    let Some(live) = sessions.peek_live(session) else {
        return;
    };
    let (owned_store, owned_to) = (Arc::clone(store), to);
    let reply = move |message: Message| {
        let store = Arc::clone(&owned_store);
        let to = owned_to.clone();
        async move {
            let Ok(bytes) = serde_json::to_vec(&message) else {
                return false;
            };
            store.deliver(Some(&to), &bytes).await.unwrap_or(false)
        }
    };
    let response = match resume::resume(&live.streams, last_event_id, keep_alive) {
        Ok(response) => response,
        Err(Refused::Gone) => {
            tokio::spawn(reply(Message::RelayRefused { relay }));
            return;
        }
        // Another instance's stream (or not one of this session's: B checked that).
        Err(_) => return,
    };
    let token = CancellationToken::new();
    {
        let mut serving = lock(&relays.serving);
        if serving.len() >= MAX_RELAYS {
            tracing::warn!("refused to relay a stream: too many relays at once");
            return;
        }
        serving.insert(relay.clone(), token.clone());
    }
    let relays = Arc::clone(relays);
    let start = Message::RelayStart {
        relay: relay.clone(),
        from: instance.to_owned(),
    };
    tokio::spawn(async move {
        let served = pump(response, token, &relay, start, reply).await;
        lock(&relays.serving).remove(&relay);
        tracing::debug!(chunks = served, "relayed a stream to another instance");
    });
}

/// Sends `start`, then `response`'s body in chunks, then the end; stops when `token` fires
/// or the receiver is gone. How many chunks went.
async fn pump<F, R>(
    response: Response,
    token: CancellationToken,
    relay: &str,
    start: Message,
    reply: R,
) -> u64
where
    R: Fn(Message) -> F,
    F: std::future::Future<Output = bool>,
{
    if !reply(start).await {
        return 0;
    }
    let mut body = response.into_body();
    let mut seq = 0u64;
    loop {
        let frame = tokio::select! {
            () = token.cancelled() => return seq,
            frame = body.frame() => frame,
        };
        let Some(Ok(frame)) = frame else { break };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(&data) else {
            break;
        };
        for piece in pieces(text, CHUNK_BYTES) {
            let chunk = Message::RelayChunk {
                relay: relay.to_owned(),
                seq,
                bytes: piece.to_owned(),
            };
            if !reply(chunk).await {
                return seq;
            }
            seq += 1;
        }
    }
    reply(Message::RelayEnd {
        relay: relay.to_owned(),
    })
    .await;
    seq
}

/// `text` cut into pieces of at most `max` bytes, on character boundaries.
fn pieces(text: &str, max: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = rest.len().min(max);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        if end == 0 {
            // A character longer than `max`: whole.
            end = rest.char_indices().nth(1).map_or(rest.len(), |(at, _)| at);
        }
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn pieces_keep_characters_whole() {
        let text = "ab\u{e9}cd";
        let cut: Vec<&str> = pieces(text, 3).collect();
        assert_eq!(cut.concat(), text);
        assert!(cut.iter().all(|piece| piece.len() <= 3), "{cut:?}");
        assert_eq!(pieces("", 3).count(), 0);
        assert_eq!(
            pieces("\u{1f600}x", 2).collect::<Vec<_>>(),
            ["\u{1f600}", "x"]
        );
    }
}
