//! The load: concurrent workers, each on its own connection, running the operations of
//! [`Kind::MIX`] in turn until the deadline, and the counters they share.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::time::MissedTickBehavior;

use super::http::Client;
use super::ops::{self, Kind};

/// How many failure messages are kept for the summary (the count covers them all).
const KEPT_FAILURES: usize = 20;

/// What the workers did, shared between them and the sampler.
#[derive(Debug, Default)]
pub struct Counters {
    ok: [AtomicU64; Kind::ALL.len()],
    failed: [AtomicU64; Kind::ALL.len()],
    requests: AtomicU64,
    connects: AtomicU64,
    failures: Mutex<Vec<String>>,
}

impl Counters {
    /// Operations of `kind` that got the expected answer.
    pub fn ok(&self, kind: Kind) -> u64 {
        self.ok[kind.index()].load(Ordering::Relaxed)
    }

    /// Operations of `kind` that got anything else.
    pub fn failed(&self, kind: Kind) -> u64 {
        self.failed[kind.index()].load(Ordering::Relaxed)
    }

    /// Failed operations of every kind.
    pub fn total_failed(&self) -> u64 {
        Kind::ALL.iter().map(|&kind| self.failed(kind)).sum()
    }

    /// Requests sent (by operations that succeeded; a failed one counts one).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// TCP connections the workers opened.
    pub fn connects(&self) -> u64 {
        self.connects.load(Ordering::Relaxed)
    }

    /// The first failure messages.
    pub fn failure_messages(&self) -> Vec<String> {
        self.failures
            .lock()
            .map(|failures| failures.clone())
            .unwrap_or_default()
    }

    /// Counts the outcome of one operation of `kind` (requests sent, or why it failed).
    pub(super) fn record(&self, kind: Kind, result: Result<u64, ops::Failure>) {
        match result {
            Ok(requests) => {
                self.ok[kind.index()].fetch_add(1, Ordering::Relaxed);
                self.requests.fetch_add(requests, Ordering::Relaxed);
            }
            Err(failure) => {
                self.failed[kind.index()].fetch_add(1, Ordering::Relaxed);
                self.requests.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut failures) = self.failures.lock()
                    && failures.len() < KEPT_FAILURES
                {
                    failures.push(format!("{}: {failure}", kind.name()));
                }
            }
        }
    }
}

/// Runs `workers` workers against the server at `addr` until `deadline`; each starts at
/// another place of [`Kind::MIX`]. With `rate` (operations per second, all workers
/// together), each worker starts an operation at most every `workers / rate` seconds;
/// without, as fast as the server answers.
pub async fn run(
    addr: SocketAddr,
    workers: usize,
    rate: Option<f64>,
    deadline: Instant,
    counters: Arc<Counters>,
) {
    let period = rate
        .filter(|&rate| rate > 0.0)
        .map(|rate| Duration::from_secs_f64(workers as f64 / rate));
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..workers {
        let counters = Arc::clone(&counters);
        tasks.spawn(async move {
            let mut pace = period.map(|period| {
                let mut pace = tokio::time::interval(period);
                pace.set_missed_tick_behavior(MissedTickBehavior::Delay);
                pace
            });
            let mut client = Client::new(addr);
            // Disjoint JSON-RPC ids per worker, so a crossed reply shows as a wrong id.
            let mut ids = (worker as u64) << 40;
            let mut slot = worker * 7;
            let mut turn = worker as u64;
            while Instant::now() < deadline {
                if let Some(pace) = &mut pace {
                    pace.tick().await;
                }
                let kind = Kind::MIX[slot % Kind::MIX.len()];
                let result = ops::run(kind, &mut client, &mut ids, turn).await;
                if result.is_err() {
                    // Start again on a fresh connection.
                    client.disconnect();
                }
                counters.record(kind, result);
                slot += 1;
                if slot % Kind::MIX.len() == 0 {
                    turn += 1;
                }
            }
            counters
                .connects
                .fetch_add(client.connects, Ordering::Relaxed);
        });
    }
    while tasks.join_next().await.is_some() {}
}
