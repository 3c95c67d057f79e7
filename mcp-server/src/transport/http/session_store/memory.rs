//! The in-process store: endpoints of one process (several routers, or tests standing in
//! for instances) share sessions and messages through it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use tokio::sync::mpsc;

use super::{NewSession, Opened, SessionStore, SessionStoreError};

use super::QUEUE;

/// Sessions in this process's memory, shared by every endpoint given a clone of the store.
///
/// ```
/// use typemcp_server::transport::http::session_store::MemorySessionStore;
///
/// let store = MemorySessionStore::new();
/// let shared = store.clone(); // the same sessions
/// assert_eq!(store.len(), shared.len());
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemorySessionStore {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    sessions: HashMap<String, Stored>,
    listeners: Vec<(String, mpsc::Sender<Vec<u8>>)>,
}

#[derive(Debug)]
struct Stored {
    record: Vec<u8>,
    caller: String,
    last_used: Instant,
    idle: Duration,
}

impl Stored {
    fn expired(&self, now: Instant) -> bool {
        now.duration_since(self.last_used) > self.idle
    }
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many sessions the store holds (expired ones included until the next open).
    pub fn len(&self) -> usize {
        self.lock().sessions.len()
    }

    /// Whether the store holds no session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    /// The session unused longest among those `keep` selects, if it may give way.
    fn to_give_way(
        &self,
        now: Instant,
        min_idle: Duration,
        keep: impl Fn(&Stored) -> bool,
    ) -> Option<String> {
        self.sessions
            .iter()
            .filter(|(_, stored)| keep(stored))
            .min_by_key(|(_, stored)| stored.last_used)
            .filter(|(_, stored)| now.duration_since(stored.last_used) >= min_idle)
            .map(|(id, _)| id.clone())
    }

    fn open(&mut self, session: NewSession<'_>) -> Opened {
        let now = Instant::now();
        self.sessions.retain(|_, stored| !stored.expired(now));
        let bounds = session.bounds;
        let held = self
            .sessions
            .values()
            .filter(|stored| stored.caller == session.caller)
            .count();
        let make_room = if held >= bounds.per_caller {
            match self.to_give_way(now, bounds.min_idle, |s| s.caller == session.caller) {
                Some(id) => Some(id),
                None => return Opened::CallerShare,
            }
        } else if self.sessions.len() >= bounds.max {
            match self.to_give_way(now, bounds.min_idle, |_| true) {
                Some(id) => Some(id),
                None => return Opened::Full,
            }
        } else {
            None
        };
        if let Some(id) = make_room {
            self.sessions.remove(&id);
        }
        self.sessions.insert(
            session.id.to_owned(),
            Stored {
                record: session.record.to_vec(),
                caller: session.caller.to_owned(),
                last_used: now,
                idle: bounds.idle,
            },
        );
        Opened::Stored
    }

    /// Whether an instance named `to` (or any, with `None`) listens; a message the full
    /// queue of the instance named could not take is an error (it is there, the message is
    /// lost).
    fn deliver(&mut self, to: Option<&str>, message: &[u8]) -> Result<bool, SessionStoreError> {
        self.listeners.retain(|(_, tx)| !tx.is_closed());
        let (mut listening, mut full) = (false, false);
        for (instance, tx) in &self.listeners {
            if to.is_none_or(|to| to == instance) {
                listening = true;
                full |= tx.try_send(message.to_vec()).is_err();
            }
        }
        if full {
            tracing::warn!("dropped a message to another instance: its queue is full");
            if to.is_some() {
                return Err(SessionStoreError::Unavailable(
                    "the receiving instance's queue is full".into(),
                ));
            }
        }
        Ok(listening)
    }
}

impl SessionStore for MemorySessionStore {
    fn open<'a>(
        &'a self,
        session: NewSession<'a>,
    ) -> BoxFuture<'a, Result<Opened, SessionStoreError>> {
        let opened = self.lock().open(session);
        std::future::ready(Ok(opened)).boxed()
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, SessionStoreError>> {
        let now = Instant::now();
        let mut inner = self.lock();
        let record = match inner.sessions.get_mut(id) {
            Some(stored) if stored.expired(now) => {
                inner.sessions.remove(id);
                None
            }
            Some(stored) => {
                stored.last_used = now;
                stored.idle = idle;
                Some(stored.record.clone())
            }
            None => None,
        };
        std::future::ready(Ok(record)).boxed()
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        record: &'a [u8],
    ) -> BoxFuture<'a, Result<(), SessionStoreError>> {
        if let Some(stored) = self.lock().sessions.get_mut(id) {
            stored.record = record.to_vec();
        }
        std::future::ready(Ok(())).boxed()
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, SessionStoreError>> {
        let removed = self.lock().sessions.remove(id).is_some();
        std::future::ready(Ok(removed)).boxed()
    }

    fn deliver<'a>(
        &'a self,
        to: Option<&'a str>,
        message: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SessionStoreError>> {
        let delivered = self.lock().deliver(to, message);
        std::future::ready(delivered).boxed()
    }

    fn messages<'a>(
        &'a self,
        instance: &'a str,
    ) -> BoxFuture<'a, Result<BoxStream<'static, Vec<u8>>, SessionStoreError>> {
        let (tx, rx) = mpsc::channel(QUEUE);
        self.lock().listeners.push((instance.to_owned(), tx));
        std::future::ready(Ok(super::receiver_stream(rx))).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::super::SessionBounds;
    use super::*;
    use futures_util::StreamExt;

    fn bounds(max: usize, per_caller: usize, min_idle: Duration) -> SessionBounds {
        SessionBounds::new(max, per_caller, Duration::from_secs(60), min_idle)
    }

    fn open(store: &MemorySessionStore, id: &str, caller: &str, bounds: SessionBounds) -> Opened {
        store.lock().open(NewSession {
            id,
            record: id.as_bytes(),
            caller,
            bounds,
        })
    }

    #[tokio::test]
    async fn a_caller_keeps_to_its_share_and_idle_sessions_give_way() {
        let store = MemorySessionStore::new();
        let strict = bounds(10, 2, Duration::from_secs(60));
        assert_eq!(open(&store, "a1", "a", strict), Opened::Stored);
        assert_eq!(open(&store, "a2", "a", strict), Opened::Stored);
        assert_eq!(open(&store, "a3", "a", strict), Opened::CallerShare);
        assert_eq!(open(&store, "b1", "b", strict), Opened::Stored);
        // With no minimum idle time, a's session unused longest gives way.
        let lenient = bounds(10, 2, Duration::ZERO);
        assert_eq!(open(&store, "a3", "a", lenient), Opened::Stored);
        assert_eq!(
            store.load("a1", Duration::from_secs(60)).await.ok(),
            Some(None)
        );
        assert_eq!(
            store.load("a2", Duration::from_secs(60)).await.ok(),
            Some(Some(b"a2".to_vec()))
        );
        // The store full: refused, unless a session may give way.
        let full = bounds(3, 3, Duration::from_secs(60));
        assert_eq!(open(&store, "c1", "c", full), Opened::Full);
        assert_eq!(store.len(), 3);
        assert!(store.remove("b1").await.unwrap_or(false));
        assert!(!store.remove("b1").await.unwrap_or(true));
    }

    #[tokio::test]
    async fn messages_reach_the_instance_named_or_all() {
        let store = MemorySessionStore::new();
        let mut a = store.messages("a").await.unwrap();
        let mut b = store.messages("b").await.unwrap();
        assert!(store.deliver(Some("a"), b"to a").await.unwrap_or(false));
        assert!(!store.deliver(Some("c"), b"to c").await.unwrap_or(true));
        assert!(store.deliver(None, b"to all").await.unwrap_or(false));
        assert_eq!(a.next().await.as_deref(), Some(&b"to a"[..]));
        assert_eq!(a.next().await.as_deref(), Some(&b"to all"[..]));
        assert_eq!(b.next().await.as_deref(), Some(&b"to all"[..]));
        drop(a);
        assert!(!store.deliver(Some("a"), b"gone").await.unwrap_or(true));
    }
}
