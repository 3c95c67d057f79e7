//! The Redis connection the Redis stores share (single-use states, tasks): one reconnecting
//! connection manager, and every command, like connecting, bounded by one timeout. The
//! stores turn a [`Failure`] into their own error; the URL (it may carry a password) is never
//! part of one.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// Why connecting or a command failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No answer within the timeout.
    Timeout(Duration),
    /// Redis cannot be reached, or refused the command.
    Redis(redis::RedisError),
}

/// A connection to one Redis, with the timeout of every command.
#[derive(Clone)]
pub(crate) struct RedisLink {
    connection: ConnectionManager,
    timeout: Duration,
}

impl RedisLink {
    /// Connects to the Redis at `url` within `timeout` (at least one millisecond), which
    /// then bounds every command too.
    pub(crate) async fn connect(url: &str, timeout: Duration) -> Result<Self, Failure> {
        let timeout = timeout.max(Duration::from_millis(1));
        let client = redis::Client::open(url).map_err(Failure::Redis)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(2)
            .set_max_delay(timeout);
        let connecting = ConnectionManager::new_with_config(client, config);
        let connection = tokio::time::timeout(timeout, connecting)
            .await
            .map_err(|_| Failure::Timeout(timeout))?
            .map_err(Failure::Redis)?;
        Ok(Self {
            connection,
            timeout,
        })
    }

    /// How long each command may take.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `command` within the timeout.
    pub(crate) async fn query<T: redis::FromRedisValue>(
        &self,
        command: &redis::Cmd,
    ) -> Result<T, Failure> {
        let mut connection = self.connection.clone();
        tokio::time::timeout(self.timeout, command.query_async(&mut connection))
            .await
            .map_err(|_| Failure::Timeout(self.timeout))?
            .map_err(Failure::Redis)
    }
}
