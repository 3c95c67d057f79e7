//! The Redis task store: tasks shared by every instance that uses the same Redis.

use std::time::Duration;

use futures_util::future::BoxFuture;

use redis::Cmd;
use sha2::{Digest, Sha256};

use super::{TaskEntry, TaskShare, TaskStore, TaskStoreError};
use crate::redis_link::{Failure, RedisLink};
use crate::tasks::clock::now_ms;

/// Forgets, in the accounts (`KEYS[2]` index, `KEYS[3]` sizes, `KEYS[4]` bytes), up to 256
/// tasks expired at `ARGV[4]` (Redis itself expired their hashes).
const FORGET_EXPIRED: &str = r"
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[4], 'LIMIT', 0, 256)
for _, id in ipairs(gone) do
  local size = redis.call('HGET', KEYS[3], id)
  if size then
    redis.call('DECRBY', KEYS[4], size)
    redis.call('HDEL', KEYS[3], id)
  end
  redis.call('ZREM', KEYS[2], id)
end
";

/// Creates the hash (`HSET v d e`, then its expiry) unless the key exists, within the
/// caller's quota (`ARGV[8]` live tasks in `KEYS[5]`, `0`: not counted), the store's
/// capacity (`ARGV[6]` tasks) and its byte budget (`ARGV[7]`), and enters it in the
/// accounts. Returns 1 (created), 0 (the id exists), -1 (quota), -2 (count), -3 (bytes).
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local max_live = tonumber(ARGV[8])
if max_live > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', ARGV[4])
  if redis.call('ZCARD', KEYS[5]) >= max_live then return -1 end
end
if redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[4], '+inf') >= tonumber(ARGV[6]) then return -2 end
local size = tonumber(ARGV[9])
if tonumber(redis.call('GET', KEYS[4]) or '0') + size > tonumber(ARGV[7]) then return -3 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2], 'e', ARGV[3])
local score = '+inf'
if ARGV[3] ~= '0' then
  redis.call('PEXPIREAT', KEYS[1], ARGV[3])
  score = ARGV[3]
end
redis.call('ZADD', KEYS[2], score, ARGV[5])
redis.call('HSET', KEYS[3], ARGV[5], size)
redis.call('INCRBY', KEYS[4], size)
if max_live > 0 then
  redis.call('ZADD', KEYS[5], score, ARGV[5])
  if ARGV[3] ~= '0' then redis.call('PEXPIREAT', KEYS[5], ARGV[3]) else redis.call('PERSIST', KEYS[5]) end
end
return 1
";

/// Replaces the hash if its version is still `ARGV[1]`, within the byte budget (`ARGV[6]`);
/// a task no longer live (`ARGV[8]` = 0) leaves its caller's set (`KEYS[5]`). Returns 1
/// (replaced), 0 (changed meanwhile, or gone), -3 (bytes).
const REPLACE: &str = r"
local v = redis.call('HGET', KEYS[1], 'v')
if (not v) or v ~= ARGV[1] then return 0 end
local counted = redis.call('ZSCORE', KEYS[2], ARGV[5])
local old = tonumber(redis.call('HGET', KEYS[3], ARGV[5]) or '0')
local size = tonumber(ARGV[7])
if counted and size > old and tonumber(redis.call('GET', KEYS[4]) or '0') + size - old > tonumber(ARGV[6]) then
  return -3
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3], 'e', ARGV[4])
if ARGV[4] ~= '0' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) else redis.call('PERSIST', KEYS[1]) end
if counted then
  redis.call('HSET', KEYS[3], ARGV[5], size)
  redis.call('INCRBY', KEYS[4], size - old)
end
if ARGV[8] == '0' then redis.call('ZREM', KEYS[5], ARGV[5]) end
return 1
";

/// Reads every hash named in `KEYS` (`v`, `d`, `e` each): many tasks in one round trip.
const LOAD_MANY: &str = r"
local found = {}
for i, key in ipairs(KEYS) do
  found[i] = redis.call('HMGET', key, 'v', 'd', 'e')
end
return found
";

/// Tasks in Redis (feature `redis`), shared by every instance behind a load balancer that
/// connects to the same Redis: a task created on one is polled, answered and cancelled on
/// any, and outlives a restart of the instance that created it.
///
/// Each task is one hash (`v`: version, `d`: the task's JSON, `e`: expiry), written only by
/// one Lua script per operation (`EVAL`), so that creating and compare-and-swap are atomic;
/// Redis expires the key at the task's `ttlMs`. Beside the tasks, the store keeps its
/// accounts under the same prefix, changed by the same scripts: an index of the tasks by
/// expiry (`#index`), their sizes (`#sizes`) and total (`#bytes`), and for each caller the
/// set of its live tasks by expiry (`#caller:` and a hash of the caller), so that every
/// instance sharing the Redis enforces one count ([`with_capacity`](Self::with_capacity),
/// default [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY)), one byte budget
/// ([`with_max_bytes`](Self::with_max_bytes), default
/// [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES)) and each caller's quota of live tasks
/// across instances. Expired tasks leave the accounts as later tasks are created. Reading
/// many tasks (the `taskIds` of `subscriptions/listen`) is one script, one round trip. Use
/// Redis 6.2 or later, with a `maxmemory-policy` that never evicts these keys; the scripts
/// name several keys, so on a Redis Cluster put a hash tag in the prefix (`{mcp-task}:`).
///
/// Like the single-use store, the connection reconnects after a drop, and every command is
/// bounded by a timeout: a Redis that is down or too slow fails the request closed
/// (`-32603`, the reason in the log). The URL (it may carry a password) is never logged.
///
/// ```no_run
/// use typemcp_server::Server;
/// use typemcp_server::tasks::RedisTaskStore;
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
    capacity: usize,
    max_bytes: usize,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("key_prefix", &self.prefix)
            .field("capacity", &self.capacity)
            .field("max_bytes", &self.max_bytes)
            .field("timeout", &self.link.timeout())
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// The prefix of every key, by default.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mcp:task:";

    /// How many tasks not yet expired the store holds by default.
    pub const DEFAULT_CAPACITY: usize = 100_000;

    /// How many bytes of tasks (ids and JSON) the store holds by default: 256 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 256 * 1024 * 1024;

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
            capacity: Self::DEFAULT_CAPACITY,
            max_bytes: Self::DEFAULT_MAX_BYTES,
        })
    }

    setters! {
        /// Bounds how many tasks not yet expired the store holds, for every instance sharing it
        /// (default [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), at least one). Beyond it a call
        /// of a task tool runs as a plain call.
        ///
        /// ```no_run
        /// # async fn run() -> Result<(), typemcp_server::tasks::TaskStoreError> {
        /// let store = typemcp_server::tasks::RedisTaskStore::connect("redis://127.0.0.1/").await?
        ///     .with_capacity(20_000)
        ///     .with_max_bytes(64 * 1024 * 1024);
        /// # let _ = store;
        /// # Ok(())
        /// # }
        /// ```
        pub fn with_capacity(capacity: usize) |b| b.capacity = capacity.max(1);

        /// Bounds the bytes of the tasks the store holds (ids and JSON, for every instance
        /// sharing it; default [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES), at least one
        /// KiB): what clients can make Redis keep. Redis adds its own overhead per key.
        pub fn with_max_bytes(max_bytes: usize) |b| b.max_bytes = max_bytes.max(1024);

        /// Replaces the prefix of every key (default
        /// [`DEFAULT_KEY_PREFIX`](Self::DEFAULT_KEY_PREFIX)): one per deployment sharing a Redis.
        pub fn with_key_prefix(prefix: impl Into<String>) |b| b.prefix = prefix.into();
    }

    /// The prefix of every key.
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    /// The keys of the accounts, in the scripts' order after the task's: index, sizes,
    /// bytes, and the set of `caller`'s live tasks.
    fn account_keys(&self, caller: &str) -> [String; 4] {
        let prefix = &self.prefix;
        // The caller's key is hashed: no subject or address appears in a key name.
        let digest = Sha256::digest(caller.as_bytes());
        let caller: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        [
            format!("{prefix}#index"),
            format!("{prefix}#sizes"),
            format!("{prefix}#bytes"),
            format!("{prefix}#caller:{caller}"),
        ]
    }

    fn create_command(&self, id: &str, entry: &TaskEntry, share: &TaskShare) -> Cmd {
        let counted = share.live.then_some(share);
        let mut command = redis::cmd("EVAL");
        command
            .arg(format!("{FORGET_EXPIRED}{CREATE}"))
            .arg(5)
            .arg(self.key(id))
            .arg(&self.account_keys(&share.caller))
            .arg(entry.version)
            .arg(&entry.data)
            .arg(expiry(entry))
            .arg(now_ms())
            .arg(id)
            .arg(self.capacity)
            .arg(self.max_bytes)
            .arg(counted.map_or(0, |share| share.max_live.max(1)))
            .arg(size_of(id, entry));
        command
    }

    fn replace_command(
        &self,
        id: &str,
        expected: u64,
        entry: &TaskEntry,
        share: &TaskShare,
    ) -> Cmd {
        let mut command = redis::cmd("EVAL");
        command
            .arg(REPLACE)
            .arg(5)
            .arg(self.key(id))
            .arg(&self.account_keys(&share.caller))
            .arg(expected)
            .arg(entry.version)
            .arg(&entry.data)
            .arg(expiry(entry))
            .arg(id)
            .arg(self.max_bytes)
            .arg(size_of(id, entry))
            .arg(u8::from(share.live));
        command
    }

    /// Runs a `CREATE` or `REPLACE` script (`REPLACE` returns only 1, 0 or -3): whether it
    /// wrote, or the budget it met.
    async fn write(&self, command: Cmd, share: &TaskShare) -> Result<bool, TaskStoreError> {
        match self
            .link
            .query::<i64>(&command)
            .await
            .map_err(store_error)?
        {
            1 => Ok(true),
            -1 => Err(TaskStoreError::CallerQuota {
                max_live: share.max_live,
            }),
            -2 => Err(TaskStoreError::Full {
                capacity: self.capacity,
            }),
            -3 => Err(TaskStoreError::OutOfBytes {
                max_bytes: self.max_bytes,
            }),
            _ => Ok(false),
        }
    }
}

/// The bytes an entry under `id` takes in the budget.
fn size_of(id: &str, entry: &TaskEntry) -> usize {
    id.len().saturating_add(entry.data.len())
}

/// An entry from the fields of its hash (`None`: absent).
fn entry_of(version: Option<u64>, data: Option<String>, expires: Option<u64>) -> Option<TaskEntry> {
    match (version, data) {
        (Some(version), Some(data)) => Some(TaskEntry {
            version,
            expires_at_ms: expires.filter(|e| *e != 0).unwrap_or(u64::MAX),
            data,
        }),
        _ => None,
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

type Fields = (Option<u64>, Option<String>, Option<u64>);

impl TaskStore for RedisTaskStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let command = self.create_command(id, &entry, share);
        Box::pin(self.write(command, share))
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskEntry>, TaskStoreError>> {
        let mut command = redis::cmd("HMGET");
        command.arg(self.key(id)).arg("v").arg("d").arg("e");
        Box::pin(async move {
            let (version, data, expires): Fields =
                self.link.query(&command).await.map_err(store_error)?;
            Ok(entry_of(version, data, expires))
        })
    }

    fn replace<'a>(
        &'a self,
        id: &'a str,
        expected: u64,
        entry: TaskEntry,
        share: &'a TaskShare,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let command = self.replace_command(id, expected, &entry, share);
        Box::pin(self.write(command, share))
    }

    fn load_many<'a>(
        &'a self,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<Option<TaskEntry>>, TaskStoreError>> {
        let mut command = redis::cmd("EVAL");
        command.arg(LOAD_MANY).arg(ids.len());
        for id in ids {
            command.arg(self.key(id));
        }
        Box::pin(async move {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let found: Vec<Fields> = self.link.query(&command).await.map_err(store_error)?;
            Ok(found
                .into_iter()
                .map(|(version, data, expires)| entry_of(version, data, expires))
                .collect())
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
