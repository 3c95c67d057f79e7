//! A `redis-server` of the harness's own, for the single-use flow scenario: started on a
//! free loopback port without persistence (`--save '' --appendonly no`), ready once it
//! answers `PING`, killed when dropped. Nothing global is started or touched.

use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

/// How long a fresh `redis-server` may take to answer `PING`.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A `redis-server` child process on `127.0.0.1:<port>`, killed (and reaped) on drop.
#[derive(Debug)]
pub struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// Starts `binary` on a free port and waits until it answers `PING`.
    pub fn start(binary: &Path) -> anyhow::Result<Self> {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|listener| listener.local_addr())
            .context("no free loopback port")?
            .port();
        let child = Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", binary.display()))?;
        let mut server = Self { child, port };
        let deadline = Instant::now() + START_TIMEOUT;
        while !answers_ping(port) {
            if let Some(status) = server.child.try_wait()? {
                bail!("redis-server exited early ({status}); port {port} taken?");
            }
            if Instant::now() > deadline {
                bail!("redis-server did not answer PING on port {port} within {START_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// The median round trip of one `PING` over `samples` in a row, on a connection of its
    /// own: the least a command to this Redis adds to a request that waits for its answer
    /// (what a single-use consumption costs a resuming round, at one request in flight).
    pub fn ping_round_trip(&self, samples: usize) -> anyhow::Result<Duration> {
        let addr = (Ipv4Addr::LOCALHOST, self.port).into();
        let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        let mut reply = [0u8; 7];
        let mut times = Vec::with_capacity(samples.max(1));
        for _ in 0..samples.max(1) {
            let start = Instant::now();
            stream.write_all(b"PING\r\n")?;
            stream.read_exact(&mut reply)?;
            times.push(start.elapsed());
            if &reply != b"+PONG\r\n" {
                bail!("redis-server answered PING with {reply:?}");
            }
        }
        times.sort_unstable();
        Ok(times[times.len() / 2])
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // Errors only mean the process has already gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `redis-server` binary: on `PATH`, or where Debian installs it.
pub fn binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file())
}

/// Whether a Redis on `port` answers `PING` with `+PONG`.
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
