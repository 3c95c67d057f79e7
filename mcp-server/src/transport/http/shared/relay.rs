//! Resuming a stream another instance holds: a GET with `Last-Event-ID` landing on an
//! instance that did not begin the stream is relayed from the one that did, over the store's
//! messages.
//!
//! The instance the GET lands on (B) announces a [`Message::Resume`] to every instance under a
//! fresh relay id, and waits up to [`RELAY_WAIT`]. The instance holding the stream (A) resumes
//! it as it would for a GET of its own and sends its SSE body to B in numbered chunks of at
//! most [`CHUNK_BYTES`] ([`Message::RelayChunk`], then [`Message::RelayEnd`] with the count);
//! B answers the GET with them as they come. A stream A can no longer resume is refused by B as
//! A would refuse it; when no instance answers (the one that began the stream is gone), B
//! refuses with the "another instance" message; when A relays its most already, B says so.
//!
//! Flow control: B acknowledges every [`ACK_EVERY`] chunks it passed on
//! ([`Message::RelayAck`]) and A sends at most [`WINDOW`] chunks beyond the last
//! acknowledgement, so that B's queue never overflows with a slow client. A chunk lost all the
//! same (a full queue of the instance) breaks B's answer instead of ending it, and the client
//! resumes again. When B's client goes away, or B is sent a part of a relay it no longer
//! receives, B tells A to stop ([`Message::RelayCancel`]); A also stops after twice its
//! keep-alive period without an acknowledgement it waits for, and B ends the answer after as
//! long without a chunk.
//!
//! Bounded: at most [`MAX_RELAYS`] relays at once in each direction on one instance; each
//! GET also holds its caller's place of requests in flight on B.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::HeaderValue;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http_body_util::BodyExt;
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use super::super::resume::{self, Refused};
use super::super::session_store::{QUEUE, SessionStore};
use super::super::sessions::Sessions;
use super::Message;

/// How long B waits for the instance holding the stream to answer.
pub(crate) const RELAY_WAIT: Duration = Duration::from_secs(2);

/// The most bytes of one chunk's text.
pub(crate) const CHUNK_BYTES: usize = 16 * 1024;

/// The most relays one instance receives, and serves, at once.
pub(crate) const MAX_RELAYS: usize = 256;

/// How many chunks B passes on between acknowledgements.
pub(crate) const ACK_EVERY: u64 = 16;

/// How many chunks A sends beyond the last acknowledgement.
pub(crate) const WINDOW: u64 = 64;

/// The refusal when the instance holding the stream relays its most already.
const BUSY: &str = "Service Unavailable: the instance holding this stream relays too many \
                    streams at once; resume it again shortly";

/// A part of a relayed stream, as B receives it.
#[derive(Debug)]
pub(super) enum Part {
    /// A took the resume.
    Start { from: String },
    /// A cannot resume the stream (`busy`: it relays its most already).
    Refused { busy: bool },
    /// Chunk `seq` of the SSE body.
    Chunk { seq: u64, bytes: String },
    /// The stream ended after `chunks` chunks.
    End { chunks: u64 },
}

/// A relay A serves: stopped by `token`, paced by B's acknowledgements.
#[derive(Debug, Default)]
struct Serving {
    token: CancellationToken,
    acked: AtomicU64,
    acknowledged: Notify,
}

/// The relays of one instance, in both directions.
#[derive(Debug, Default)]
pub(super) struct Relays {
    /// Relays this instance receives (as B), by relay id.
    incoming: Mutex<HashMap<String, mpsc::Sender<Part>>>,
    /// Relays this instance serves (as A), by relay id.
    serving: Mutex<HashMap<String, Arc<Serving>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends `message` to the instance `to`, in a task of its own.
fn tell(store: &Arc<dyn SessionStore>, to: &str, message: &Message) {
    let Ok(bytes) = serde_json::to_vec(message) else {
        return;
    };
    let (store, to) = (Arc::clone(store), to.to_owned());
    tokio::spawn(async move {
        let _ = store.deliver(Some(&to), &bytes).await;
    });
}

impl Relays {
    /// A part for the relay `relay` this instance receives, sent by `from` (if known): when
    /// nobody receives that relay any more, `from` is told to stop.
    pub(super) fn take(
        &self,
        store: &Arc<dyn SessionStore>,
        relay: String,
        from: Option<&str>,
        part: Part,
    ) {
        let tx = lock(&self.incoming).get(&relay).cloned();
        match tx {
            // A full queue is noticed by the receiver (a gap).
            Some(tx) => drop(tx.try_send(part)),
            None => {
                if let Some(from) = from {
                    tell(store, from, &Message::RelayCancel { relay });
                }
            }
        }
    }

    /// B passed on the chunks before `upto`.
    pub(super) fn acknowledge(&self, relay: &str, upto: u64) {
        let serving = lock(&self.serving).get(relay).cloned();
        if let Some(serving) = serving {
            serving.acked.fetch_max(upto, Ordering::AcqRel);
            serving.acknowledged.notify_one();
        }
    }

    /// B's client went away: stop serving `relay`.
    pub(super) fn cancel(&self, relay: &str) {
        if let Some(serving) = lock(&self.serving).remove(relay) {
            serving.token.cancel();
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
        // Before `Start`, A is not known: a part it sends later finds no receiver and
        // brings the cancellation (see `Relays::take`).
        if let Some(from) = self.from.take() {
            let cancel = Message::RelayCancel {
                relay: self.relay.clone(),
            };
            tell(&self.store, &from, &cancel);
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
            return Err(BUSY);
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
        Ok(Some(Part::Refused { busy: true })) => return Err(BUSY),
        Ok(Some(Part::Refused { busy: false })) => return Err(Refused::Gone.message()),
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
                .flatten()?;
            match part {
                Part::Chunk { seq, bytes } if seq == expected => {
                    if (seq + 1) % ACK_EVERY == 0
                        && let Some(from) = &receiving.from
                    {
                        let upto = seq + 1;
                        let ack = Message::RelayAck {
                            relay: receiving.relay.clone(),
                            upto,
                        };
                        tell(&receiving.store, from, &ack);
                    }
                    Some((Ok(Bytes::from(bytes)), (rx, expected + 1, receiving)))
                }
                Part::End { chunks } if chunks == expected => None,
                Part::Chunk { .. } | Part::End { .. } => {
                    tracing::debug!(
                        "a relayed stream lost a chunk: breaking it (the client resumes)"
                    );
                    let lost = std::io::Error::other("a relayed chunk was lost");
                    Some((Err(lost), (rx, expected, receiving)))
                }
                Part::Start { .. } | Part::Refused { .. } => None,
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

/// What A needs to serve a relay.
pub(super) struct Request<'a> {
    pub(super) session: &'a str,
    pub(super) last_event_id: &'a str,
    pub(super) relay: String,
    pub(super) to: String,
    pub(super) keep_alive: Duration,
}

/// A: a [`Message::Resume`]: if this instance holds the stream, resumes it and sends it to
/// `to`; if it holds it but cannot resume it (or relays its most already), says so;
/// otherwise (another instance's stream) stays silent.
pub(super) fn serve(
    relays: &Arc<Relays>,
    store: &Arc<dyn SessionStore>,
    instance: &str,
    sessions: &Sessions,
    request: Request<'_>,
) {
    let Request {
        session,
        last_event_id,
        relay,
        to,
        keep_alive,
    } = request;
    let Some(live) = sessions.peek_live(session) else {
        return;
    };
    if !resume::numbered_here(&live.streams, last_event_id) {
        return;
    }
    let serving = Arc::new(Serving::default());
    let full = {
        let mut table = lock(&relays.serving);
        let full = table.len() >= MAX_RELAYS;
        if !full {
            table.insert(relay.clone(), Arc::clone(&serving));
        }
        full
    };
    if full {
        tracing::warn!("refused to relay a stream: too many relays at once");
        tell(store, &to, &Message::RelayRefused { relay, busy: true });
        return;
    }
    let response = match resume::resume(&live.streams, last_event_id, keep_alive) {
        Ok(response) => response,
        Err(_) => {
            lock(&relays.serving).remove(&relay);
            tell(store, &to, &Message::RelayRefused { relay, busy: false });
            return;
        }
    };
    let relays = Arc::clone(relays);
    let pump = Pump {
        store: Arc::clone(store),
        to,
        relay,
        from: instance.to_owned(),
        serving,
        silence: keep_alive.saturating_mul(2).saturating_add(RELAY_WAIT),
    };
    tokio::spawn(async move {
        let sent = pump.run(response).await;
        lock(&relays.serving).remove(&pump.relay);
        tracing::debug!(chunks = sent, "relayed a stream to another instance");
    });
}

/// A's side of one relay.
struct Pump {
    store: Arc<dyn SessionStore>,
    to: String,
    relay: String,
    from: String,
    serving: Arc<Serving>,
    /// How long A waits for an acknowledgement it needs.
    silence: Duration,
}

impl Pump {
    async fn send(&self, message: &Message) -> bool {
        let Ok(bytes) = serde_json::to_vec(message) else {
            return false;
        };
        self.store
            .deliver(Some(&self.to), &bytes)
            .await
            .unwrap_or(false)
    }

    /// Waits until chunk `seq` is within the window; false when stopped or B went silent.
    async fn window_open(&self, seq: u64) -> bool {
        loop {
            if seq < self.serving.acked.load(Ordering::Acquire) + WINDOW {
                return true;
            }
            let acknowledged = self.serving.acknowledged.notified();
            tokio::select! {
                () = self.serving.token.cancelled() => return false,
                waited = tokio::time::timeout(self.silence, acknowledged) => {
                    if waited.is_err() {
                        return false;
                    }
                }
            }
        }
    }

    /// Sends `Start`, then `response`'s body in chunks, then the end; stops when cancelled,
    /// when B is gone or silent. How many chunks went.
    async fn run(&self, response: Response) -> u64 {
        let start = Message::RelayStart {
            relay: self.relay.clone(),
            from: self.from.clone(),
        };
        if !self.send(&start).await {
            return 0;
        }
        let mut body = response.into_body();
        let mut seq = 0u64;
        loop {
            let frame = tokio::select! {
                () = self.serving.token.cancelled() => return seq,
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
                if !self.window_open(seq).await {
                    return seq;
                }
                let chunk = Message::RelayChunk {
                    relay: self.relay.clone(),
                    from: self.from.clone(),
                    seq,
                    bytes: piece.to_owned(),
                };
                if !self.send(&chunk).await {
                    return seq;
                }
                seq += 1;
            }
        }
        let end = Message::RelayEnd {
            relay: self.relay.clone(),
            from: self.from.clone(),
            chunks: seq,
        };
        self.send(&end).await;
        seq
    }
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
