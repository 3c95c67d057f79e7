//! Resumable SSE streams of 2025-11-25 sessions (SEP-1699: polling and resumption).
//!
//! Every SSE event of a session's streams (a POST answered as a stream, and the GET
//! stream) carries an id naming the session, the stream and the event's place in it
//! ([`event_id`]). A POST stream of a 2025-11-25 session starts with a priming event (that
//! id, empty data, and `retry` when [`HttpConfig::sse_retry`](super::HttpConfig::sse_retry)
//! is set).
//!
//! The events of a stream are produced independently of the HTTP connection carrying them
//! and kept in a bounded replay buffer ([`HttpConfig::replay_buffer_bytes`](
//! super::HttpConfig::replay_buffer_bytes)), so that:
//! - a handler may close its connection mid-call
//!   ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)) and go
//!   on; a client that went away does not cancel the request either (the 2025-11-25 spec:
//!   disconnection is not cancellation; `notifications/cancelled` is);
//! - the client resumes with GET and `Last-Event-ID`: the events after that id, and only
//!   those of that stream, are sent again, then the stream goes on live to its end.
//!
//! What the buffers keep is bounded three times, in bytes: per stream
//! ([`HttpConfig::replay_buffer_bytes`](super::HttpConfig::replay_buffer_bytes)), per session
//! ([`HttpConfig::replay_bytes_per_session`](super::HttpConfig::replay_bytes_per_session))
//! and for the whole endpoint ([`HttpConfig::replay_bytes_total`](
//! super::HttpConfig::replay_bytes_total); one [`budget::ByteBudget`] shared by every
//! session's [`Streams`] through [`Settings`]). An event over them is sent to the connection
//! serving its stream but not kept (none serving it: not kept at all), and a resume that would
//! need it is refused. When the session's or the endpoint's budget is short, the streams no
//! connection serves are released, oldest first: their events are dropped and none is kept
//! from then on, while their requests go on (disconnection is not cancellation).
//!
//! A stream is forgotten once a connection delivered it to its end (its response), and
//! every stream of a session when the session ends or expires. A session keeps at most
//! [`HttpConfig::max_streams_per_session`](super::HttpConfig::max_streams_per_session)
//! streams: beyond, the oldest one no connection serves is given up (its request cancelled).
//!
//! A `Last-Event-ID` that is garbled, minted for another session, or names a stream that can
//! no longer be resumed is refused with 400 and a JSON-RPC error saying which; 404 stays the
//! answer for an unknown session only, since it tells the client to start a new session.
//!
//! When a shared store lets several instances serve a session, each instance numbers its
//! streams from a random first number of its own ([`Settings::shared`]), so that an event id
//! names the instance's stream and no other: a `Last-Event-ID` of a stream another instance
//! holds is [`Refused::Elsewhere`] here, and the endpoint relays it from that instance (see
//! `super::shared`), or refuses it with 400 saying so when no instance holds it.
//!
//! The 2026-07-28 wire has no sessions and no resumability: its streams are untouched.

mod body;
mod budget;
mod buffer;
mod event_id;
mod pump;
mod stream;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};
use typemcp_core::RequestId;

use super::HttpConfig;
use crate::context::SseControl;
use crate::dispatch::Reply;
use crate::session::Session;
use budget::ByteBudget;
pub(crate) use event_id::BadEventId;
use event_id::{EventId, Tag};
use stream::Stream;

/// The revision from which POST streams are primed and handlers may close them (SEP-1699).
const POLLING_SINCE: &str = "2025-11-25";

/// The resumable-stream settings of an endpoint, and the byte budget its sessions share.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The most bytes of events kept for replay per stream.
    pub(crate) replay_bytes: usize,
    /// The most bytes of events kept for replay per session.
    pub(crate) session_bytes: usize,
    /// The bytes of events every session of the endpoint keeps, together.
    pub(crate) endpoint: Arc<ByteBudget>,
    /// The `retry` sent with each priming event.
    pub(crate) retry: Option<Duration>,
    /// The most streams a session keeps resumable at once.
    pub(crate) max_streams: usize,
    /// Whether other instances serve the sessions too: each session's streams here are
    /// then numbered from a random number of their own (see [`Settings::shared`]).
    pub(crate) shared: bool,
}

impl Settings {
    /// The settings of an endpoint configured with `config`, with a budget of its own.
    pub(crate) fn of(config: &HttpConfig) -> Self {
        Self {
            replay_bytes: config.replay_bytes,
            session_bytes: config.session_replay_bytes,
            endpoint: ByteBudget::new(config.total_replay_bytes),
            retry: config.sse_retry,
            max_streams: config.max_streams,
            shared: false,
        }
    }

    /// The settings of an instance serving sessions other instances serve too: the streams
    /// of each session it holds (each time it holds it) are numbered from a random number (a
    /// multiple of 2^24, below 2^56), so that the numbers of two instances, or of this one
    /// holding the session again later, do not meet.
    pub(crate) fn shared(mut self) -> Self {
        self.shared = true;
        self
    }

    /// The number of the first stream of a session's streams.
    fn first_stream(&self) -> u64 {
        let mut bytes = [0u8; 4];
        // Without randomness, 1: resumption elsewhere is then refused as `Gone`.
        if !self.shared || getrandom::fill(&mut bytes).is_err() {
            return 1;
        }
        (u64::from(u32::from_le_bytes(bytes)) << 24) | 1
    }
}

/// The resumable streams of one session.
#[derive(Debug)]
pub(crate) struct Streams {
    tag: Tag,
    settings: Settings,
    /// The bytes of events this session's streams keep, together.
    budget: Arc<ByteBudget>,
    /// Whether the session's revision has priming events and polling.
    polling: bool,
    /// Fires when the session ends.
    session_closed: CancellationToken,
    /// The number of the first stream (see [`Settings::shared`]).
    first: u64,
    /// How many streams were opened.
    next: AtomicU64,
    table: Mutex<HashMap<u64, Arc<Stream>>>,
}

/// Why a `Last-Event-ID` resumes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Not an event id of this session.
    Bad(BadEventId),
    /// A stream of this session that ended, or whose events after that id were dropped.
    Gone,
    /// A stream of this session another instance holds.
    Elsewhere,
}

impl Refused {
    /// The message of the 400 answer.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Self::Bad(BadEventId::Malformed) => {
                "Bad Request: Last-Event-ID is not an event id of this server"
            }
            Self::Bad(BadEventId::OtherSession) => {
                "Bad Request: Last-Event-ID names an event of another session"
            }
            Self::Gone => {
                "Bad Request: Last-Event-ID names no stream of this session that can be \
                 resumed (it was delivered to its end, or the events after it are no longer \
                 kept: they were over the replay budget, or released for room)"
            }
            Self::Elsewhere => {
                "Bad Request: Last-Event-ID names a stream that began on another instance of \
                 this server, which no longer holds it (it stopped, or it went away): send the \
                 request again"
            }
        }
    }
}

impl Streams {
    /// The streams of `session`, named `session_id`.
    pub(crate) fn new(session_id: &str, session: &Session, settings: Settings) -> Arc<Self> {
        Self::with(session_id, session.version(), session.closed(), settings)
    }

    fn with(
        session_id: &str,
        version: &str,
        session_closed: &CancellationToken,
        settings: Settings,
    ) -> Arc<Self> {
        Arc::new(Self {
            tag: Tag::of_session(session_id),
            budget: ByteBudget::new(settings.session_bytes),
            first: settings.first_stream(),
            next: AtomicU64::new(0),
            settings,
            polling: version >= POLLING_SINCE,
            session_closed: session_closed.clone(),
            table: Mutex::default(),
        })
    }

    /// Whether `stream` was numbered by another instance (or by this one holding the session
    /// before): outside the numbers these streams took.
    fn numbered_elsewhere(&self, stream: u64) -> bool {
        let next = self.first + self.next.load(Ordering::Relaxed);
        self.settings.shared && !(self.first..next).contains(&stream)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<Stream>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new stream, not resumable until its answer starts.
    fn open(&self) -> Arc<Stream> {
        let number = self.first + self.next.fetch_add(1, Ordering::Relaxed);
        let ended = self.session_closed.child_token();
        let budgets = [&self.budget, &self.settings.endpoint];
        Stream::new(
            self.tag.clone(),
            number,
            self.settings.replay_bytes,
            ended,
            budgets,
        )
    }

    /// Makes `stream` resumable, forgetting the streams released for room. Beyond the
    /// session's bound, the oldest stream no connection serves is given up: it cannot be
    /// resumed, and its request is cancelled.
    fn register(&self, stream: &Arc<Stream>) {
        let mut table = self.lock();
        table.retain(|_, kept| !kept.is_released());
        table.insert(stream.number(), Arc::clone(stream));
        while table.len() > self.settings.max_streams {
            let oldest = table
                .values()
                .filter(|kept| kept.number() != stream.number() && !kept.is_attached())
                .map(|kept| kept.number())
                .min();
            let Some(oldest) = oldest else { break };
            if let Some(given_up) = table.remove(&oldest) {
                tracing::debug!(
                    stream = oldest,
                    "a session gave up its oldest unread stream"
                );
                given_up.give_up();
            }
        }
    }

    /// Forgets a stream delivered to its end (or given up).
    fn forget(&self, number: u64) {
        self.lock().remove(&number);
    }

    /// How many streams can still be resumed.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.lock()
            .values()
            .filter(|kept| !kept.is_released())
            .count()
    }

    /// A request of the session about to be served with the client accepting SSE, whose
    /// handler sends its messages on `tx`: its stream, and the control its handler closes
    /// the connection with (for revisions with polling).
    pub(crate) fn prepare(&self, tx: &mpsc::Sender<Bytes>) -> (Arc<Stream>, Option<SseControl>) {
        let stream = self.open();
        let control = self.polling.then(|| {
            let (weak, tx): (Weak<Stream>, _) = (Arc::downgrade(&stream), tx.clone());
            SseControl::new(move || {
                let (weak, tx) = (weak.clone(), tx.clone());
                Box::pin(async move {
                    // In order with the handler's messages: see `pump::CLOSE_REQUEST`.
                    weak.upgrade().is_some_and(|stream| stream.can_close())
                        && tx.send(pump::CLOSE_REQUEST).await.is_ok()
                })
            })
        });
        (stream, control)
    }
}

/// A 2025-11-25 session's stream prepared for one request's answer.
pub(crate) struct Resumable {
    streams: Arc<Streams>,
    stream: Arc<Stream>,
}

impl Resumable {
    /// `stream` of `streams`, from [`Streams::prepare`].
    pub(crate) fn new(streams: Arc<Streams>, stream: Arc<Stream>) -> Self {
        Self { streams, stream }
    }

    /// Answers with this resumable stream: first `pending`, then the handler's messages on
    /// `rx`, then the response of `task`. The request goes on when a connection goes away.
    pub(crate) fn answer(
        self,
        pending: VecDeque<Bytes>,
        rx: mpsc::Receiver<Bytes>,
        task: JoinHandle<Reply>,
        id: RequestId,
        cancel_on_drop: DropGuard,
        keep_alive: Duration,
    ) -> Response {
        let Self { streams, stream } = self;
        streams.register(&stream);
        let priming = streams
            .polling
            .then(|| stream.priming(streams.settings.retry));
        let connection = stream.start(Arc::clone(&streams), priming);
        tokio::spawn(pump::request(stream, pending, rx, task, id, cancel_on_drop));
        body::response(connection, keep_alive)
    }
}

/// The session's GET stream (a new one replaces the previous one as the session's sink).
pub(crate) fn listen(streams: &Arc<Streams>, session: &Session, keep_alive: Duration) -> Response {
    let (tx, rx) = mpsc::channel(64);
    session.set_sink(tx);
    let stream = streams.open();
    streams.register(&stream);
    let connection = stream.start(Arc::clone(streams), None);
    tokio::spawn(pump::session(stream, Arc::clone(streams), rx));
    body::response(connection, keep_alive)
}

/// Whether `last_event_id` names a stream these streams numbered (whether or not it can
/// still be resumed).
pub(crate) fn numbered_here(streams: &Streams, last_event_id: &str) -> bool {
    EventId::parse(last_event_id, &streams.tag)
        .is_ok_and(|id| !streams.numbered_elsewhere(id.stream))
}

/// GET with `Last-Event-ID`: the events of that id's stream after it, then the rest of the
/// stream as it comes.
pub(crate) fn resume(
    streams: &Arc<Streams>,
    last_event_id: &str,
    keep_alive: Duration,
) -> Result<Response, Refused> {
    let id = EventId::parse(last_event_id, &streams.tag).map_err(Refused::Bad)?;
    let stream = streams.lock().get(&id.stream).cloned().ok_or_else(|| {
        if streams.numbered_elsewhere(id.stream) {
            Refused::Elsewhere
        } else {
            Refused::Gone
        }
    })?;
    let connection = stream
        .resume(Arc::clone(streams), id.seq)
        .map_err(|stream::Gone| Refused::Gone)?;
    Ok(body::response(connection, keep_alive))
}
