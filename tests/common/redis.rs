//! A throwaway `redis-server` of a test's own: started on a free loopback port without
//! persistence (`--save '' --appendonly no`), ready once it answers `PING`, killed when
//! dropped.
//!
//! Without a `redis-server` binary, [`RedisServer::start`] fails the test under CI (`CI` set:
//! `.ci/run` installs it from Debian's packages) and otherwise prints a loud
//! `SKIPPED: redis-server not installed` and returns `None`, so the test can return early.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{ChildGuard, fresh_port, out_dir, tail};

/// How long a fresh `redis-server` may take to answer `PING`.
const REDIS_START_TIMEOUT: Duration = Duration::from_secs(15);

/// A `redis-server` child process on `127.0.0.1:<port>`, killed (and reaped) on drop.
#[derive(Debug)]
pub struct RedisServer {
    pub port: u16,
    child: ChildGuard,
}

impl RedisServer {
    /// Starts one on a free port and waits until it answers `PING`; `None` (after a loud
    /// message on stderr) when `redis-server` is not installed outside CI; panics under CI
    /// when it is not installed, and whenever it does not start. `test` names the log,
    /// `target/redis/<test>.log`.
    #[track_caller]
    pub fn start(test: &str) -> Option<Self> {
        let Some(binary) = binary() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server is not installed, and CI is set: CI must run the Redis tests \
                 (.ci/run installs it: apt-get install redis-server)"
            );
            eprintln!(
                "\n{bar}\nSKIPPED: redis-server not installed: {test} did not run.\n\
                 Install it (apt-get install redis-server) to run it.\n{bar}\n",
                bar = "=".repeat(78)
            );
            return None;
        };
        let log = out_dir("redis").join(format!("{test}.log"));
        let mut error = String::new();
        for _attempt in 0..3 {
            let port = fresh_port();
            let mut command = Command::new(&binary);
            command.args(["--port", &port.to_string(), "--bind", "127.0.0.1"]);
            command.args(["--save", "", "--appendonly", "no"]);
            command.args(["--logfile", ""]).stdin(Stdio::null());
            let mut child = ChildGuard::spawn_logged(&mut command, &log);
            let deadline = Instant::now() + REDIS_START_TIMEOUT;
            error = loop {
                let answered = answers_ping(port);
                if let Some(status) = child.try_wait() {
                    break format!("it exited early ({status})");
                }
                if answered {
                    return Some(Self { port, child });
                }
                if Instant::now() > deadline {
                    break format!("it did not answer PING within {REDIS_START_TIMEOUT:?}");
                }
                std::thread::sleep(Duration::from_millis(20));
            };
        }
        panic!(
            "redis-server did not start: {error}; log:\n{}",
            tail(&log, 20)
        );
    }

    /// Its URL, for `--redis`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Sends one command (inline form, arguments without spaces) and returns the raw reply.
    pub fn command(&self, command: &str) -> String {
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).expect("redis");
        stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
        stream
            .write_all(format!("{command}\r\n").as_bytes())
            .expect("a command to redis");
        let mut reply = [0u8; 512];
        let read = stream.read(&mut reply).expect("a reply from redis");
        String::from_utf8_lossy(&reply[..read]).into_owned()
    }

    /// How many keys its database 0 holds (`DBSIZE`).
    pub fn key_count(&self) -> u64 {
        let reply = self.command("DBSIZE");
        let count = reply.trim().strip_prefix(':');
        count
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("DBSIZE: {reply:?}"))
    }
}

/// The `redis-server` binary: on `PATH`, or where Debian installs it.
pub fn binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Whether a Redis on `port` answers `PING` with `+PONG` (a bare connect could reach the
/// probe itself, see `answers_http`).
fn answers_ping(port: u16) -> bool {
    let addr = (Ipv4Addr::LOCALHOST, port).into();
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let mut reply = [0u8; 7];
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .is_ok()
        && stream.write_all(b"PING\r\n").is_ok()
        && stream.read_exact(&mut reply).is_ok()
        && &reply == b"+PONG\r\n"
}
