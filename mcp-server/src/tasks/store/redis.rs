//! The Redis task store: tasks shared by every instance that uses the same Redis.

use std::time::Duration;

use futures_util::future::BoxFuture;

use super::{TaskEntry, TaskStore, TaskStoreError};
use crate::redis_link::{Failure, RedisLink};

/// Creates the hash unless the key exists: `HSET v d e`, then its expiry.
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2], 'e', ARGV[3])
if ARGV[3] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return 1
";

/// Replaces the hash if its version is still `ARGV[1]`.
const REPLACE: &str = r"
local v = redis.call('HGET', KEYS[1], 'v')
if (not v) or v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3], 'e', ARGV[4])
if ARGV[4] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) else redis.call('PERSIST', KEYS[1]) end
return 1
";

/// Tasks in Redis (feature `redis`), shared by every instance behind a load balancer that
/// connects to the same Redis: a task created on one is polled, answered and cancelled on
/// any, and outlives a restart of the instance that created it.
///
/// Each task is one hash (`v`: version, `d`: the task's JSON, `e`: expiry), written only by
/// one Lua script per operation (`EVAL`), so that creating and compare-and-swap are atomic;
/// Redis expires the key at the task's `ttlMs`, so it needs no cleanup. Use Redis 6.2 or
/// later, with a `maxmemory-policy` that never evicts these keys.
///
/// Like the single-use store, the connection reconnects after a drop, and every command is
/// bounded by a timeout: a Redis that is down or too slow fails the request closed
/// (`-32603`, the reason in the log). The URL (it may carry a password) is never logged.
///
/// ```no_run
/// use mcp_server::Server;
/// use mcp_server::tasks::RedisTaskStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisTaskStore::connect("redis://127.0.0.1:6379/").await?
///     .with_key_prefix("deploy:task:");
/// let server = Server::builder().task_store(store).build()?;
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    link: RedisLink,
    prefix: String,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("key_prefix", &self.prefix)
            .field("timeout", &self.link.timeout())
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// The prefix of every key, by default.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mcp:task:";

    /// How long connecting, and each command, may take by default.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

    /// Connects to the Redis at `url` (`redis://[:password@]host[:port][/db]`), within
    /// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT).
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        Self::connect_with_timeout(url, Self::DEFAULT_TIMEOUT).await
    }

    /// Connects to the Redis at `url`, bounding the connection and every later command by
    /// `timeout` (at least one millisecond).
    pub async fn connect_with_timeout(
        url: &str,
        timeout: Duration,
    ) -> Result<Self, TaskStoreError> {
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

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }
}

/// The expiry argument of the scripts: Unix milliseconds, `0` for none.
fn expiry(entry: &TaskEntry) -> u64 {
    /// Beyond this (the year 9999), a task does not expire.
    const NEVER: u64 = 253_402_300_799_999;
    if entry.expires_at_ms >= NEVER {
        0
    } else {
        entry.expires_at_ms
    }
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        entry: TaskEntry,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let mut command = redis::cmd("EVAL");
        command
            .arg(CREATE)
            .arg(1)
            .arg(self.key(id))
            .arg(entry.version)
            .arg(&entry.data)
            .arg(expiry(&entry));
        Box::pin(async move {
            self.link
                .query::<i64>(&command)
                .await
                .map(|created| created == 1)
                .map_err(store_error)
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>> {
        let mut command = redis::cmd("HMGET");
        command.arg(self.key(id)).arg("v").arg("d").arg("e");
        Box::pin(async move {
            let (version, data, expires): (Option<u64>, Option<String>, Option<u64>) =
                self.link.query(&command).await.map_err(store_error)?;
            Ok(match (version, data) {
                (Some(version), Some(data)) => Some(TaskEntry {
                    version,
                    expires_at_ms: expires.filter(|e| *e != 0).unwrap_or(u64::MAX),
                    data,
                }),
                _ => None,
            })
        })
    }

    fn replace<'a>(
        &'a self,
        id: &'a str,
        expected: u64,
        entry: TaskEntry,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let mut command = redis::cmd("EVAL");
        command
            .arg(REPLACE)
            .arg(1)
            .arg(self.key(id))
            .arg(expected)
            .arg(entry.version)
            .arg(&entry.data)
            .arg(expiry(&entry));
        Box::pin(async move {
            self.link
                .query::<i64>(&command)
                .await
                .map(|replaced| replaced == 1)
                .map_err(store_error)
        })
    }
}

/// A Redis failure as the store's error (its text names the failure, never the URL).
fn store_error(failure: Failure) -> TaskStoreError {
    match failure {
        Failure::Timeout(timeout) => TaskStoreError::Timeout(timeout),
        Failure::Redis(err) => TaskStoreError::Unavailable(Box::new(err)),
    }
}
