//! Where the 2025-11-25 sessions of an HTTP endpoint are kept when several instances serve
//! them: behind a load balancer with no affinity, `initialize` may land on instance A, a
//! `tools/call` on B and the `DELETE` on C.
//!
//! By default an endpoint keeps its sessions in its own memory and needs no store. Given one
//! ([`HttpConfig::session_store`](super::HttpConfig::session_store)), it writes each new
//! session there (its record: the negotiated revision, the client's capabilities and
//! self-description, the subject that opened it, the log level), and a request naming a
//! session another instance opened reads it back. An instance reads a session it holds from
//! the store again at most once a second, renewing its idle expiry there; a session ended
//! (`DELETE`) or changed (`logging/setLevel`) on one instance is announced to all at once, and
//! one the store no longer holds (expired, given way) is 404 everywhere within that second.
//! The sessions in use on an instance (a call running, a stream open) are confirmed with the
//! store every second, so a long call keeps its session alive there, and a session the store
//! dropped ends on every instance, its streams included.
//! Two stores come with the SDK: [`MemorySessionStore`] (endpoints of one process share it) and
//! `RedisSessionStore` (feature `redis`; instances share a Redis).
//!
//! # What stays on one instance
//!
//! A request the server pushes to the client (an `elicitation/create` of a multi-round tool)
//! waits on the instance serving the call, whose POST stream carries it. Its id names that
//! instance, so the client's answer, wherever it lands, is [forwarded](SessionStore::deliver)
//! to it; if that instance is gone, the answer is refused with 410 Gone and a message saying
//! so (the call it answers ended with the instance). A `notifications/cancelled` is forwarded
//! to every instance. A stream's events are kept by the instance that sent it: a GET with
//! `Last-Event-ID` landing elsewhere is relayed from that instance through the store's
//! messages; if that instance is gone, the GET is refused with 400 and a message saying so,
//! and the client sends the request again. Resource subscriptions (`resources/subscribe`)
//! are kept by the instance that received them, and a session's GET stream gets the
//! notifications of the instance serving it.
//!
//! # Bounds
//!
//! A store holds at most [`SessionBounds::max`] sessions and [`SessionBounds::per_caller`]
//! of one caller (the authenticated subject, else the peer address): opening one more ends
//! that caller's session unused longest (or, with the store full, the session unused
//! longest) if it has been unused for [`SessionBounds::min_idle`], and is refused otherwise.
//! A record holds the client's capabilities and self-description, capped at 64 KiB together
//! (usually well under 1 KiB), so a store full of the largest holds `max` times 64 KiB.
//!
//! ```
//! use typemcp_server::transport::http::HttpConfig;
//! use typemcp_server::transport::http::session_store::MemorySessionStore;
//!
//! // Two endpoints of one process serving the same sessions.
//! let store = MemorySessionStore::new();
//! let a = HttpConfig::default().session_store(store.clone());
//! let b = HttpConfig::default().session_store(store);
//! # let _ = (a, b);
//! ```

mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;

pub use memory::MemorySessionStore;
#[cfg(feature = "redis")]
pub use redis::RedisSessionStore;

/// How many messages wait for one listening instance in the stores of the SDK before more
/// are dropped (each at most 64 KiB: the messages are answers to pushed questions and
/// cancellations).
pub(crate) const QUEUE: usize = 256;

/// The bounds a store keeps sessions within, from the endpoint's
/// [`HttpConfig`](super::HttpConfig).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionBounds {
    /// The most sessions at once.
    pub max: usize,
    /// The most sessions of one caller at once.
    pub per_caller: usize,
    /// How long a session lives unused.
    pub idle: Duration,
    /// How long a session must have been unused before it gives way to a new one.
    pub min_idle: Duration,
}

impl SessionBounds {
    /// Bounds of `max` sessions, `per_caller` of one caller, expiring after `idle` unused and
    /// giving way after `min_idle`.
    pub fn new(max: usize, per_caller: usize, idle: Duration, min_idle: Duration) -> Self {
        Self {
            max,
            per_caller,
            idle,
            min_idle,
        }
    }
}

/// A session to store.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct NewSession<'a> {
    /// Its `Mcp-Session-Id`.
    pub id: &'a str,
    /// Its record (opaque to the store).
    pub record: &'a [u8],
    /// The caller it counts against: a key naming it (a digest of the authenticated subject,
    /// or the peer address), never the subject itself.
    pub caller: &'a str,
    /// The bounds to keep.
    pub bounds: SessionBounds,
}

/// What opening a session found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Opened {
    /// Stored (possibly after an idle session gave way).
    Stored,
    /// The caller holds its share of sessions and none of them can give way.
    CallerShare,
    /// The store holds its most sessions and none can give way.
    Full,
}

/// Why a store could not answer. The request fails closed (`503`), the reason in the log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionStoreError {
    /// The store did not answer in time.
    #[error("the session store did not answer within {0:?}")]
    Timeout(Duration),
    /// The store cannot be reached, or refused the command.
    #[error("the session store is unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Keeps sessions for every instance that shares it, and carries messages between them.
///
/// Records and messages are opaque bytes: a store only keeps them, bounded as
/// [`SessionBounds`] say. Implement it to keep sessions elsewhere than the two stores that
/// come with the SDK.
pub trait SessionStore: Send + Sync + fmt::Debug + 'static {
    /// Stores a new session within its bounds.
    fn open<'a>(
        &'a self,
        session: NewSession<'a>,
    ) -> BoxFuture<'a, Result<Opened, SessionStoreError>>;

    /// The record of the session `id`, its idle expiry renewed to `idle` from now; `None`
    /// when the store does not hold it (it ended, expired or gave way).
    fn load<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, SessionStoreError>>;

    /// Replaces the record of the session `id`, if the store still holds it.
    fn update<'a>(
        &'a self,
        id: &'a str,
        record: &'a [u8],
    ) -> BoxFuture<'a, Result<(), SessionStoreError>>;

    /// Ends the session `id`; whether the store held it.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, SessionStoreError>>;

    /// Sends `message` to the instance named `to` (to every instance with `None`); whether
    /// one listens.
    fn deliver<'a>(
        &'a self,
        to: Option<&'a str>,
        message: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SessionStoreError>>;

    /// The messages sent to the instance named `instance`, and to every instance, for as
    /// long as the stream is held: every message sent once this completes reaches it (a
    /// store that reconnects may lose those sent while it does).
    fn messages<'a>(
        &'a self,
        instance: &'a str,
    ) -> BoxFuture<'a, Result<BoxStream<'static, Vec<u8>>, SessionStoreError>>;
}

/// The messages of a channel as a stream.
fn receiver_stream(rx: tokio::sync::mpsc::Receiver<Vec<u8>>) -> BoxStream<'static, Vec<u8>> {
    use futures_util::StreamExt;
    futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) })
        .boxed()
}
