//! One resumable stream of a 2025-11-25 session: its events, produced independently of any
//! HTTP connection (by the tasks of [`super::pump`]), and the connections that deliver them
//! in turn.
//!
//! A connection reads the events after its cursor. At most one connection serves a stream:
//! a resume takes the stream over from the previous connection, and the handler's close
//! request ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream),
//! applied by the producer in order with the handler's messages) ends the current one once
//! it delivered what came before, while the stream goes on, to be resumed with
//! `Last-Event-ID`.
//!
//! The stream's kept events hold room in its session's and the endpoint's byte budgets
//! ([`super::budget`]). While no connection serves it, the stream can be released to make
//! room for another: its events are dropped, and none is kept from then on, but its producer
//! (and so its request) goes on; a resume of it is refused.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use bytes::Bytes;
use sse_stream::Sse;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::Streams;
use super::budget::{ByteBudget, Release, Room};
use super::buffer::Replay;
use super::event_id::{EventId, Tag};

/// One stream's events and the connection serving it.
#[derive(Debug)]
pub(crate) struct Stream {
    tag: Tag,
    number: u64,
    /// Fires when the session ends, or when the session gives the stream up: its producer
    /// stops (a request is cancelled).
    ended: CancellationToken,
    inner: Mutex<Inner>,
    /// Signalled on every change, for connections and a producer waiting for room.
    changed: watch::Sender<()>,
    /// The budgets its kept events hold room in (the session's, the endpoint's), and its
    /// key as a holder in each.
    budgets: [(Arc<ByteBudget>, u64); 2],
}

#[derive(Debug)]
struct Inner {
    replay: Replay,
    /// No more events will come.
    finished: bool,
    /// The number of the connection allowed to serve the stream; each new connection, and
    /// each close, moves it on.
    generation: u64,
    /// Whether the connection of `generation` is still there.
    attached: bool,
    /// Whether the request's answer became an SSE stream (before that, it may still be
    /// a JSON body).
    started: bool,
    /// The connection of `generation` ends once it sent the events up to this one.
    close_after: Option<u64>,
    /// Released for room: nothing is kept, and it cannot be resumed.
    released: bool,
}

impl Inner {
    /// The connection of `generation` is gone: an event passed on to it goes too.
    fn detach(&mut self) {
        self.attached = false;
        self.replay.drop_passed();
    }
}

/// What became of an event given to a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Kept for replay, and sent to the connection serving the stream, if any.
    Kept,
    /// Over the budgets: handed to the connection serving the stream, not kept for replay.
    Passed,
    /// Over the budgets with no connection to take it, or the stream was released: not
    /// kept; a resume from before it is refused.
    Lost,
    /// Not taken yet: the stream's own bound is full of events not sent, or an event passed
    /// on still waits for its connection. Waiting helps.
    Full,
}

/// Why a `Last-Event-ID` cannot resume its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gone;

impl Stream {
    /// Stream `number` of the session tagged `tag`, ended by `ended`, keeping at most
    /// `limit` bytes of events, held in the `session` and `endpoint` budgets.
    pub(crate) fn new(
        tag: Tag,
        number: u64,
        limit: usize,
        ended: CancellationToken,
        [session, endpoint]: [&Arc<ByteBudget>; 2],
    ) -> Arc<Self> {
        Arc::new_cyclic(|this: &Weak<Self>| {
            let holder: Weak<dyn Release> = this.clone();
            let enlist = |budget: &Arc<ByteBudget>| {
                let key = budget.enlist(Weak::clone(&holder));
                (Arc::clone(budget), key)
            };
            Self {
                tag,
                number,
                ended,
                inner: Mutex::new(Inner {
                    replay: Replay::new(limit),
                    finished: false,
                    generation: 0,
                    attached: false,
                    started: false,
                    close_after: None,
                    released: false,
                }),
                changed: watch::Sender::new(()),
                budgets: [enlist(session), enlist(endpoint)],
            }
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn signal(&self) {
        self.changed.send_replace(());
    }

    /// The stream's number within its session.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// Stops the stream's producer (and so its request): the session gave it up.
    pub(crate) fn give_up(&self) {
        self.ended.cancel();
    }

    /// Fires when the stream's producer must stop.
    pub(super) fn ended(&self) -> &CancellationToken {
        &self.ended
    }

    /// Whether a connection serves the stream.
    pub(crate) fn is_attached(&self) -> bool {
        self.lock().attached
    }

    /// Whether the stream was released for room (and can no longer be resumed).
    pub(crate) fn is_released(&self) -> bool {
        self.lock().released
    }

    /// Whether a close asked by the handler now would close something: the answer is not
    /// a stream yet (it becomes one, primed, then closed), or a connection serves it.
    pub(crate) fn can_close(&self) -> bool {
        let inner = self.lock();
        !inner.started || (inner.attached && !inner.finished)
    }

    /// The handler's close request came through the producer, after what the handler sent
    /// before it: the connection ends once it delivered the events so far.
    pub(super) fn apply_close(&self) {
        let mut inner = self.lock();
        if inner.attached {
            inner.close_after = Some(inner.replay.last());
        }
        drop(inner);
        self.signal();
    }

    /// Appends an event, waiting while the stream is [`Pushed::Full`]; `false` (the event
    /// is dropped) when `closed` fires first. An event over the budgets is passed on or lost
    /// (see [`Stream::try_push`]), and the producer goes on.
    pub(crate) async fn push(&self, message: Bytes, closed: &CancellationToken) -> bool {
        let mut changes = self.changed.subscribe();
        loop {
            if self.try_push(&message) != Pushed::Full {
                return true;
            }
            tokio::select! {
                () = closed.cancelled() => return false,
                changed = changes.changed() => if changed.is_err() { return false },
            }
        }
    }

    /// Appends an event without waiting: kept if the stream's bound and the budgets have
    /// room for it (made by dropping events already sent, then by releasing other streams
    /// whose client is gone, oldest first); else passed on to the connection serving the
    /// stream, or lost without one.
    pub(crate) fn try_push(&self, message: &Bytes) -> Pushed {
        let len = message.len();
        let keepable = {
            let mut inner = self.lock();
            if inner.released {
                return Pushed::Lost;
            }
            if inner.replay.passing() {
                return Pushed::Full;
            }
            let keepable = inner.replay.can_keep(len);
            if keepable && !inner.replay.make_room(len) {
                return Pushed::Full;
            }
            keepable
        };
        // Not under the stream's lock: making room may release other streams.
        let room = keepable
            .then(|| {
                let [(session, s), (endpoint, e)] = &self.budgets;
                Room::reserve([(session, *s), (endpoint, *e)], len)
            })
            .flatten();
        let mut inner = self.lock();
        let pushed = match room {
            _ if inner.released => Pushed::Lost,
            // Only the producer pushes, and connections only free room: it still fits.
            Some(room) if inner.replay.make_room(len) => {
                inner.replay.push(message.clone(), room);
                Pushed::Kept
            }
            Some(_) => return Pushed::Full,
            None if inner.attached => {
                let seq = inner.replay.pass(message.clone());
                tracing::debug!(
                    stream = self.number,
                    seq,
                    bytes = len,
                    "an event over the replay budget is sent but not kept for replay"
                );
                Pushed::Passed
            }
            None => {
                let seq = inner.replay.lose();
                tracing::debug!(
                    stream = self.number,
                    seq,
                    bytes = len,
                    "an event over the replay budget, with no connection to send it on, is not kept"
                );
                Pushed::Lost
            }
        };
        drop(inner);
        self.signal();
        pushed
    }

    /// No more events will come.
    pub(crate) fn finish(&self) {
        self.lock().finished = true;
        self.signal();
    }

    /// Whether the stream is finished with no connection serving it.
    pub(crate) fn finished_unattached(&self) -> bool {
        let inner = self.lock();
        inner.finished && !inner.attached
    }

    /// Bytes of events kept for replay.
    #[cfg(test)]
    pub(crate) fn kept_bytes(&self) -> usize {
        self.lock().replay.bytes()
    }

    /// A connection serving the stream from its start, opening with `priming`.
    pub(crate) fn start(
        self: &Arc<Self>,
        streams: Arc<Streams>,
        priming: Option<Sse>,
    ) -> Connection {
        let mut inner = self.lock();
        inner.started = true;
        let mut connection = self.take_over(&mut inner, streams, 0);
        drop(inner);
        connection.priming = priming;
        self.signal();
        connection
    }

    /// A connection serving the events after `seq`, taking the stream over from the
    /// connection serving it, if any; the events up to `seq` are acknowledged.
    pub(crate) fn resume(
        self: &Arc<Self>,
        streams: Arc<Streams>,
        seq: u64,
    ) -> Result<Connection, Gone> {
        let mut inner = self.lock();
        if !inner.started || inner.released || !inner.replay.resumable_after(seq) {
            return Err(Gone);
        }
        inner.replay.acknowledge(seq);
        let connection = self.take_over(&mut inner, streams, seq);
        drop(inner);
        self.signal();
        Ok(connection)
    }

    fn take_over(
        self: &Arc<Self>,
        inner: &mut Inner,
        streams: Arc<Streams>,
        cursor: u64,
    ) -> Connection {
        inner.generation += 1;
        inner.attached = true;
        inner.close_after = None;
        Connection {
            stream: Arc::clone(self),
            streams,
            generation: inner.generation,
            cursor,
            priming: None,
        }
    }

    fn event(&self, seq: u64, message: &Bytes) -> Sse {
        Sse::default()
            .id(EventId {
                stream: self.number,
                seq,
            }
            .render(&self.tag))
            .data(one_line(message))
    }

    /// The priming event: the stream's first id, no message, and `retry` when configured.
    pub(crate) fn priming(&self, retry: Option<std::time::Duration>) -> Sse {
        let event = self.event(0, &Bytes::new());
        match retry {
            Some(retry) => event.retry_duration(retry),
            None => event,
        }
    }
}

/// One HTTP connection serving a stream.
#[derive(Debug)]
pub(crate) struct Connection {
    stream: Arc<Stream>,
    streams: Arc<Streams>,
    generation: u64,
    /// The last event sent (or acknowledged).
    cursor: u64,
    priming: Option<Sse>,
}

impl Connection {
    /// The next event to send; `None` ends the connection: the stream was delivered to its
    /// end (and is forgotten), closed by the handler, or taken over by a resume.
    pub(crate) async fn next(&mut self) -> Option<Sse> {
        if let Some(priming) = self.priming.take() {
            return Some(priming);
        }
        loop {
            let mut changes = self.stream.changed.subscribe();
            {
                let mut inner = self.stream.lock();
                if inner.generation != self.generation {
                    return None;
                }
                if inner.close_after.is_some_and(|last| self.cursor >= last) {
                    inner.close_after = None;
                    inner.generation += 1;
                    inner.detach();
                    drop(inner);
                    self.stream.signal();
                    return None;
                }
                if let Some((seq, message)) = inner.replay.after(self.cursor) {
                    inner.replay.mark_sent(seq);
                    self.cursor = seq;
                    drop(inner);
                    // A producer may wait for the room this makes.
                    self.stream.signal();
                    return Some(self.stream.event(seq, &message));
                }
                if inner.finished {
                    inner.attached = false;
                    drop(inner);
                    self.streams.forget(self.stream.number);
                    return None;
                }
            }
            if changes.changed().await.is_err() {
                return None;
            }
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        let mut inner = self.stream.lock();
        if inner.generation == self.generation && inner.attached {
            inner.detach();
            drop(inner);
            // A producer waiting for a passed event to go may go on.
            self.stream.signal();
        }
    }
}

impl Release for Stream {
    fn release(&self) -> bool {
        let mut inner = self.lock();
        if inner.attached || inner.released || inner.replay.bytes() == 0 {
            return false;
        }
        inner.released = true;
        inner.replay.release();
        drop(inner);
        tracing::debug!(
            stream = self.number,
            "released a stream no client reads to make room in the replay budget"
        );
        // A producer waiting for room goes on, its events no longer kept.
        self.signal();
        true
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        for (budget, key) in &self.budgets {
            budget.dismiss(*key);
        }
    }
}

/// A message as the data of one event. `sse-stream` writes the data as one `data:` line, and
/// messages are compact JSON, which has no line breaks; one that has some anyway is sent
/// compacted, so that it can never break the framing.
fn one_line(message: &Bytes) -> String {
    let text = String::from_utf8_lossy(message);
    if !text.contains(['\n', '\r']) {
        return text.into_owned();
    }
    serde_json::from_str::<serde_json::Value>(&text)
        .map(|value| value.to_string())
        .unwrap_or_else(|_| text.replace(['\n', '\r'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_never_reach_the_event_data() {
        let compact = Bytes::from_static(br#"{"a":"x\ny"}"#);
        assert_eq!(one_line(&compact), r#"{"a":"x\ny"}"#);
        let pretty = Bytes::from_static(b"{\n  \"a\": 1\r\n}");
        assert_eq!(one_line(&pretty), r#"{"a":1}"#);
        let garbage = Bytes::from_static(b"not\njson");
        assert_eq!(one_line(&garbage), "not json");
    }
}
