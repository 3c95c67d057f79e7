//! An endpoint's part in sessions a shared store keeps ([`super::session_store`]): finding
//! a session any instance opened, storing the ones opened here, and the messages between
//! instances (a client's answer to a request another instance pushed, a cancellation).
//!
//! Each endpoint is an *instance* with a random name: the ids of the requests it pushes name
//! it, and it listens for the messages sent to it from its first session on.
//!
//! A session this instance holds is read from the store again at most every
//! [`REVERIFY`] (which also renews its expiry there), not on every request: a session
//! ended (`DELETE`) or changed (`logging/setLevel`) on another instance is announced to all
//! ([`Message::Ended`], [`Message::Changed`]), so that every instance ends or reads it again
//! at once; a session that expired or gave way in the store is noticed within [`REVERIFY`],
//! by the next request or, for a session in use here (a call, a stream), by [`sweep`], which
//! also renews it in the store.
//!
//! A stream another instance holds is resumed through it ([`relay`]).

mod relay;

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use typemcp_core::RequestId;

use super::session_store::{NewSession, Opened, SessionBounds, SessionStore, SessionStoreError};
use super::sessions::{Full, InUse, Sessions};
use crate::Server;
use crate::caller::Caller;
use crate::session::{Persist, Record, Session};

/// The largest answer forwarded to another instance (an answer to a pushed question is a
/// form's content or an acknowledgement: a few hundred bytes). With the stores' queues of
/// `session_store::QUEUE` messages per instance, what waits for one instance is
/// bounded by their product.
pub(crate) const MAX_FORWARDED_ANSWER_BYTES: usize = 64 * 1024;

/// How long a session confirmed by the store is served without reading it again.
pub(crate) const REVERIFY: Duration = Duration::from_secs(1);

/// The longest request id a forwarded cancellation names.
pub(crate) const MAX_FORWARDED_ID_BYTES: usize = 1024;

/// A message from one instance to another.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Message {
    /// The session ended (to every instance).
    Ended { session: String },
    /// The session's record changed (to every instance).
    Changed { session: String },
    /// The client's answer (raw JSON-RPC) to a request this instance pushed on `session`.
    Answer { session: String, message: String },
    /// The client cancelled its request `request` on `session`.
    Cancel { session: String, request: RequestId },
    /// To every instance: the one holding the stream of `session` that `last_event_id`
    /// names, relay it from there to relay `relay` of instance `to`.
    Resume {
        session: String,
        last_event_id: String,
        relay: String,
        to: String,
    },
    /// The instance `from` took the resume of relay `relay`.
    RelayStart { relay: String, from: String },
    /// The instance holding the stream cannot resume it (`busy`: it relays its most).
    RelayRefused { relay: String, busy: bool },
    /// Chunk `seq` (from 0) of a relayed stream's SSE body, from instance `from`.
    RelayChunk {
        relay: String,
        from: String,
        seq: u64,
        bytes: String,
    },
    /// The relayed stream ended after `chunks` chunks.
    RelayEnd {
        relay: String,
        from: String,
        chunks: u64,
    },
    /// The receiver passed on the chunks before `upto` (to the instance relaying).
    RelayAck { relay: String, upto: u64 },
    /// The receiver of relay `relay` went away.
    RelayCancel { relay: String },
}

/// A random name (16 hex digits), for an instance or a relay.
fn random_name() -> Option<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// What finding a session in the store gave.
pub(crate) enum Found {
    /// Live, marked in use here.
    Live(InUse),
    /// The store does not hold it for this owner.
    Unknown,
    /// The store failed: the request fails closed.
    Unavailable,
}

/// Where an answer to a pushed request went.
pub(crate) enum Forwarded {
    /// To the instance that pushed it.
    Delivered,
    /// Nowhere: the instance that pushed it is gone.
    OwnerGone,
    /// The store failed.
    Unavailable,
    /// Larger than [`MAX_FORWARDED_ANSWER_BYTES`]: not forwarded.
    TooLarge,
}

/// This endpoint's part in a shared store.
#[derive(Debug)]
pub(crate) struct Shared {
    store: Arc<dyn SessionStore>,
    instance: String,
    bounds: SessionBounds,
    listening: tokio::sync::OnceCell<()>,
    relays: Arc<relay::Relays>,
    /// The keep-alive period of the streams this instance relays.
    keep_alive: Duration,
}

impl Shared {
    /// This endpoint's part in `store`, keeping sessions within `bounds`.
    /// The streams it relays to other instances keep alive every `keep_alive`.
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        bounds: SessionBounds,
        keep_alive: Duration,
    ) -> Option<Self> {
        Some(Self {
            store,
            instance: random_name()?,
            bounds,
            listening: tokio::sync::OnceCell::new(),
            relays: Arc::default(),
            keep_alive,
        })
    }

    /// Listens for this instance's messages (once; later calls return at once): each answer
    /// reaches the session of `sessions` waiting for it, each cancellation the request it
    /// names. Completes once every message sent from then on reaches this instance; a store
    /// that cannot subscribe fails the request (503).
    pub(crate) async fn listen(&self, sessions: &Arc<Sessions>) -> Result<(), ()> {
        if self.listening.initialized() {
            return Ok(());
        }
        let subscribe = || async {
            let mut messages = self.store.messages(&self.instance).await.map_err(|err| {
                tracing::warn!(error = %err, "could not listen to the other instances");
            })?;
            let receiver = Receiver {
                store: Arc::clone(&self.store),
                instance: self.instance.clone(),
                relays: Arc::clone(&self.relays),
                keep_alive: self.keep_alive,
            };
            let sessions = Arc::downgrade(sessions);
            let store = Arc::clone(&self.store);
            tokio::spawn(sweep(sessions.clone(), store, self.bounds.idle));
            tokio::spawn(async move {
                while let Some(bytes) = messages.next().await {
                    let Some(sessions) = sessions.upgrade() else {
                        return;
                    };
                    receiver.receive(&sessions, &bytes);
                }
            });
            Ok(())
        };
        self.listening.get_or_try_init(subscribe).await.map(|_| ())
    }

    /// Shares a session opened here: stores it for `owner`, counted against `caller`.
    pub(crate) async fn open(
        &self,
        id: &str,
        session: &Arc<Session>,
        owner: Option<&str>,
        caller: &Caller,
    ) -> Result<(), Full> {
        let record = match serde_json::to_vec(&session.record(owner)) {
            Ok(record) => record,
            Err(err) => {
                tracing::error!(error = %err, "could not serialize a session's record");
                return Err(Full::Unavailable);
            }
        };
        let caller_key = caller.key();
        let opened = self
            .store
            .open(NewSession {
                id,
                record: &record,
                caller: &caller_key,
                bounds: self.bounds,
            })
            .await;
        match opened {
            Ok(Opened::Stored) => {
                self.share(id, session, owner);
                Ok(())
            }
            Ok(Opened::CallerShare) => Err(Full::CallerShare(self.bounds.per_caller)),
            Ok(Opened::Full) => Err(Full::TooMany),
            Err(err) => {
                unavailable(&err);
                Err(Full::Unavailable)
            }
        }
    }

    fn share(&self, id: &str, session: &Session, owner: Option<&str>) {
        let persist = Arc::new(Persisted {
            store: Arc::clone(&self.store),
            id: id.to_owned(),
            owner: owner.map(str::to_owned),
            pending: std::sync::Mutex::default(),
            latest: Arc::default(),
            writing: Arc::default(),
        });
        session.share(&self.instance, persist);
    }

    /// The session `id` of `owner` as the store holds it: the one of `sessions` (its log
    /// level refreshed), or restored from its record and adopted, counted against `caller`.
    /// A session the store no longer holds is ended here too.
    pub(crate) async fn find(
        &self,
        server: &Server,
        sessions: &Sessions,
        id: &str,
        owner: Option<&str>,
        caller: &Caller,
    ) -> Found {
        let local = sessions.get(id, owner);
        if local
            .as_ref()
            .is_some_and(|live| live.verified_within(REVERIFY))
        {
            return local.map_or(Found::Unknown, Found::Live);
        }
        drop(local);
        let record = match self.store.load(id, self.bounds.idle).await {
            Ok(Some(bytes)) => match serde_json::from_slice::<Record>(&bytes) {
                Ok(record) => Some(record),
                Err(err) => {
                    tracing::warn!(error = %err, "a shared session's record is unreadable");
                    None
                }
            },
            Ok(None) => None,
            Err(err) => {
                unavailable(&err);
                return Found::Unavailable;
            }
        };
        let local = sessions.get(id, owner);
        let Some(record) = record.filter(|record| record.owner.as_deref() == owner) else {
            if local.is_some() {
                // Ended elsewhere (or expired in the store): end it here too.
                sessions.remove(id, owner);
            }
            return Found::Unknown;
        };
        if let Some(live) = local {
            live.session.refresh(&record);
            live.mark_verified();
            return Found::Live(live);
        }
        let session = server.restore_session(record);
        self.share(id, &session, owner);
        let restored = Arc::clone(&session);
        match sessions.adopt(id, session, owner.map(str::to_owned), caller.clone()) {
            Ok(live) => {
                live.mark_verified();
                Found::Live(live)
            }
            Err(full) => {
                // Its change forwarding ends with it.
                restored.close();
                tracing::warn!(
                    ?full,
                    %caller,
                    "could not serve a shared session here: this instance's table is full"
                );
                Found::Unavailable
            }
        }
    }

    /// Ends the session `id` of `owner` in the store; whether the store held it for them.
    pub(crate) async fn remove(&self, id: &str, owner: Option<&str>) -> Result<bool, ()> {
        let held = match self.store.load(id, self.bounds.idle).await {
            Ok(held) => held,
            Err(err) => {
                unavailable(&err);
                return Err(());
            }
        };
        let owned = held
            .and_then(|bytes| serde_json::from_slice::<Record>(&bytes).ok())
            .is_some_and(|record| record.owner.as_deref() == owner);
        if !owned {
            return Ok(false);
        }
        let removed = self
            .store
            .remove(id)
            .await
            .map_err(|err| unavailable(&err))?;
        let ended = Message::Ended {
            session: id.to_owned(),
        };
        // Announced before the DELETE is answered; an instance that misses it notices
        // within `REVERIFY`.
        let _ = self.send(None, &ended).await;
        Ok(removed)
    }

    /// Forwards the client's answer `message` on session `id` to the instance its id names,
    /// unless that is this one (then nobody waits for it any more).
    pub(crate) async fn forward_answer(&self, id: &str, message: &[u8]) -> Option<Forwarded> {
        let instance = crate::session::instance_of_answer(message)?;
        if instance == self.instance {
            return None;
        }
        if message.len() > MAX_FORWARDED_ANSWER_BYTES {
            return Some(Forwarded::TooLarge);
        }
        let message = Message::Answer {
            session: id.to_owned(),
            message: String::from_utf8_lossy(message).into_owned(),
        };
        Some(match self.send(Some(&instance), &message).await {
            Ok(true) => Forwarded::Delivered,
            Ok(false) => Forwarded::OwnerGone,
            Err(()) => Forwarded::Unavailable,
        })
    }

    /// Resumes, through the instance holding it, the stream of session `id` that
    /// `last_event_id` names (its refusal's message when none can).
    pub(crate) async fn resume_elsewhere(
        &self,
        id: &str,
        last_event_id: &str,
    ) -> Result<axum::response::Response, &'static str> {
        let (relays, store) = (&self.relays, &self.store);
        relay::receive(
            relays,
            store,
            &self.instance,
            id,
            last_event_id,
            self.keep_alive,
        )
        .await
    }

    /// Tells every instance that the client cancelled its request `request` on session `id`
    /// (not for an id over [`MAX_FORWARDED_ID_BYTES`]: no request of a client has one).
    pub(crate) async fn forward_cancel(&self, id: &str, request: RequestId) {
        if request.to_string().len() > MAX_FORWARDED_ID_BYTES {
            tracing::debug!("did not forward a cancellation naming an oversized request id");
            return;
        }
        let message = Message::Cancel {
            session: id.to_owned(),
            request,
        };
        let _ = self.send(None, &message).await;
    }

    async fn send(&self, to: Option<&str>, message: &Message) -> Result<bool, ()> {
        let bytes = serde_json::to_vec(message).map_err(|err| {
            tracing::error!(error = %err, "could not serialize a message to another instance");
        })?;
        self.store
            .deliver(to, &bytes)
            .await
            .map_err(|err| unavailable(&err))
    }
}

/// Every [`REVERIFY`], confirms with the store the sessions in use here that no request
/// confirmed meanwhile: a long call or an open stream keeps its session alive in the store
/// (its expiry renewed, so it never looks idle there), and a session the store no longer
/// holds (expired, given way, or an ending announced while this instance was not listening)
/// ends here too, its streams with it. Ends with the endpoint.
async fn sweep(sessions: std::sync::Weak<Sessions>, store: Arc<dyn SessionStore>, idle: Duration) {
    let mut every = tokio::time::interval(REVERIFY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let Some(ids) = sessions.upgrade().map(|s| s.in_use_unverified(REVERIFY)) else {
            return;
        };
        for id in ids {
            let Ok(held) = store.load(&id, idle).await else {
                // The store failed: tried again next time.
                continue;
            };
            let Some(sessions) = sessions.upgrade() else {
                return;
            };
            match held.and_then(|bytes| serde_json::from_slice::<Record>(&bytes).ok()) {
                Some(record) => sessions.confirm(&id, &record),
                None => sessions.end(&id),
            }
        }
    }
}

/// What the listener needs to act on messages.
struct Receiver {
    store: Arc<dyn SessionStore>,
    instance: String,
    relays: Arc<relay::Relays>,
    keep_alive: Duration,
}

impl Receiver {
    /// A message another instance sent here.
    fn receive(&self, sessions: &Sessions, bytes: &[u8]) {
        let message = match serde_json::from_slice::<Message>(bytes) {
            Ok(message) => message,
            Err(err) => {
                tracing::debug!(error = %err, "dropped an unreadable message from another instance");
                return;
            }
        };
        let relays = &self.relays;
        match message {
            Message::Resume {
                session,
                last_event_id,
                relay,
                to,
            } => {
                let request = relay::Request {
                    session: &session,
                    last_event_id: &last_event_id,
                    relay,
                    to,
                    keep_alive: self.keep_alive,
                };
                relay::serve(relays, &self.store, &self.instance, sessions, request);
            }
            Message::RelayStart { relay, from } => {
                let part = relay::Part::Start { from: from.clone() };
                relays.take(&self.store, relay, Some(&from), part);
            }
            Message::RelayRefused { relay, busy } => {
                relays.take(&self.store, relay, None, relay::Part::Refused { busy });
            }
            Message::RelayChunk {
                relay,
                from,
                seq,
                bytes,
            } => {
                let part = relay::Part::Chunk { seq, bytes };
                relays.take(&self.store, relay, Some(&from), part);
            }
            Message::RelayEnd {
                relay,
                from,
                chunks,
            } => {
                let part = relay::Part::End { chunks };
                relays.take(&self.store, relay, Some(&from), part);
            }
            Message::RelayAck { relay, upto } => relays.acknowledge(&relay, upto),
            Message::RelayCancel { relay } => relays.cancel(&relay),
            other => receive(sessions, other),
        }
    }
}

/// A message about a session another instance sent here.
fn receive(sessions: &Sessions, message: Message) {
    match message {
        Message::Ended { session } => sessions.end(&session),
        Message::Changed { session } => sessions.invalidate(&session),
        Message::Answer { session, message } => {
            let answered = sessions
                .peek(&session)
                .is_some_and(|session| session.answer(message.as_bytes()));
            if !answered {
                tracing::debug!("a forwarded answer found nobody waiting for it");
            }
        }
        Message::Cancel { session, request }
            if sessions
                .peek(&session)
                .is_some_and(|session| session.cancel(&request)) =>
        {
            tracing::debug!(request_id = %request, "request cancelled by the client (forwarded)");
        }
        // The relay's messages are taken by `Receiver::receive`.
        _ => {}
    }
}

fn unavailable(err: &SessionStoreError) {
    tracing::warn!(error = %err, "the session store failed: the request is refused");
}

/// Writes a session's record again when it changes (its log level).
#[derive(Debug)]
struct Persisted {
    store: Arc<dyn SessionStore>,
    id: String,
    owner: Option<String>,
    /// The write under way, if any.
    pending: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// The latest record: every write stores the latest at the time it runs, one write at a
    /// time ([`Persisted::writing`]), so the store ends with the latest however the writes
    /// are scheduled.
    latest: Arc<std::sync::Mutex<Vec<u8>>>,
    writing: Arc<tokio::sync::Mutex<()>>,
}

impl Persist for Persisted {
    fn changed(&self, session: &Session) {
        let Ok(record) = serde_json::to_vec(&session.record(self.owner.as_deref())) else {
            return;
        };
        *self
            .latest
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = record;
        let (store, id) = (Arc::clone(&self.store), self.id.clone());
        let (latest, writing) = (Arc::clone(&self.latest), Arc::clone(&self.writing));
        let write = tokio::spawn(async move {
            let _one_at_a_time = writing.lock().await;
            let record = latest
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone();
            if let Err(err) = store.update(&id, &record).await {
                tracing::warn!(error = %err, "could not store a session's new log level");
                return;
            }
            let changed = serde_json::to_vec(&Message::Changed { session: id });
            if let Ok(changed) = changed
                && let Err(err) = store.deliver(None, &changed).await
            {
                tracing::warn!(error = %err, "could not announce a session's new log level");
            }
        });
        let earlier = self
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .replace(write);
        // An earlier write still running finishes on its own; the newest stores the latest.
        drop(earlier);
    }

    fn settled(&self) -> Option<futures_util::future::BoxFuture<'static, ()>> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()?;
        Some(Box::pin(async move {
            let _ = pending.await;
        }))
    }
}
