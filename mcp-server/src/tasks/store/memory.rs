//! The in-memory task store: the tasks of one instance, bounded, expired ones forgotten.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use futures_util::future::BoxFuture;

use super::{TaskEntry, TaskStore, TaskStoreError};
use crate::tasks::clock::now_ms;

/// Tasks in this process's memory: the default store. Enough for one instance; behind a load
/// balancer, or to keep tasks across restarts, use `RedisTaskStore` (feature `redis`).
///
/// Bounded: it holds at most [`capacity`](Self::capacity) live tasks (default
/// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY)). Expired tasks read as absent and are
/// dropped when the store fills up (and every [`SWEEP_EVERY`](Self::SWEEP_EVERY) creations);
/// when every slot holds a live task, creating one more fails with
/// [`TaskStoreError::Full`] (the `tools/call` gets `-32603`) rather than dropping a task a
/// client may still poll.
///
/// ```
/// use mcp_server::tasks::{MemoryTaskStore, TaskEntry, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryTaskStore::with_capacity(1);
/// let live = TaskEntry { version: 1, expires_at_ms: u64::MAX, data: "{}".into() };
/// assert!(store.create("a", live.clone()).await.unwrap());
/// assert!(store.create("b", live).await.is_err(), "full");
/// assert_eq!(store.len(), 1);
/// # });
/// ```
#[derive(Debug)]
pub struct MemoryTaskStore {
    inner: Mutex<Entries>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Entries {
    tasks: HashMap<String, TaskEntry>,
    /// Creations since the last sweep.
    created: usize,
}

impl Entries {
    /// Drops every task expired at `now`.
    fn sweep(&mut self, now: u64) {
        self.tasks.retain(|_, entry| entry.expires_at_ms > now);
        self.created = 0;
    }

    /// The live entry under `id`, dropping it if it expired.
    fn live(&mut self, id: &str, now: u64) -> Option<&mut TaskEntry> {
        if self.tasks.get(id).is_some_and(|e| e.expires_at_ms <= now) {
            self.tasks.remove(id);
        }
        self.tasks.get_mut(id)
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryTaskStore {
    /// How many live tasks a store holds unless told otherwise.
    pub const DEFAULT_CAPACITY: usize = 10_000;

    /// How many creations pass between two sweeps of expired tasks.
    pub const SWEEP_EVERY: usize = 1024;

    /// A store holding up to [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) live tasks.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A store holding up to `capacity` live tasks (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Entries::default()),
            capacity: capacity.max(1),
        }
    }

    /// How many live tasks it may hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many tasks it holds now (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.entries().tasks.len()
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn create_now(&self, id: &str, entry: TaskEntry) -> Result<bool, TaskStoreError> {
        let now = now_ms();
        let mut entries = self.entries();
        if entries.live(id, now).is_some() {
            return Ok(false);
        }
        entries.created += 1;
        if entries.tasks.len() >= self.capacity || entries.created >= Self::SWEEP_EVERY {
            entries.sweep(now);
        }
        if entries.tasks.len() >= self.capacity {
            return Err(TaskStoreError::Full {
                capacity: self.capacity,
            });
        }
        entries.tasks.insert(id.to_owned(), entry);
        Ok(true)
    }

    fn replace_now(&self, id: &str, expected: u64, entry: TaskEntry) -> bool {
        let mut entries = self.entries();
        match entries.live(id, now_ms()) {
            Some(current) if current.version == expected => {
                *current = entry;
                true
            }
            _ => false,
        }
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        entry: TaskEntry,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let created = self.create_now(id, entry);
        Box::pin(async move { created })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>> {
        let found = self.entries().live(id, now_ms()).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn replace<'a>(
        &'a self,
        id: &'a str,
        expected: u64,
        entry: TaskEntry,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let replaced = self.replace_now(id, expected, entry);
        Box::pin(async move { Ok(replaced) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(version: u64, expires_at_ms: u64) -> TaskEntry {
        TaskEntry {
            version,
            expires_at_ms,
            data: format!("{{\"v\":{version}}}"),
        }
    }

    #[tokio::test]
    async fn expired_tasks_read_as_absent_and_free_their_slot() {
        let store = MemoryTaskStore::with_capacity(1);
        assert!(store.create("old", entry(1, 1)).await.unwrap());
        assert_eq!(store.load("old").await.unwrap(), None);
        assert!(!store.replace("old", 1, entry(2, u64::MAX)).await.unwrap());
        assert!(store.create("new", entry(1, u64::MAX)).await.unwrap());
        assert_eq!(store.len(), 1);
    }

    #[tokio::test]
    async fn only_the_expected_version_is_replaced() {
        let store = MemoryTaskStore::new();
        assert!(store.create("t", entry(1, u64::MAX)).await.unwrap());
        assert!(store.replace("t", 1, entry(2, u64::MAX)).await.unwrap());
        assert!(!store.replace("t", 1, entry(3, u64::MAX)).await.unwrap());
        assert_eq!(store.load("t").await.unwrap(), Some(entry(2, u64::MAX)));
        assert!(
            !store
                .replace("missing", 1, entry(2, u64::MAX))
                .await
                .unwrap()
        );
    }
}
