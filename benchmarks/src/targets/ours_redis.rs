//! This workspace's SDK with single-use states shared through Redis: the server of
//! [`super::ours`] (the same `echo` and three-round `flow` tools), whose request-state signer
//! consumes each echoed state once in a `redis-server` (`RedisStore`, one atomic
//! `SET … NX EXAT` per resuming round) before the handler runs, as instances behind a load
//! balancer would.
//!
//! It runs only the flow scenario (the single call carries no state, so it would measure
//! nothing new), and the report gives its flow rate as a ratio to [`super::ours`]'s: what
//! single use over Redis costs. The harness starts its own `redis-server` on a free loopback
//! port when the target starts, and kills it when the target is dropped; without a
//! `redis-server` binary the target is skipped, with a message.

use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use typemcp_server::Server;
use typemcp_server::state::RequestStateSigner;
use typemcp_server::state::single_use::{RedisStore, StoreError};

use super::{Target, TargetKind};
use crate::redis::{self, RedisServer};

/// How long connecting to the harness's Redis may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many `PING`s the round trip printed when Redis starts is the median of.
const PING_SAMPLES: usize = 2000;

/// The target: ours, single use over Redis.
#[derive(Debug, Default)]
pub struct OursRedis {
    /// The `redis-server` started with the HTTP server, killed when the target is dropped.
    redis: Mutex<Option<RedisServer>>,
}

impl Target for OursRedis {
    fn name(&self) -> &'static str {
        "ours-redis"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Variant
    }

    fn baseline(&self) -> Option<&'static str> {
        Some("ours")
    }

    fn unavailable(&self) -> Option<String> {
        redis::binary().is_none().then(|| {
            "redis-server not installed (apt-get install redis-server): the three-round flow \
             with single use over Redis is not measured"
                .to_owned()
        })
    }

    fn has_http(&self) -> bool {
        true
    }

    fn flow_only(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        let url = start_redis(&self.redis)?;
        let store =
            connect(async move { RedisStore::connect_with_timeout(&url, CONNECT_TIMEOUT).await })?;
        let probe = store.clone();
        let round_trip = connect(async move { command_round_trip(&probe).await })?;
        println!(
            "ours-redis: one command through the store's connection, from the servers' runtime: \
             p50 {:.1}µs ({PING_SAMPLES} in a row); each resuming round waits for one",
            round_trip.as_secs_f64() * 1e6
        );
        let signer = RequestStateSigner::generate()?.single_use(store);
        let server = super::ours::echo_server_with(Server::builder().request_state_signer(signer))?;
        super::ours::serve_http(server, Default::default(), listener, shutdown);
        Ok(())
    }

    fn has_flow(&self) -> bool {
        true
    }
}

/// The median time of one command through `store`'s connection (its epoch script, as small
/// as a consumption), `PING_SAMPLES` in a row: what a resuming round waits for at least.
async fn command_round_trip(store: &RedisStore) -> Result<Duration, StoreError> {
    let mut times = Vec::with_capacity(PING_SAMPLES);
    for _ in 0..PING_SAMPLES {
        let start = std::time::Instant::now();
        store.epoch().await?;
        times.push(start.elapsed());
    }
    times.sort_unstable();
    Ok(times[times.len() / 2])
}

/// Starts a `redis-server` of the harness's own into `slot` (replacing, and so stopping, the
/// one of an earlier start); its URL.
pub(super) fn start_redis(slot: &Mutex<Option<RedisServer>>) -> anyhow::Result<String> {
    let binary = redis::binary().context("redis-server not installed")?;
    let server = RedisServer::start(&binary)?;
    // What each consuming round waits for at least, printed beside the rates it explains.
    let round_trip = server.ping_round_trip(PING_SAMPLES)?;
    println!(
        "redis-server for the single-use targets: PING round trip p50 {:.1}µs ({PING_SAMPLES} \
         in a row, blocking client on loopback)",
        round_trip.as_secs_f64() * 1e6
    );
    let url = server.url();
    *slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(server);
    Ok(url)
}

/// Runs `connecting` on the servers' runtime (this thread has entered it but is not one of
/// its workers, and a store's connection must live there), and waits here for its outcome.
pub(super) fn connect<T, E>(
    connecting: impl std::future::Future<Output = Result<T, E>> + Send + 'static,
) -> anyhow::Result<T>
where
    T: Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let (connected, outcome) = std::sync::mpsc::channel();
    tokio::spawn(async move {
        let _ = connected.send(connecting.await);
    });
    outcome
        .recv_timeout(CONNECT_TIMEOUT + Duration::from_secs(1))
        .context("no answer from the Redis connection task")?
        .context("cannot connect to the harness's redis-server")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client;
    use crate::protocol::FlowRound;

    /// Each state is good for one use: a whole flow completes, and replaying its last round
    /// is refused.
    #[test]
    fn a_replayed_round_is_refused() -> anyhow::Result<()> {
        let target = OursRedis::default();
        if let Some(why) = target.unavailable() {
            eprintln!("SKIPPED: {why}");
            return Ok(());
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shutdown = CancellationToken::new();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
        let addr = listener.local_addr()?;
        {
            let _entered = runtime.enter();
            target.spawn_http(listener, shutdown.child_token())?;
        }
        let timeout = Duration::from_secs(5);
        let states = runtime.block_on(client::run_flow(addr, timeout))?;
        let replayed = runtime.block_on(client::flow_round_with_state(
            addr,
            FlowRound::Third,
            &states[1],
        ))?;
        assert!(
            replayed.contains("Invalid or expired"),
            "a replayed state must be refused: {replayed}"
        );
        shutdown.cancel();
        Ok(())
    }
}
