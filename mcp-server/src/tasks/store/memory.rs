//! The in-memory task store: the tasks of one instance, bounded in count and in bytes, each
//! caller's live tasks counted, expired ones forgotten.

use std::collections::HashMap;
use std::future::ready;
use std::sync::{Mutex, PoisonError};

use futures_util::future::BoxFuture;

use super::{TaskEntry, TaskShare, TaskStore, TaskStoreError};
use crate::tasks::clock::now_ms;

/// Tasks in this process's memory: the default store. Enough for one instance; behind a load
/// balancer, or to keep tasks across restarts, use `RedisTaskStore` (feature `redis`).
///
/// Bounded: it holds at most [`capacity`](Self::capacity) live tasks (default
/// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY)) and at most [`max_bytes`](Self::max_bytes)
/// bytes of them (ids and JSON; default [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES)).
/// Expired tasks read as absent and are dropped when the store fills up (and every
/// [`SWEEP_EVERY`](Self::SWEEP_EVERY) creations); when the store is full, creating one more
/// fails with [`TaskStoreError::Full`] or [`TaskStoreError::OutOfBytes`] (the call of a task
/// tool then runs as a plain call) rather than dropping a task a client may still poll. It
/// also counts each caller's live tasks ([`TaskShare`]), and refuses a creation beyond the
/// caller's quota with [`TaskStoreError::CallerQuota`], under the same lock.
///
/// ```
/// use typemcp_server::tasks::{MemoryTaskStore, TaskEntry, TaskShare, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryTaskStore::with_capacity(1);
/// let share = TaskShare::new("caller", true, 16);
/// let live = TaskEntry { version: 1, expires_at_ms: u64::MAX, data: "{}".into() };
/// assert!(store.create("a", live.clone(), &share).await.unwrap());
/// assert!(store.create("b", live, &share).await.is_err(), "full");
/// assert_eq!(store.len(), 1);
/// # });
/// ```
#[derive(Debug)]
pub struct MemoryTaskStore {
    inner: Mutex<Entries>,
    capacity: usize,
    max_bytes: usize,
}

/// One task held, with what its caller's count needs.
#[derive(Debug)]
struct Held {
    entry: TaskEntry,
    /// The caller it counts against while live (`None`: written without a share).
    caller: Option<String>,
    live: bool,
}

#[derive(Debug, Default)]
struct Entries {
    tasks: HashMap<String, Held>,
    /// Creations since the last sweep.
    created: usize,
    /// Bytes held: every task's id and JSON.
    bytes: usize,
    /// Live tasks by caller (callers with none are not kept).
    live: HashMap<String, usize>,
}

/// The bytes an entry under `id` takes in the budget.
fn size_of(id: &str, entry: &TaskEntry) -> usize {
    id.len().saturating_add(entry.data.len())
}

impl Entries {
    /// Drops every task expired at `now`.
    fn sweep(&mut self, now: u64) {
        let expired: Vec<String> = self
            .tasks
            .iter()
            .filter(|(_, held)| held.entry.expires_at_ms <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.forget(&id);
        }
        self.created = 0;
    }

    /// Drops the task `id`, and its bytes and slot.
    fn forget(&mut self, id: &str) {
        if let Some(held) = self.tasks.remove(id) {
            self.bytes = self.bytes.saturating_sub(size_of(id, &held.entry));
            if held.live {
                self.release(held.caller.as_deref());
            }
        }
    }

    /// One live task fewer for `caller`.
    fn release(&mut self, caller: Option<&str>) {
        let Some(caller) = caller else { return };
        if let Some(count) = self.live.get_mut(caller) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.live.remove(caller);
            }
        }
    }

    fn live_of(&self, caller: &str) -> usize {
        self.live.get(caller).copied().unwrap_or(0)
    }

    /// The live entry under `id`, dropping it if it expired.
    fn live(&mut self, id: &str, now: u64) -> Option<&mut Held> {
        if self
            .tasks
            .get(id)
            .is_some_and(|held| held.entry.expires_at_ms <= now)
        {
            self.forget(id);
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

    /// How many bytes of tasks (ids and JSON) a store holds unless told otherwise: 64 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;

    /// How many creations pass between two sweeps of expired tasks.
    pub const SWEEP_EVERY: usize = 1024;

    /// A store holding up to [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) live tasks and
    /// [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES) bytes.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A store holding up to `capacity` live tasks (at least one), and
    /// [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES) bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Entries::default()),
            capacity: capacity.max(1),
            max_bytes: Self::DEFAULT_MAX_BYTES,
        }
    }

    /// Bounds the bytes of the tasks held (their ids and JSON; at least one KiB): what the
    /// store's memory grows to at most, whatever clients send.
    ///
    /// ```
    /// use typemcp_server::tasks::MemoryTaskStore;
    ///
    /// let store = MemoryTaskStore::with_capacity(1_000).with_max_bytes(16 * 1024 * 1024);
    /// assert_eq!(store.max_bytes(), 16 * 1024 * 1024);
    /// ```
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes.max(1024);
        self
    }

    /// How many live tasks it may hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many bytes of tasks it may hold.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// How many tasks it holds now (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.entries().tasks.len()
    }

    /// How many bytes of tasks (ids and JSON) it holds now.
    pub fn bytes(&self) -> usize {
        self.entries().bytes
    }

    /// Whether it holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn create_now(
        &self,
        id: &str,
        entry: TaskEntry,
        share: &TaskShare,
    ) -> Result<bool, TaskStoreError> {
        let now = now_ms();
        let size = size_of(id, &entry);
        let mut entries = self.entries();
        if entries.live(id, now).is_some() {
            return Ok(false);
        }
        let counted = share.live.then_some(share);
        let over_quota = |entries: &Entries| {
            counted.is_some_and(|share| entries.live_of(&share.caller) >= share.max_live)
        };
        entries.created += 1;
        if entries.tasks.len() >= self.capacity
            || entries.bytes.saturating_add(size) > self.max_bytes
            || entries.created >= Self::SWEEP_EVERY
            || over_quota(&entries)
        {
            entries.sweep(now);
        }
        if let Some(share) = counted.filter(|_| over_quota(&entries)) {
            return Err(TaskStoreError::CallerQuota {
                max_live: share.max_live,
            });
        }
        if entries.tasks.len() >= self.capacity {
            return Err(TaskStoreError::Full {
                capacity: self.capacity,
            });
        }
        if entries.bytes.saturating_add(size) > self.max_bytes {
            return Err(TaskStoreError::OutOfBytes {
                max_bytes: self.max_bytes,
            });
        }
        let caller = counted.map(|share| share.caller.clone());
        if let Some(caller) = &caller {
            *entries.live.entry(caller.clone()).or_insert(0) += 1;
        }
        entries.bytes += size;
        entries.tasks.insert(
            id.to_owned(),
            Held {
                entry,
                live: caller.is_some(),
                caller,
            },
        );
        Ok(true)
    }

    fn replace_now(
        &self,
        id: &str,
        expected: u64,
        entry: TaskEntry,
        share: &TaskShare,
    ) -> Result<bool, TaskStoreError> {
        let now = now_ms();
        let size = size_of(id, &entry);
        let mut entries = self.entries();
        let old = match entries.live(id, now) {
            Some(current) if current.entry.version == expected => size_of(id, &current.entry),
            _ => return Ok(false),
        };
        if size > old && entries.bytes.saturating_add(size - old) > self.max_bytes {
            entries.sweep(now);
            if entries.bytes.saturating_add(size - old) > self.max_bytes {
                return Err(TaskStoreError::OutOfBytes {
                    max_bytes: self.max_bytes,
                });
            }
        }
        let Some(held) = entries.tasks.get_mut(id) else {
            return Ok(false);
        };
        held.entry = entry;
        let settled = held.live && !share.live;
        if settled {
            held.live = false;
        }
        let caller = held.caller.clone();
        entries.bytes = entries.bytes.saturating_sub(old).saturating_add(size);
        if settled {
            entries.release(caller.as_deref());
        }
        Ok(true)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(ready(self.create_now(id, entry, share)))
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>> {
        let found = self
            .entries()
            .live(id, now_ms())
            .map(|held| held.entry.clone());
        Box::pin(ready(Ok(found)))
    }

    fn replace<'a>(
        &'a self,
        id: &'a str,
        expected: u64,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(ready(self.replace_now(id, expected, entry, share)))
    }

    fn load_many<'a>(
        &'a self,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Option<TaskEntry>>, TaskStoreError>> {
        let now = now_ms();
        let mut entries = self.entries();
        let found = ids
            .iter()
            .map(|id| entries.live(id, now).map(|held| held.entry.clone()));
        Box::pin(ready(Ok(found.collect())))
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
        assert!(store.create("old", entry(1, 1), &anyone()).await.unwrap());
        assert_eq!(store.load("old").await.unwrap(), None);
        assert!(
            !store
                .replace("old", 1, entry(2, u64::MAX), &anyone())
                .await
                .unwrap()
        );
        assert!(
            store
                .create("new", entry(1, u64::MAX), &anyone())
                .await
                .unwrap()
        );
        assert_eq!(store.len(), 1);
    }

    #[tokio::test]
    async fn only_the_expected_version_is_replaced() {
        let store = MemoryTaskStore::new();
        assert!(
            store
                .create("t", entry(1, u64::MAX), &anyone())
                .await
                .unwrap()
        );
        assert!(
            store
                .replace("t", 1, entry(2, u64::MAX), &anyone())
                .await
                .unwrap()
        );
        assert!(
            !store
                .replace("t", 1, entry(3, u64::MAX), &anyone())
                .await
                .unwrap()
        );
        assert_eq!(store.load("t").await.unwrap(), Some(entry(2, u64::MAX)));
        assert!(
            !store
                .replace("missing", 1, entry(2, u64::MAX), &anyone())
                .await
                .unwrap()
        );
    }

    fn anyone() -> TaskShare {
        TaskShare::new("anyone", true, usize::MAX)
    }

    fn share(caller: &str, live: bool) -> TaskShare {
        TaskShare::new(caller, live, 2)
    }

    #[tokio::test]
    async fn a_caller_over_its_quota_is_refused_and_a_settled_task_frees_its_slot() {
        let store = MemoryTaskStore::new();
        let (alice, bob) = (share("alice", true), share("bob", true));
        assert!(
            store
                .create("a1", entry(1, u64::MAX), &alice)
                .await
                .unwrap()
        );
        assert!(
            store
                .create("a2", entry(1, u64::MAX), &alice)
                .await
                .unwrap()
        );
        let err = store.create("a3", entry(1, u64::MAX), &alice).await;
        assert!(
            matches!(err, Err(TaskStoreError::CallerQuota { max_live: 2 })),
            "{err:?}"
        );
        assert!(store.create("b1", entry(1, u64::MAX), &bob).await.unwrap());
        // Settling a1 frees alice's slot at once; renewing a2 (still live) does not.
        let settled = share("alice", false);
        assert!(
            store
                .replace("a1", 1, entry(2, u64::MAX), &settled)
                .await
                .unwrap()
        );
        assert!(
            store
                .replace("a2", 1, entry(2, u64::MAX), &alice)
                .await
                .unwrap()
        );
        assert!(
            store
                .create("a3", entry(1, u64::MAX), &alice)
                .await
                .unwrap()
        );
        let err = store.create("a4", entry(1, u64::MAX), &alice).await;
        assert!(
            matches!(err, Err(TaskStoreError::CallerQuota { .. })),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn the_byte_budget_bounds_creations_and_growth_and_shrinking_frees_it() {
        let store = MemoryTaskStore::new().with_max_bytes(2048);
        let big = TaskEntry {
            version: 1,
            expires_at_ms: u64::MAX,
            data: "x".repeat(1500),
        };
        assert!(store.create("big", big.clone(), &anyone()).await.unwrap());
        assert_eq!(store.bytes(), 1503);
        let err = store.create("two", big.clone(), &anyone()).await;
        assert!(
            matches!(err, Err(TaskStoreError::OutOfBytes { max_bytes: 2048 })),
            "{err:?}"
        );
        let grown = TaskEntry {
            version: 2,
            data: "x".repeat(3000),
            ..big.clone()
        };
        assert!(store.replace("big", 1, grown, &anyone()).await.is_err());
        let small = TaskEntry {
            version: 2,
            data: "{}".into(),
            ..big.clone()
        };
        assert!(store.replace("big", 1, small, &anyone()).await.unwrap());
        assert_eq!(store.bytes(), 5);
        assert!(store.create("two", big, &anyone()).await.unwrap());
    }

    #[tokio::test]
    async fn expired_tasks_give_back_their_bytes_and_slots() {
        let store = MemoryTaskStore::new().with_max_bytes(2048);
        let alice = share("alice", true);
        let old = TaskEntry {
            version: 1,
            expires_at_ms: 1,
            data: "x".repeat(1500),
        };
        assert!(store.create("old1", old.clone(), &alice).await.unwrap());
        assert_eq!(store.load_many(&["old1".into()]).await.unwrap(), vec![None]);
        assert!(
            store
                .create("n1", entry(1, u64::MAX), &alice)
                .await
                .unwrap()
        );
        assert!(
            store
                .create("n2", entry(1, u64::MAX), &alice)
                .await
                .unwrap()
        );
        assert_eq!(store.len(), 2);
        let found = store
            .load_many(&["n2".into(), "nope".into(), "n1".into()])
            .await
            .unwrap();
        assert_eq!(
            found,
            vec![Some(entry(1, u64::MAX)), None, Some(entry(1, u64::MAX))]
        );
    }
}
