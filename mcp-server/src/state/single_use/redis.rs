//! The Redis store: consumed states shared by every instance that uses the same Redis.

use std::time::Duration;

use futures_util::future::BoxFuture;

use super::{Consumption, SingleUseStore, StateDigest, StoreError};
use crate::redis_link::{Failure, RedisLink};

/// Consumed states in Redis (feature `redis`), shared by every instance behind a load
/// balancer that connects to the same Redis: a state consumed on one is refused on all.
///
/// Each consumption is one atomic command, `SET <prefix><hex digest> 1 NX EXAT <until + 1>`
/// (Redis 6.2 or later): of two instances consuming the same state at once, exactly one sets
/// the key. Redis forgets the key once the state could no longer verify anywhere, so it needs
/// no cleanup; give it enough memory for the states minted within one TTL (about 100 bytes
/// each) and a `maxmemory-policy` that never evicts these keys (`noeviction`, or a
/// `volatile-*` policy on an instance holding nothing else).
///
/// The connection is a [`ConnectionManager`](redis::aio::ConnectionManager): it reconnects after a dropped connection.
/// Every command is bounded by a timeout ([`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT) unless
/// [`connect_with_timeout`](Self::connect_with_timeout) says otherwise): a Redis that is down,
/// unreachable or too slow fails the request closed (`-32603`, the reason in the log), and
/// requests do not hang on it. The URL (it may carry a password) is never logged.
///
/// ```no_run
/// use mcp_server::state::RequestStateSigner;
/// use mcp_server::state::single_use::RedisStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisStore::connect("redis://127.0.0.1:6379/").await?
///     .with_key_prefix("deploy:used:");
/// let signer = RequestStateSigner::from_env("MCP_REQUEST_STATE_KEY")?.single_use(store);
/// # let _ = signer;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    link: RedisLink,
    prefix: String,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("key_prefix", &self.prefix)
            .field("timeout", &self.link.timeout())
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// The prefix of every key, by default.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mcp:request-state:used:";

    /// How long connecting, and each command, may take by default.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

    /// Connects to the Redis at `url` (`redis://[:password@]host[:port][/db]`), within
    /// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with_timeout(url, Self::DEFAULT_TIMEOUT).await
    }

    /// Connects to the Redis at `url`, bounding the connection and every later command by
    /// `timeout` (at least one millisecond).
    pub async fn connect_with_timeout(url: &str, timeout: Duration) -> Result<Self, StoreError> {
        let link = RedisLink::connect(url, timeout)
            .await
            .map_err(store_error)?;
        Ok(Self {
            link,
            prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
        })
    }

    /// Replaces the prefix of every key (default
    /// [`DEFAULT_KEY_PREFIX`](Self::DEFAULT_KEY_PREFIX)): one per deployment sharing a Redis.
    #[must_use]
    pub fn with_key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
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
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(&key))
            .arg(1)
            .arg("NX")
            .arg("EXAT")
            // EXAT t expires the key at the start of second t; the state stays replayable
            // through the whole of second `until`.
            .arg(until.saturating_add(1));
        Box::pin(async move {
            let reply: redis::Value = self.link.query(&command).await.map_err(store_error)?;
            match reply {
                redis::Value::Okay => Ok(Consumption::Fresh),
                redis::Value::Nil => Ok(Consumption::AlreadyUsed),
                other => Err(StoreError::unavailable(format!(
                    "unexpected reply to SET NX: {other:?}"
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
