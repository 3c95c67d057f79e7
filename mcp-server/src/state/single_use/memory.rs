//! The in-memory store: consumed states of one instance, bounded, expired ones evicted.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use mcp_core::state::Clock;

use super::{Consumption, SingleUseStore, StateDigest, StoreError};

/// Consumed states in this process's memory: enough for one instance (behind a load
/// balancer, each instance would accept a state once; use `RedisStore` there).
///
/// Bounded: it holds at most [`capacity`](Self::capacity) states (default
/// [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY)). A state is forgotten once it could no longer
/// verify, evicted in expiry order as calls come (each entry is evicted once, so the cost is
/// amortised, never a scan of the whole store). When every slot holds a state that could
/// still be replayed, it fails closed with [`StoreError::Full`] instead of forgetting one:
/// size it for the states minted within one TTL.
///
/// ```
/// use mcp_server::state::single_use::{Consumption, MemoryStore, SingleUseStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::with_capacity(10_000);
/// let until = 4_000_000_000; // Unix seconds
/// assert_eq!(store.consume([1; 32], until).await.unwrap(), Consumption::Fresh);
/// assert_eq!(store.consume([1; 32], until).await.unwrap(), Consumption::AlreadyUsed);
/// assert_eq!(store.len(), 1);
/// # });
/// ```
pub struct MemoryStore {
    inner: Mutex<Entries>,
    capacity: usize,
    clock: Clock,
}

/// The consumed states, and the same ordered by when each may be forgotten.
#[derive(Default)]
struct Entries {
    until: HashMap<StateDigest, u64>,
    by_expiry: BinaryHeap<Reverse<(u64, StateDigest)>>,
}

impl Entries {
    /// Forgets every state whose `until` is before `now`.
    fn evict(&mut self, now: u64) {
        while let Some(Reverse((until, key))) = self.by_expiry.peek().copied() {
            if until >= now {
                break;
            }
            self.by_expiry.pop();
            // A key consumed again after it expired has a later entry: keep that one.
            if self.until.get(&key) == Some(&until) {
                self.until.remove(&key);
            }
        }
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore")
            .field("len", &self.len())
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// How many states a store holds by default.
    pub const DEFAULT_CAPACITY: usize = 100_000;

    /// A store of [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) states, on the system clock.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A store of at most `capacity` states (at least one), on the system clock.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::default(),
            capacity: capacity.max(1),
            clock: std::sync::Arc::new(system_now),
        }
    }

    /// Replaces the clock (Unix seconds) that decides which states expired: give it the
    /// signer's clock when that one is replaced too (tests of expiry).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use mcp_server::state::single_use::{Consumption, MemoryStore, SingleUseStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let now = Arc::new(AtomicU64::new(1_000));
    /// let clock = Arc::clone(&now);
    /// let store = MemoryStore::new().with_clock(Arc::new(move || clock.load(Ordering::Relaxed)));
    /// assert_eq!(store.consume([1; 32], 1_010).await.unwrap(), Consumption::Fresh);
    /// now.store(1_011, Ordering::Relaxed); // past `until`: forgotten
    /// assert_eq!(store.consume([1; 32], 1_600).await.unwrap(), Consumption::Fresh);
    /// # });
    /// ```
    #[must_use]
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// How many states it holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many states it holds now (some may have expired and wait for eviction).
    pub fn len(&self) -> usize {
        self.lock().until.len()
    }

    /// Whether it holds no state.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries; a panic while they were held cannot leave them half-updated (every
    /// update is one insert after the checks), so a poisoned lock is taken over.
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The check and the insert, under one lock.
    fn consume_now(&self, key: StateDigest, until: u64) -> Result<Consumption, StoreError> {
        let now = (self.clock)();
        let mut entries = self.lock();
        entries.evict(now);
        if entries.until.contains_key(&key) {
            return Ok(Consumption::AlreadyUsed);
        }
        if entries.until.len() >= self.capacity {
            return Err(StoreError::Full {
                capacity: self.capacity,
            });
        }
        entries.until.insert(key, until);
        entries.by_expiry.push(Reverse((until, key)));
        Ok(Consumption::Fresh)
    }
}

impl SingleUseStore for MemoryStore {
    fn consume(
        &self,
        key: StateDigest,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        let result = self.consume_now(key, until);
        Box::pin(std::future::ready(result))
    }
}

/// The system clock in Unix seconds (`0`, which evicts nothing, before 1970).
fn system_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
