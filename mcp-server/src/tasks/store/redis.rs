//! The Redis task store: tasks shared by every instance that uses the same Redis.

use std::time::Duration;

use futures_util::future::BoxFuture;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::{TaskEntry, TaskStore, TaskStoreError};

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
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("key_prefix", &self.prefix)
            .field("timeout", &self.timeout)
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
        let timeout = timeout.max(Duration::from_millis(1));
        let client = redis::Client::open(url).map_err(unavailable)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(2)
            .set_max_delay(timeout);
        let connecting = ConnectionManager::new_with_config(client, config);
        let connection = tokio::time::timeout(timeout, connecting)
            .await
            .map_err(|_| TaskStoreError::Timeout(timeout))?
            .map_err(unavailable)?;
        Ok(Self {
            connection,
            prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
            timeout,
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

    /// Runs `command` within the timeout.
    async fn run<T: redis::FromRedisValue>(
        &self,
        command: redis::Cmd,
    ) -> Result<T, TaskStoreError> {
        let mut connection = self.connection.clone();
        tokio::time::timeout(self.timeout, command.query_async(&mut connection))
            .await
            .map_err(|_| TaskStoreError::Timeout(self.timeout))?
            .map_err(unavailable)
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
        Box::pin(async move { self.run::<i64>(command).await.map(|created| created == 1) })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>> {
        let mut command = redis::cmd("HMGET");
        command.arg(self.key(id)).arg("v").arg("d").arg("e");
        Box::pin(async move {
            let (version, data, expires): (Option<u64>, Option<String>, Option<u64>) =
                self.run(command).await?;
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
        Box::pin(async move { self.run::<i64>(command).await.map(|replaced| replaced == 1) })
    }
}

/// A Redis error as the store's error (its text names the failure, never the URL).
fn unavailable(err: redis::RedisError) -> TaskStoreError {
    TaskStoreError::Unavailable(Box::new(err))
}
