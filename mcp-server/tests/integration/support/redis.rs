//! A `redis-server` of a test's own, on a free port (no persistence), killed when dropped:
//! for the tests of the Redis stores (single use, tasks). Without the binary the tests print
//! a loud SKIP and pass, except under CI (`CI` set), where they fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` child process, killed when dropped.
pub struct RedisServer {
    child: Child,
    pub port: u16,
}

impl RedisServer {
    /// Starts one on a free port, or says why not: `None` (after a loud SKIP) when the binary
    /// is absent outside CI; a panic under CI.
    pub fn start() -> Option<Self> {
        Self::start_on(free_port())
    }

    /// Like [`start`](Self::start), on `port`.
    pub fn start_on(port: u16) -> Option<Self> {
        let Some(binary) = redis_binary() else {
            if std::env::var_os("CI").is_some() {
                panic!(
                    "redis-server is not installed, and CI is set: install it (apt-get install redis-server)"
                );
            }
            eprintln!(
                "\n=====================================================================\n\
                 SKIP: redis-server not found (PATH, /usr/bin); the Redis single-use tests\n\
                 did not run. Install it: apt-get install redis-server\n\
                 ====================================================================="
            );
            return None;
        };
        let child = Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills it now.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `redis-server` on the `PATH`, or in `/usr/bin`.
fn redis_binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file())
}

/// A port nothing listens on (at the time of asking).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts a Redis, or returns from the test (SKIP).
#[macro_export]
macro_rules! redis_or_skip {
    () => {
        match $crate::support::redis::RedisServer::start() {
            Some(server) => server,
            None => return,
        }
    };
}
