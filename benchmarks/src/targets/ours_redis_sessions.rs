//! This workspace's SDK with its 2025-11-25 sessions kept in Redis: the server of
//! [`super::ours`], its HTTP endpoint given a `RedisSessionStore` (each request on a session
//! reads the session back from Redis, renewing its expiry, as instances behind a balancer
//! without affinity do).
//!
//! It runs only the session scenario, and the report gives its rate as a ratio to
//! [`super::ours`]'s session rate, whose sessions live in the endpoint's memory: what
//! sharing sessions costs. The harness starts its own `redis-server`, as for
//! [`super::ours_redis`]; without one the target is skipped, with a message.

use std::sync::Mutex;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::transport::http::session_store::RedisSessionStore;

use super::ours_redis::{connect, start_redis};
use super::{Target, TargetKind};
use crate::redis::{self, RedisServer};

/// The target: ours, sessions in Redis.
#[derive(Debug, Default)]
pub struct OursRedisSessions {
    /// The `redis-server` started with the HTTP server, killed when the target is dropped.
    redis: Mutex<Option<RedisServer>>,
}

impl Target for OursRedisSessions {
    fn name(&self) -> &'static str {
        "ours-redis-sessions"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Variant
    }

    fn baseline(&self) -> Option<&'static str> {
        Some("ours")
    }

    fn unavailable(&self) -> Option<String> {
        redis::binary().is_none().then(|| {
            "redis-server not installed (apt-get install redis-server): the session mode \
             with sessions in Redis is not measured"
                .to_owned()
        })
    }

    fn has_http(&self) -> bool {
        true
    }

    fn has_session(&self) -> bool {
        true
    }

    fn session_only(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        let url = start_redis(&self.redis)?;
        let store = connect(async move { RedisSessionStore::connect(&url).await })?;
        let config = HttpConfig::default().session_store(store);
        super::ours::serve_http(super::ours::echo_server()?, config, listener, shutdown);
        Ok(())
    }
}
