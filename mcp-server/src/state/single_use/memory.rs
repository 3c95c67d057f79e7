//! The in-memory store: consumed states of one instance, bounded, expired ones evicted, and
//! states minted before it was created refused (it cannot know whether they were consumed).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use typemcp_core::state::Clock;

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
/// Its [epoch](super#a-store-that-forgets) is its creation: after a process restart with a
/// persistent key ring (`RequestStateSigner::from_env`, a key ring), a state minted by the
/// previous process, which may have consumed it, is refused with
/// [`Consumption::MintedBeforeEpoch`] until it expires (within one TTL); states minted from
/// the creation second on are served. The store and the signer read the same clock (the
/// system's, or one given to both), so no skew margin is needed; a restart within the second
/// a state was minted is the one case the second-granular mint time cannot tell apart.
///
/// ```
/// use typemcp_server::state::single_use::{Consumption, MemoryStore, SingleUseStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::with_capacity(10_000);
/// let (minted_at, until) = (store.epoch(), 4_000_000_000); // Unix seconds
/// assert_eq!(store.consume([1; 32], minted_at, until).await.unwrap(), Consumption::Fresh);
/// assert_eq!(store.consume([1; 32], minted_at, until).await.unwrap(), Consumption::AlreadyUsed);
/// assert_eq!(store.len(), 1);
/// # });
/// ```
pub struct MemoryStore {
    inner: Mutex<Entries>,
    capacity: usize,
    clock: Clock,
    /// The first mint second it vouches for: its creation (on its clock).
    epoch: u64,
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
            .field("epoch", &self.epoch)
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

    /// A store of at most `capacity` states (at least one), on the system clock; its epoch
    /// is now.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::default(),
            capacity: capacity.max(1),
            clock: std::sync::Arc::new(system_now),
            epoch: system_now(),
        }
    }

    /// Replaces the clock (Unix seconds) that decides which states expired, and dates the
    /// epoch by it (now on that clock): give it the signer's clock when that one is replaced
    /// too (tests of expiry).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use typemcp_server::state::single_use::{Consumption, MemoryStore, SingleUseStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let now = Arc::new(AtomicU64::new(1_000));
    /// let clock = Arc::clone(&now);
    /// let store = MemoryStore::new().with_clock(Arc::new(move || clock.load(Ordering::Relaxed)));
    /// assert_eq!(store.epoch(), 1_000);
    /// assert_eq!(store.consume([1; 32], 1_000, 1_010).await.unwrap(), Consumption::Fresh);
    /// now.store(1_011, Ordering::Relaxed); // past `until`: forgotten
    /// assert_eq!(store.consume([1; 32], 1_000, 1_600).await.unwrap(), Consumption::Fresh);
    /// // Minted before the store was created: the store cannot know, so it refuses.
    /// assert_eq!(
    ///     store.consume([2; 32], 999, 1_600).await.unwrap(),
    ///     Consumption::MintedBeforeEpoch { epoch: 1_000 }
    /// );
    /// # });
    /// ```
    #[must_use]
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.epoch = clock();
        self.clock = clock;
        self
    }

    /// The first mint second (Unix seconds) it vouches for: when it was created. A state
    /// minted before is refused ([`Consumption::MintedBeforeEpoch`]).
    pub fn epoch(&self) -> u64 {
        self.epoch
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
    fn consume_now(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> Result<Consumption, StoreError> {
        if minted_at < self.epoch {
            return Ok(Consumption::MintedBeforeEpoch { epoch: self.epoch });
        }
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
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        let result = self.consume_now(key, minted_at, until);
        Box::pin(std::future::ready(result))
    }
}

/// The system clock in Unix seconds (`0`, which evicts nothing, before 1970).
fn system_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn a_new_store_refuses_states_minted_before_it_and_serves_those_minted_since() {
        let now = Arc::new(AtomicU64::new(4_990));
        let clock = Arc::clone(&now);
        let clock: Clock = Arc::new(move || clock.load(Ordering::Relaxed));
        // The previous process, created at 4_990, consumed a state it minted then.
        let previous = MemoryStore::new().with_clock(Arc::clone(&clock));
        assert_eq!(
            previous.consume_now([1; 32], 4_990, 5_600).ok(),
            Some(Consumption::Fresh)
        );
        // Restarted at 5_000 with the same key ring: its memory is empty.
        now.store(5_000, Ordering::Relaxed);
        let restarted = MemoryStore::new().with_clock(Arc::clone(&clock));
        assert_eq!(restarted.epoch(), 5_000);
        for minted_at in [0, 4_990, 4_999] {
            assert_eq!(
                restarted.consume_now([1; 32], minted_at, 5_600).ok(),
                Some(Consumption::MintedBeforeEpoch { epoch: 5_000 }),
                "minted at {minted_at}"
            );
        }
        assert!(restarted.is_empty(), "a refused state is not recorded");
        // Minted in the creation second or later: fresh once, then a replay.
        for (key, minted_at) in [([2; 32], 5_000), ([3; 32], 5_001)] {
            assert_eq!(
                restarted.consume_now(key, minted_at, 5_600).ok(),
                Some(Consumption::Fresh)
            );
            assert_eq!(
                restarted.consume_now(key, minted_at, 5_600).ok(),
                Some(Consumption::AlreadyUsed)
            );
        }
    }
}
