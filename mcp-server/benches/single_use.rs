//! Micro-benchmarks of the single-use check: what consuming an echoed state costs a request,
//! in memory and through Redis.
//!
//! Run with `cargo bench -p typemcp-server --features redis --bench single_use` (criterion; a
//! filter after `--` selects benchmarks, e.g. `-- memory`). The Redis benchmarks start their
//! own `redis-server` (no persistence) on a free port and stop it at the end; without the
//! binary they are left out, with a note.
//!
//! * `single_use/digest`: the SHA-256 of a real token (what the store is keyed on).
//! * `single_use/memory/fresh`: recording a state never seen (the normal path), with
//!   entries expiring and being evicted as the benchmark goes (steady state, ~2k live).
//! * `single_use/memory/replay`: finding a state consumed already.
//! * `single_use/redis/fresh`, `single_use/redis/replay`: the same through Redis on
//!   localhost: one `SET NX EXAT` round trip each.
//! * `single_use/redis/fresh-x32-concurrent`: 32 consumptions in flight at once on one
//!   connection (pipelined by the multiplexed connection), per batch of 32.

#![allow(missing_docs)]

use std::hint::black_box;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::FutureExt;
use typemcp_server::state::RequestStateSigner;
use typemcp_server::state::single_use::{Consumption, MemoryStore, RedisStore, SingleUseStore};
use typemcp_server::typemcp_core::state::Binding;

/// The result, or a panic naming what failed (benchmark set-up only).
fn must<T, E: std::fmt::Debug>(result: Result<T, E>, what: &str) -> T {
    result.unwrap_or_else(|err| panic!("{what}: {err:?}"))
}

/// A distinct key per iteration.
fn key(n: u64) -> [u8; 32] {
    let mut key = [0x5a; 32];
    key[..8].copy_from_slice(&n.to_le_bytes());
    key
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A `redis-server` of the benchmark's own, killed when dropped.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start() -> Option<Self> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let binary = std::env::split_paths(&path)
            .chain([PathBuf::from("/usr/bin")])
            .map(|dir| dir.join("redis-server"))
            .find(|candidate| candidate.is_file())?;
        let port = must(TcpListener::bind("127.0.0.1:0"), "a free port")
            .local_addr()
            .map(|a| a.port())
            .ok()?;
        let child = Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("single_use");
    group.throughput(Throughput::Elements(1));

    let signer = must(RequestStateSigner::new([7u8; 32]), "a 32-byte key");
    let token = signer.sign(
        &[b'n'; 200],
        Some(&Binding::from_parts([b"deploy".as_slice()])),
    );
    group.bench_function("digest", |b| {
        b.iter(|| {
            use sha2::Digest;
            let digest: [u8; 32] = sha2::Sha256::digest(black_box(token.as_bytes())).into();
            digest
        });
    });

    // Memory: the clock moves one second every 1024 consumptions, and each entry lives two
    // seconds, so about 2k entries are live and every call also evicts, as in a server.
    let counter = Arc::new(AtomicU64::new(0));
    let clock = Arc::clone(&counter);
    let memory =
        MemoryStore::new().with_clock(Arc::new(move || clock.load(Ordering::Relaxed) >> 10));
    group.bench_function("memory/fresh", |b| {
        b.iter(|| {
            let n = counter.fetch_add(1, Ordering::Relaxed);
            let found = memory.consume(key(n), 0, (n >> 10) + 1).now_or_never();
            assert!(matches!(found, Some(Ok(Consumption::Fresh))), "{found:?}");
        });
    });
    let replayed = key(u64::MAX);
    let forever = u64::MAX;
    let _ = memory.consume(replayed, 0, forever).now_or_never();
    group.bench_function("memory/replay", |b| {
        b.iter(|| {
            let found = memory
                .consume(black_box(replayed), 0, forever)
                .now_or_never();
            assert!(
                matches!(found, Some(Ok(Consumption::AlreadyUsed))),
                "{found:?}"
            );
        });
    });

    let Some(redis) = RedisServer::start() else {
        println!(
            "NOTE: redis-server not found (PATH, /usr/bin): the Redis benchmarks are left out \
             (apt-get install redis-server)"
        );
        group.finish();
        return;
    };
    let runtime = must(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        "a runtime",
    );
    let url = format!("redis://127.0.0.1:{}/", redis.port);
    let store = must(
        runtime.block_on(RedisStore::connect(&url)),
        "Redis connects",
    );
    let minted_at = now();
    let until = minted_at + 600;
    let next = AtomicU64::new(0);
    group.bench_function("redis/fresh", |b| {
        b.iter(|| {
            let n = next.fetch_add(1, Ordering::Relaxed);
            let found = runtime.block_on(store.consume(key(n), minted_at, until));
            assert!(matches!(found, Ok(Consumption::Fresh)), "{found:?}");
        });
    });
    let _ = runtime.block_on(store.consume(replayed, minted_at, until));
    group.bench_function("redis/replay", |b| {
        b.iter(|| {
            let found = runtime.block_on(store.consume(black_box(replayed), minted_at, until));
            assert!(matches!(found, Ok(Consumption::AlreadyUsed)), "{found:?}");
        });
    });
    group.throughput(Throughput::Elements(32));
    group.bench_function("redis/fresh-x32-concurrent", |b| {
        b.iter(|| {
            let batch = (0..32).map(|_| {
                let n = next.fetch_add(1, Ordering::Relaxed);
                store.consume(key(n), minted_at, until)
            });
            let found = runtime.block_on(futures_util::future::join_all(batch));
            assert!(found.iter().all(|f| matches!(f, Ok(Consumption::Fresh))));
        });
    });
    group.finish();
    drop(redis);
}

criterion_group!(benches, bench);
criterion_main!(benches);
