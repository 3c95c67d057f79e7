//! Single use: each state is consumed once, atomically, and a replay of a consumed state is
//! refused like any bad state.
//!
//! A [`SingleUseStore`] remembers which states were consumed, each until the moment it could
//! no longer verify anyway. It sees only the SHA-256 of a token, never the token itself.
//! Two stores come with the SDK: [`MemoryStore`] (one instance, bounded) and `RedisStore`
//! (feature `redis`; instances behind a load balancer share it). A store that fails (full,
//! unreachable, too slow) fails the request closed: `-32603`, and the failure in the log.
//!
//! # A store that forgets
//!
//! A store that lost what it recorded (a process restart with a persistent key ring, a
//! Redis restarted without persistence, `FLUSHALL`, a failover to an empty replica) would
//! find a state consumed before the loss fresh, and a finished flow would run again. So each
//! store has an *epoch*: the first mint second it vouches for, since which it has kept every
//! consumption. A state minted before it is refused
//! ([`Consumption::MintedBeforeEpoch`]: the usual `-32602`, the reason in the log) instead of
//! being taken as fresh. Only states minted before the loss are refused, and those expire
//! within one TTL; new flows work at once. [`MemoryStore`]'s epoch is its creation;
//! `RedisStore` keeps it in a marker key that never expires, read and, when missing, written
//! in the same atomic step as each consumption.
//!
//! ```
//! use typemcp_server::state::RequestStateSigner;
//! use typemcp_server::state::single_use::MemoryStore;
//!
//! let signer = RequestStateSigner::generate().unwrap().single_use(MemoryStore::new());
//! assert!(signer.is_single_use());
//! ```

mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;

/// The SHA-256 of a token's text: what a store records (never the token).
pub type StateDigest = [u8; 32];

/// What consuming a state found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Consumption {
    /// Not seen before: it is now recorded as consumed, and the request may run.
    Fresh,
    /// Consumed already: a replay, refused.
    AlreadyUsed,
    /// Minted before `epoch`, the first mint second the store vouches for (it lost its data
    /// since, or is newer than the state): the store cannot tell whether it was consumed, so
    /// it is refused like a replay. Nothing is recorded.
    MintedBeforeEpoch {
        /// The store's epoch (Unix seconds).
        epoch: u64,
    },
}

/// Why a store could not tell whether a state was consumed. The request fails closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Every slot holds a state that could still be replayed: forgetting one would let it
    /// be replayed, so nothing more is accepted until some expire.
    #[error("the single-use store is full ({capacity} states not yet expired)")]
    Full {
        /// The store's capacity.
        capacity: usize,
    },
    /// The store did not answer in time.
    #[error("the single-use store did not answer within {0:?}")]
    Timeout(Duration),
    /// The store cannot be reached, or refused the command.
    #[error("the single-use store is unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// An unavailable store, with its reason (for stores outside the SDK).
    pub fn unavailable(reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Unavailable(reason.into())
    }
}

/// Where consumed states are recorded: one atomic "record if absent" per state.
///
/// `consume` records `key` (the SHA-256 of a token) as consumed and says whether it was
/// recorded already. It must be atomic: of two concurrent calls with the same key, exactly
/// one finds it [`Fresh`](Consumption::Fresh). The store must remember the key at least
/// through the Unix second `until` (inclusive), and may forget it after: the signer passes
/// the token's expiry plus its clock skew, so a forgotten state no longer verifies
/// anywhere. When in doubt, return an error: the request then fails closed.
///
/// `minted_at` is when the state was minted (Unix seconds, the minting instance's clock:
/// its expiry minus the signer's TTL). A store that may lose what it recorded keeps an epoch,
/// the first mint second it vouches for, and answers
/// [`MintedBeforeEpoch`](Consumption::MintedBeforeEpoch) for a state minted before it,
/// checked atomically with the consumption; a store that never forgets ignores `minted_at`.
/// Changed in 0.1: the `minted_at` argument and the `MintedBeforeEpoch` answer are new; a
/// store that never forgets adds the argument and ignores it.
///
/// The trait is object safe; a server holds its store as `Arc<dyn SingleUseStore>`.
///
/// ```
/// use std::collections::HashSet;
/// use std::sync::Mutex;
/// use futures_util::future::BoxFuture;
/// use typemcp_server::state::single_use::{Consumption, SingleUseStore, StateDigest, StoreError};
///
/// /// Forgets on restart: its epoch is when it was made (a sketch: a real store also
/// /// evicts after `until`).
/// struct Forgetful {
///     epoch: u64,
///     seen: Mutex<HashSet<StateDigest>>,
/// }
///
/// impl SingleUseStore for Forgetful {
///     fn consume(
///         &self,
///         key: StateDigest,
///         minted_at: u64,
///         _until: u64,
///     ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
///         let found = if minted_at < self.epoch {
///             Ok(Consumption::MintedBeforeEpoch { epoch: self.epoch })
///         } else {
///             self.seen.lock().map(|mut seen| {
///                 if seen.insert(key) { Consumption::Fresh } else { Consumption::AlreadyUsed }
///             })
///             .map_err(|_| StoreError::unavailable("poisoned"))
///         };
///         Box::pin(std::future::ready(found))
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Forgetful { epoch: 1_000, seen: Mutex::default() };
/// assert_eq!(store.consume([7; 32], 1_000, 2_000).await.unwrap(), Consumption::Fresh);
/// assert_eq!(store.consume([7; 32], 1_000, 2_000).await.unwrap(), Consumption::AlreadyUsed);
/// assert_eq!(
///     store.consume([8; 32], 999, 2_000).await.unwrap(),
///     Consumption::MintedBeforeEpoch { epoch: 1_000 }
/// );
/// # });
/// ```
pub trait SingleUseStore: Send + Sync + 'static {
    /// Records `key`, minted at the Unix second `minted_at`, as consumed through the Unix
    /// second `until`, atomically, and says whether it was recorded already (or was minted
    /// before the store's epoch).
    fn consume(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>>;
}

impl<T: SingleUseStore + ?Sized> SingleUseStore for Arc<T> {
    fn consume(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        (**self).consume(key, minted_at, until)
    }
}

impl<T: SingleUseStore + ?Sized> SingleUseStore for Box<T> {
    fn consume(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        (**self).consume(key, minted_at, until)
    }
}

/// The SHA-256 of a token's text.
pub(crate) fn digest(token: &str) -> StateDigest {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes()).into()
}
