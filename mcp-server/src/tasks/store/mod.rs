//! Where tasks live: one trait, [`TaskStore`], a key-value map with compare-and-swap, and two
//! stores that come with the SDK: [`MemoryTaskStore`] (one instance, bounded) and
//! `RedisTaskStore` (feature `redis`), which every instance behind a load balancer shares, so
//! that any of them answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task another
//! one runs.
//!
//! A store holds each task as an opaque [`TaskEntry`]: the task's JSON, a version that every
//! change increments, and the moment the task may be forgotten (its `ttlMs` after creation).
//! The SDK never changes a task without naming the version it read
//! ([`replace`](TaskStore::replace)), so two instances changing one task at once cannot
//! overwrite each other: one wins, the other reads again. A store that fails (unreachable,
//! too slow) fails the request closed: `-32603`, the reason in the log. A store that is full
//! (its count or its bytes) makes a new call of a task tool run as a plain call instead.
//!
//! Each write also names the task's [`TaskShare`]: whose task it is and whether it is still
//! live (working or waiting for input), so that a store keeps each caller's live tasks
//! within its quota in the same atomic step, and frees the caller's slot the moment the
//! task settles.
//!
//! ```
//! use std::time::Duration;
//! use typemcp_server::Server;
//! use typemcp_server::tasks::MemoryTaskStore;
//!
//! let server = Server::builder()
//!     .task_store(MemoryTaskStore::with_capacity(50_000))
//!     .task_ttl(Duration::from_secs(3600))
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

pub use memory::MemoryTaskStore;
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;

/// One task as a store holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskEntry {
    /// Incremented by every change; [`TaskStore::replace`] names the version it replaces.
    pub version: u64,
    /// When the store may forget the task: Unix time in milliseconds.
    pub expires_at_ms: u64,
    /// The task, as JSON the SDK wrote (hold it byte for byte).
    pub data: String,
}

/// Whose task an entry is, passed with every write of the SDK, so that a store can count a
/// caller's live tasks atomically with the write.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskShare {
    /// The caller the task counts against: an opaque key the SDK derives from the
    /// authenticated subject or the peer address (never shown to clients).
    pub caller: String,
    /// Whether the task is live after this write (working, or waiting for input). Only live
    /// tasks count against the caller; a write that settles the task frees its slot.
    pub live: bool,
    /// The most live tasks the caller may have: a creation beyond it fails with
    /// [`TaskStoreError::CallerQuota`].
    pub max_live: usize,
}

impl TaskShare {
    /// The share of a task of `caller`, live or not, under a quota of `max_live`.
    pub fn new(caller: impl Into<String>, live: bool, max_live: usize) -> Self {
        Self {
            caller: caller.into(),
            live,
            max_live,
        }
    }
}

/// Why a store could not do what it was asked. The request fails closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds as many live tasks as it may.
    #[error("the task store is full ({capacity} tasks not yet expired)")]
    Full {
        /// The store's capacity.
        capacity: usize,
    },
    /// The store holds as many bytes of tasks as it may.
    #[error("the task store is full ({max_bytes} bytes of tasks not yet expired)")]
    OutOfBytes {
        /// The store's byte budget.
        max_bytes: usize,
    },
    /// The caller already has as many live tasks as its quota allows.
    #[error("the caller already has {max_live} live tasks")]
    CallerQuota {
        /// The quota.
        max_live: usize,
    },
    /// The store did not answer in time.
    #[error("the task store did not answer within {0:?}")]
    Timeout(Duration),
    /// The store cannot be reached, or refused the command.
    #[error("the task store is unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl TaskStoreError {
    /// An unavailable store, with its reason (for stores outside the SDK).
    pub fn unavailable(reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Unavailable(reason.into())
    }
}

/// Where tasks are kept: create if absent, load, and replace a given version.
///
/// Every operation must be atomic and, once its future resolves, visible to every instance
/// sharing the store (a task is created "durably" before its id is handed out). Entries past
/// their `expires_at_ms` may be forgotten, and must read as absent once forgotten.
///
/// Every write names the caller the task counts against ([`TaskShare`]): a store keeps each
/// caller within its quota of live tasks, so that no caller can fill it for the others.
/// [`load_many`](Self::load_many) reads many tasks at once; by default, one by one.
///
/// The trait is object safe; a server holds its store as `Arc<dyn TaskStore>`.
///
/// ```
/// use typemcp_server::tasks::{MemoryTaskStore, TaskEntry, TaskShare, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryTaskStore::new();
/// let share = TaskShare::new("caller", true, 16);
/// let entry = TaskEntry { version: 1, expires_at_ms: u64::MAX, data: "{}".into() };
/// assert!(store.create("t1", entry.clone(), &share).await.unwrap());
/// assert!(!store.create("t1", entry.clone(), &share).await.unwrap(), "ids are never reused");
/// let next = TaskEntry { version: 2, data: r#"{"x":1}"#.into(), ..entry };
/// assert!(store.replace("t1", 1, next.clone(), &share).await.unwrap());
/// assert!(!store.replace("t1", 1, next.clone(), &share).await.unwrap(), "version 1 is gone");
/// assert_eq!(store.load("t1").await.unwrap(), Some(next));
/// # });
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// Stores `entry` under `id` unless `id` exists, and says whether it was stored; counts
    /// the task against `share.caller` when it is `share.live`, failing with
    /// [`TaskStoreError::CallerQuota`] when the caller has `share.max_live` live tasks
    /// already, in the same atomic step as the creation.
    fn create<'a>(
        &'a self,
        id: &'a str,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// The entry under `id`, if there is one (and it has not expired).
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>>;

    /// Replaces the entry under `id` with `entry` if its version is still `expected`, and
    /// says whether it did (`false`: changed meanwhile, or gone); a task that is no longer
    /// `share.live` stops counting against its caller at once.
    fn replace<'a>(
        &'a self,
        id: &'a str,
        expected: u64,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// The entries under `ids`, in their order (`None` for each that is absent). By default,
    /// [`load`](Self::load) for each in turn; a store over the network should read them in
    /// one round trip.
    fn load_many<'a>(
        &'a self,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Option<TaskEntry>>, TaskStoreError>> {
        Box::pin(async move {
            let mut found = Vec::with_capacity(ids.len());
            for id in ids {
                found.push(self.load(id).await?);
            }
            Ok(found)
        })
    }
}

impl<T: TaskStore + ?Sized> TaskStore for Arc<T> {
    fn create<'a>(
        &'a self,
        id: &'a str,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        (**self).create(id, entry, share)
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>> {
        (**self).load(id)
    }

    fn replace<'a>(
        &'a self,
        id: &'a str,
        expected: u64,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        (**self).replace(id, expected, entry, share)
    }

    fn load_many<'a>(
        &'a self,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Option<TaskEntry>>, TaskStoreError>> {
        (**self).load_many(ids)
    }
}
