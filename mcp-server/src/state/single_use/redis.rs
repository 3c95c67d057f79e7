//! The Redis store: consumed states shared by every instance that uses the same Redis, and
//! the epoch marker that tells a Redis that lost them from one that never had them.

use std::time::Duration;

use futures_util::future::BoxFuture;

use super::{Consumption, SingleUseStore, StateDigest, StoreError};
use crate::redis_link::{Failure, RedisLink};

/// One consumption, atomically (Redis runs a script whole): read the epoch marker (the first
/// mint second this Redis vouches for) and, when it is missing, date it `TIME` plus the clock
/// skew (a loss found while instances run); refuse a state minted before it, recording
/// nothing; else `SET NX EXAT`. Replies `{0 fresh | 1 already used | 2 before the epoch,
/// epoch}`.
const CONSUME: &str = r"
local epoch = tonumber(redis.call('GET', KEYS[1]))
if not epoch then
  epoch = tonumber(redis.call('TIME')[1]) + tonumber(ARGV[3])
  redis.call('SET', KEYS[1], epoch)
end
if tonumber(ARGV[1]) < epoch then
  return {2, epoch}
end
if redis.call('SET', KEYS[2], '1', 'NX', 'EXAT', ARGV[2]) then
  return {0, epoch}
end
return {1, epoch}
";

/// Opening a store: when the marker is missing, date it `TIME` and reply the epoch. No skew
/// margin here: this is how a new deployment starts (its first flows must work), and every
/// state minted before now is still refused; only a state minted by an instance whose clock
/// runs ahead, just before a loss that happened while no instance consumed, escapes it.
const OPEN: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], redis.call('TIME')[1])
end
return tonumber(redis.call('GET', KEYS[1]))
";

/// Consumed states in Redis (feature `redis`), shared by every instance behind a load
/// balancer that connects to the same Redis: a state consumed on one is refused on all.
///
/// Each consumption is one atomic script (Redis 6.2 or later): of two instances consuming
/// the same state at once, exactly one records it (`SET <prefix><hex digest> 1 NX EXAT
/// <until + 1>`). Redis forgets the key once the state could no longer verify anywhere, so it
/// needs no cleanup; give it enough memory for the states minted within one TTL (about 100
/// bytes each).
///
/// # Durability, and a Redis that forgets
///
/// The store's [epoch](super#a-store-that-forgets) is the marker key `<prefix>epoch`, which
/// never expires: the first mint second this Redis vouches for. Connecting (and
/// [`with_key_prefix`](Self::with_key_prefix)) writes it when missing, dated now by Redis's
/// `TIME`, before any state of this deployment is minted. Each consumption reads it in the
/// same script; if it is missing there, Redis lost its data while instances ran (a restart
/// without persistence, `FLUSHALL` or `FLUSHDB`, a failover to an empty replica, an
/// `allkeys-*` eviction): the script writes it again, dated `TIME` plus the
/// [clock skew](Self::with_clock_skew), and every state minted before is refused
/// ([`Consumption::MintedBeforeEpoch`], the usual `-32602`, the reason in the log) until it
/// expires, within one TTL. Flows started after that work at once.
///
/// Clocks: a state's mint time is its minting instance's clock, the epoch Redis's. An
/// instance whose clock runs ahead of Redis dates its states later than they were; the skew
/// (default [`DEFAULT_CLOCK_SKEW`](Self::DEFAULT_CLOCK_SKEW), the signer's default too)
/// covers that, at the price of also refusing states minted in the first seconds after a
/// loss. Keep the instances' clocks and Redis's within it (NTP).
///
/// What the marker cannot see, so what Redis needs:
/// - **Persistence** (AOF, or RDB): the marker detects losing everything, not losing the
///   latest writes. An RDB snapshot, or AOF with `appendfsync everysec`, restored after a
///   crash holds the marker but not the consumptions after it: those states could be
///   replayed until they expire. Prefer AOF with `appendfsync always`; after restoring a
///   backup or any doubt, delete the marker (`DEL <prefix>epoch`): every state minted before
///   is then refused.
/// - **No eviction of these keys**: `maxmemory-policy noeviction` (writes then fail, and the
///   request fails closed). Any `volatile-*` or `allkeys-*` policy may evict a consumed key,
///   which has a TTL, while keeping the marker: that state could be replayed.
/// - **The primary only**: connect to the primary, never to a replica, and after a failover
///   to a replica that may lag, delete the marker as above (a lagging replica has the marker
///   but not the latest consumptions).
///
/// The connection is a [`ConnectionManager`](redis::aio::ConnectionManager): it reconnects after a dropped connection.
/// Every command is bounded by a timeout ([`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT) unless
/// [`connect_with_timeout`](Self::connect_with_timeout) says otherwise): a Redis that is down,
/// unreachable or too slow fails the request closed (`-32603`, the reason in the log), and
/// requests do not hang on it. The URL (it may carry a password) is never logged.
///
/// ```no_run
/// use std::time::Duration;
/// use typemcp_server::state::RequestStateSigner;
/// use typemcp_server::state::single_use::RedisStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisStore::connect("redis://127.0.0.1:6379/").await?
///     .with_key_prefix("deploy:used:").await?
///     .with_clock_skew(Duration::from_secs(2));
/// let signer = RequestStateSigner::from_env("MCP_REQUEST_STATE_KEY")?.single_use(store);
/// # let _ = signer;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    link: RedisLink,
    prefix: String,
    /// Added to `TIME` when a consumption finds the marker missing.
    skew: Duration,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("key_prefix", &self.prefix)
            .field("timeout", &self.link.timeout())
            .field("clock_skew", &self.skew)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// The prefix of every key, by default.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mcp:request-state:used:";

    /// How long connecting, and each command, may take by default.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

    /// How far the instances' clocks and Redis's may disagree, by default (five seconds,
    /// the request-state signer's default clock skew).
    pub const DEFAULT_CLOCK_SKEW: Duration = typemcp_core::state::StateSigner::DEFAULT_CLOCK_SKEW;

    /// The suffix of the epoch marker's key, after the prefix (a consumed state's key is
    /// 64 hex digits there, so they never collide).
    pub const EPOCH_KEY_SUFFIX: &'static str = "epoch";

    /// Connects to the Redis at `url` (`redis://[:password@]host[:port][/db]`), within
    /// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT), and writes the epoch marker of the
    /// default prefix when missing.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_timeout(url, Self::DEFAULT_TIMEOUT).await
    }

    /// Connects to the Redis at `url`, bounding the connection and every later command by
    /// `timeout` (at least one millisecond), and writes the epoch marker of the default
    /// prefix when missing.
    pub async fn connect_with_timeout(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        let link = RedisLink::connect(url, timeout)
            .await
            .map_err(store_error)?;
        let store = Self {
            link,
            prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
            skew: Self::DEFAULT_CLOCK_SKEW,
        };
        store.open().await?;
        Ok(store)
    }

    /// Replaces the prefix of every key (default
    /// [`DEFAULT_KEY_PREFIX`](Self::DEFAULT_KEY_PREFIX)): one per deployment sharing a Redis.
    /// Writes that prefix's epoch marker when missing, so it is async (changed in 0.1).
    pub async fn with_key_prefix(mut self, prefix: impl Into<String>) -> Result<Self, StoreError> {
        self.prefix = prefix.into();
        self.open().await?;
        Ok(self)
    }

    /// How far the clocks of the instances and of Redis may disagree (default
    /// [`DEFAULT_CLOCK_SKEW`](Self::DEFAULT_CLOCK_SKEW)): after a loss, states minted up to
    /// this long after the loss are refused too, so that one minted just before it by an
    /// instance whose clock runs ahead is. Counted in whole seconds (a fraction rounds up).
    #[must_use]
    pub fn with_clock_skew(mut self, skew: Duration) -> Self {
        self.skew = skew;
        self
    }

    /// The clock skew added to the epoch after a loss.
    pub fn clock_skew(&self) -> Duration {
        self.skew
    }

    /// The epoch (Unix seconds, Redis's clock): the first mint second this Redis vouches for,
    /// writing the marker when missing (dated now).
    pub async fn epoch(&self) -> Result<u64, StoreError> {
        self.open().await
    }

    /// Writes the epoch marker when missing; returns the epoch.
    async fn open(&self) -> Result<u64, StoreError> {
        let mut command = redis::cmd("EVAL");
        command.arg(OPEN).arg(1).arg(self.epoch_key());
        self.link.query(&command).await.map_err(store_error)
    }

    /// The epoch marker's key: the prefix, then [`EPOCH_KEY_SUFFIX`](Self::EPOCH_KEY_SUFFIX).
    pub fn epoch_key(&self) -> String {
        format!("{}{}", self.prefix, Self::EPOCH_KEY_SUFFIX)
    }

    /// The prefix of every key.
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    /// How long each command may take.
    pub fn timeout(&self) -> Duration {
        self.link.timeout()
    }

    /// The key recording `digest`: the prefix, then the digest in lowercase hex.
    fn key(&self, digest: &StateDigest) -> String {
        use std::fmt::Write;
        let mut key = String::with_capacity(self.prefix.len() + 64);
        key.push_str(&self.prefix);
        for byte in digest {
            let _ = write!(key, "{byte:02x}");
        }
        key
    }
}

impl SingleUseStore for RedisStore {
    fn consume(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        let skew = self.skew.as_secs() + u64::from(self.skew.subsec_nanos() > 0);
        let mut command = redis::cmd("EVAL");
        command
            .arg(CONSUME)
            .arg(2)
            .arg(self.epoch_key())
            .arg(self.key(&key))
            .arg(minted_at)
            // EXAT t expires the key at the start of second t; the state stays replayable
            // through the whole of second `until`.
            .arg(until.saturating_add(1))
            .arg(skew);
        Box::pin(async move {
            let reply: (u8, u64) = self.link.query(&command).await.map_err(store_error)?;
            match reply {
                (0, _) => Ok(Consumption::Fresh),
                (1, _) => Ok(Consumption::AlreadyUsed),
                (2, epoch) => Ok(Consumption::MintedBeforeEpoch { epoch }),
                (other, _) => Err(StoreError::unavailable(format!(
                    "unexpected reply to the consumption script: {other}"
                ))),
            }
        })
    }
}

/// A Redis failure as the store's error (its text names the failure, never the URL).
fn store_error(failure: Failure) -> StoreError {
    match failure {
        Failure::Timeout(timeout) => StoreError::Timeout(timeout),
        Failure::Redis(err) => StoreError::Unavailable(Box::new(err)),
    }
}
