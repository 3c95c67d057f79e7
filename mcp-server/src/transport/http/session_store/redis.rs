//! The Redis store: sessions every instance connected to one Redis serves, and the
//! messages between instances over Redis pub/sub.

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use super::{NewSession, Opened, SessionStore, SessionStoreError};
use crate::redis_link::{Failure, RedisLink};

/// Opening a session, atomically: drop the expired members of the caller's and the
/// store's sets (scored by expiry, in milliseconds of Redis's `TIME`); at the caller's share
/// or the store's most, end the session unused longest of the caller (or of all) if it has
/// been unused for the minimum idle time, else refuse; then store the record and count it.
/// Replies 0 stored, 1 caller share, 2 full.
const OPEN: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local idle = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local function give_way(set)
  local oldest = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  if not oldest[1] or now - (tonumber(oldest[2]) - idle) < tonumber(ARGV[5]) then
    return false
  end
  local key = ARGV[7] .. oldest[1]
  local caller = redis.call('HGET', key, 'c')
  redis.call('DEL', key)
  redis.call('ZREM', KEYS[3], oldest[1])
  if caller then redis.call('ZREM', caller, oldest[1]) end
  return true
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  if not give_way(KEYS[2]) then return 1 end
elseif redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then
  if not give_way(KEYS[3]) then return 2 end
end
redis.call('HSET', KEYS[1], 'r', ARGV[1], 'c', KEYS[2])
redis.call('PEXPIRE', KEYS[1], idle)
redis.call('ZADD', KEYS[2], now + idle, ARGV[6])
redis.call('PEXPIRE', KEYS[2], idle)
redis.call('ZADD', KEYS[3], now + idle, ARGV[6])
return 0
";

/// Loading a session: its record, its expiry renewed in its key and both sets.
const LOAD: &str = r"
local found = redis.call('HMGET', KEYS[1], 'r', 'c')
if not found[1] then return false end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local idle = tonumber(ARGV[1])
redis.call('PEXPIRE', KEYS[1], idle)
redis.call('ZADD', KEYS[2], 'XX', now + idle, ARGV[2])
if found[2] then
  redis.call('ZADD', found[2], 'XX', now + idle, ARGV[2])
  redis.call('PEXPIRE', found[2], idle)
end
return found[1]
";

/// Replacing a record, if the session is still held.
const UPDATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'r', ARGV[1])
end
return 0
";

/// Ending a session: its key and its place in both sets. Replies whether it was held.
const REMOVE: &str = r"
local caller = redis.call('HGET', KEYS[1], 'c')
if not caller then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', caller, ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
";

use super::QUEUE;

/// Sessions in Redis (feature `redis`), served by every instance that connects to the same
/// Redis (6.2 or later, not a cluster: each step is one script over several keys).
///
/// Keys, under the prefix (default [`DEFAULT_KEY_PREFIX`](Self::DEFAULT_KEY_PREFIX)):
/// `s:<session id>`, a hash of the record and the caller's set, expiring after the idle time
/// and renewed on each use; `c:<caller digest>`, the caller's sessions scored by expiry; and
/// `all`, every session scored by expiry. Messages between instances go over pub/sub
/// channels `<prefix>to:<instance>` and `<prefix>to:all`, on a connection of their own that
/// reconnects when it drops. Give Redis memory for the records (usually under 1 KiB each, at
/// most 64 KiB: the client's capabilities and self-description are capped there; at most
/// [`HttpConfig::max_sessions`](super::super::HttpConfig::max_sessions) of them).
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use typemcp_server::transport::http::HttpConfig;
/// use typemcp_server::transport::http::session_store::RedisSessionStore;
///
/// let store = RedisSessionStore::connect("redis://127.0.0.1:6379/").await?;
/// let config = HttpConfig::default().session_store(store);
/// # let _ = config;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisSessionStore {
    link: RedisLink,
    client: redis::Client,
    prefix: String,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("key_prefix", &self.prefix)
            .field("timeout", &self.link.timeout())
            .finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// The prefix of the store's keys and channels.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mcp:session:";

    /// How long connecting and each command may take.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);

    /// Connects to the Redis at `url` (`redis://host:port/db`), within
    /// [`DEFAULT_TIMEOUT`](Self::DEFAULT_TIMEOUT).
    pub async fn connect(url: &str) -> Result<Self, SessionStoreError> {
        Self::connect_with_timeout(url, Self::DEFAULT_TIMEOUT).await
    }

    /// Connects to the Redis at `url` within `timeout`, which then bounds every command.
    pub async fn connect_with_timeout(
        url: &str,
        timeout: Duration,
    ) -> Result<Self, SessionStoreError> {
        let link = RedisLink::connect(url, timeout)
            .await
            .map_err(store_error)?;
        let client = redis::Client::open(url).map_err(|err| store_error(Failure::Redis(err)))?;
        Ok(Self {
            link,
            client,
            prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
        })
    }

    /// The same store under another key prefix (deployments sharing one Redis).
    #[must_use]
    pub fn with_key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The prefix of the store's keys and channels.
    pub fn key_prefix(&self) -> &str {
        &self.prefix
    }

    fn session_key(&self, id: &str) -> String {
        format!("{}s:{id}", self.prefix)
    }

    fn all_key(&self) -> String {
        format!("{}all", self.prefix)
    }

    fn channel(&self, to: Option<&str>) -> String {
        format!("{}to:{}", self.prefix, to.unwrap_or("all"))
    }

    async fn eval<T: redis::FromRedisValue>(
        &self,
        script: &str,
        keys: &[String],
        args: &[&[u8]],
    ) -> Result<T, SessionStoreError> {
        let mut command = redis::cmd("EVAL");
        command.arg(script).arg(keys.len()).arg(keys);
        for arg in args {
            command.arg(*arg);
        }
        self.link.query(&command).await.map_err(store_error)
    }
}

fn millis(duration: Duration) -> Vec<u8> {
    duration.as_millis().max(1).to_string().into_bytes()
}

impl SessionStore for RedisSessionStore {
    fn open<'a>(
        &'a self,
        session: NewSession<'a>,
    ) -> BoxFuture<'a, Result<Opened, SessionStoreError>> {
        Box::pin(async move {
            let digest = Sha256::digest(session.caller.as_bytes());
            let caller_key = format!(
                "{}c:{}",
                self.prefix,
                digest
                    .iter()
                    .take(16)
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            );
            let keys = [self.session_key(session.id), caller_key, self.all_key()];
            let bounds = session.bounds;
            let session_prefix = format!("{}s:", self.prefix);
            let reply: i64 = self
                .eval(
                    OPEN,
                    &keys,
                    &[
                        session.record,
                        &millis(bounds.idle),
                        bounds.per_caller.to_string().as_bytes(),
                        bounds.max.to_string().as_bytes(),
                        bounds.min_idle.as_millis().to_string().as_bytes(),
                        session.id.as_bytes(),
                        session_prefix.as_bytes(),
                    ],
                )
                .await?;
            Ok(match reply {
                0 => Opened::Stored,
                1 => Opened::CallerShare,
                _ => Opened::Full,
            })
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, SessionStoreError>> {
        Box::pin(async move {
            let keys = [self.session_key(id), self.all_key()];
            self.eval(LOAD, &keys, &[&millis(idle), id.as_bytes()])
                .await
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        record: &'a [u8],
    ) -> BoxFuture<'a, Result<(), SessionStoreError>> {
        Box::pin(async move {
            let _: i64 = self
                .eval(UPDATE, &[self.session_key(id)], &[record])
                .await?;
            Ok(())
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, SessionStoreError>> {
        Box::pin(async move {
            let keys = [self.session_key(id), self.all_key()];
            let removed: i64 = self.eval(REMOVE, &keys, &[id.as_bytes()]).await?;
            Ok(removed == 1)
        })
    }

    fn deliver<'a>(
        &'a self,
        to: Option<&'a str>,
        message: &'a [u8],
    ) -> BoxFuture<'a, Result<bool, SessionStoreError>> {
        Box::pin(async move {
            let mut command = redis::cmd("PUBLISH");
            command.arg(self.channel(to)).arg(message);
            let receivers: i64 = self.link.query(&command).await.map_err(store_error)?;
            Ok(receivers > 0)
        })
    }

    fn messages<'a>(
        &'a self,
        instance: &'a str,
    ) -> BoxFuture<'a, Result<BoxStream<'static, Vec<u8>>, SessionStoreError>> {
        Box::pin(async move {
            let channels = [self.channel(Some(instance)), self.channel(None)];
            let timeout = self.link.timeout();
            let pubsub = subscribed(&self.client, &channels, timeout).await?;
            let (tx, rx) = mpsc::channel(QUEUE);
            let client = self.client.clone();
            tokio::spawn(relay_messages(client, channels, timeout, pubsub, tx));
            Ok(super::receiver_stream(rx))
        })
    }
}

/// A connection subscribed to `channels`, within `timeout`.
async fn subscribed(
    client: &redis::Client,
    channels: &[String; 2],
    timeout: Duration,
) -> Result<redis::aio::PubSub, SessionStoreError> {
    let connecting = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(&channels[..]).await?;
        Ok::<_, redis::RedisError>(pubsub)
    };
    tokio::time::timeout(timeout, connecting)
        .await
        .map_err(|_| SessionStoreError::Timeout(timeout))?
        .map_err(|err| store_error(Failure::Redis(err)))
}

/// Passes on each message of `pubsub` (subscribed to `channels`) until the receiver goes
/// away, subscribing again on a new connection when the connection drops. Messages sent
/// while no connection is subscribed are lost (instances notice what they missed within
/// their re-verification period).
async fn relay_messages(
    client: redis::Client,
    channels: [String; 2],
    timeout: Duration,
    mut pubsub: redis::aio::PubSub,
    tx: mpsc::Sender<Vec<u8>>,
) {
    let mut backoff = Duration::from_millis(50);
    loop {
        {
            let mut messages = pubsub.on_message();
            loop {
                tokio::select! {
                    () = tx.closed() => return,
                    message = messages.next() => {
                        let Some(message) = message else { break };
                        let payload: Vec<u8> = message.get_payload_bytes().to_vec();
                        if tx.try_send(payload).is_err() && !tx.is_closed() {
                            tracing::warn!("dropped a message from another instance: the queue is full");
                        }
                    }
                }
            }
        }
        tracing::warn!(
            "the connection carrying the other instances' messages dropped; reconnecting"
        );
        pubsub = loop {
            if tx.is_closed() {
                return;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(2));
            match subscribed(&client, &channels, timeout).await {
                Ok(pubsub) => break pubsub,
                Err(err) => {
                    tracing::warn!(error = %err, "could not subscribe to the other instances' messages")
                }
            }
        };
        backoff = Duration::from_millis(50);
    }
}

fn store_error(failure: Failure) -> SessionStoreError {
    match failure {
        Failure::Timeout(after) => SessionStoreError::Timeout(after),
        Failure::Redis(err) => SessionStoreError::Unavailable(Box::new(err)),
    }
}
