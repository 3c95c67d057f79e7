//! Our client (`typemcp-client`) against servers nobody here wrote: a small `deploy` server on
//! the official TypeScript SDK (`interop/ts/deploy_server.mjs`, `@modelcontextprotocol/server`
//! pinned in `interop/ts/package.json`) and one on the official Python SDK
//! (`interop/python/deploy_server.py`, PyPI `mcp` pinned in `interop/python/requirements.txt`).
//!
//! Each serves one tool, `deploy` (argument `target`), that asks one form question with a
//! boolean field `ok` and answers `Deployed to {target}.` when it is true, `Not deployed.`
//! otherwise. Both SDKs serve both eras from one server, so for each peer, over stdio (the
//! client spawns the server) and over Streamable HTTP (the test starts it on a loopback port),
//! the client connects twice:
//!
//! - choosing the era automatically, which must land on 2026-07-28 (`server/discover`): the
//!   question comes back in an `input_required` result, keyed `confirm`, and the client retries
//!   the call with its answer;
//! - forcing a 2025-11-25 session (`initialize`): the server pushes `elicitation/create` mid-call
//!   (`elicitInput` / `ctx.elicit`), a question without a key.
//!
//! On each connection it lists the tools, calls `deploy` with target `staging` answering
//! `{ok: true}` (`Deployed to staging.`), then again declining (`Not deployed.`), and checks
//! the two questions it was asked. Every run is bounded by [`RUN_TIMEOUT`]; the servers' stderr
//! goes to `target/client-interop/`. The Node packages are installed by `tests/common/npm.rs`;
//! the Python venv by `tests/common/python.rs`, which skips loudly outside CI when Python or
//! PyPI is unavailable (under `CI=true` that fails).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::peer_deploy::{builder, deploy_twice};

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use typemcp_client::{Era, EraChoice};

use crate::common::ChildGuard;
use crate::common::npm::NodePackages;

/// How long one connection's whole run (start, connect, list, both calls) may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// How long an HTTP server may take to listen.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(30);
/// The folder of the pinned Python SDK.
const PYTHON: &str = "interop/python";
/// The folder of the pinned TypeScript SDK (and Node 22).
const TS: &str = "interop/ts";

/// A peer server, ready to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Peer {
    TypeScript,
    Python,
}

impl Peer {
    fn label(self) -> &'static str {
        match self {
            Self::TypeScript => "ts",
            Self::Python => "python",
        }
    }

    /// The command serving the peer's `deploy` server with `args` (none: stdio), or `None`
    /// when the Python SDK could not be installed outside CI (skipped loudly).
    fn command(self, args: &[&str]) -> Option<Command> {
        let mut command = match self {
            Self::TypeScript => {
                let packages = NodePackages::install(TS);
                let mut command = Command::new(packages.node());
                command.arg("deploy_server.mjs").current_dir(packages.dir());
                command
            }
            Self::Python => {
                let python = crate::common::python::python(PYTHON)?;
                let mut command = Command::new(python);
                command.arg(
                    crate::common::root_dir()
                        .join(PYTHON)
                        .join("deploy_server.py"),
                );
                command
            }
        };
        command.args(args);
        Some(command)
    }
}

/// What a connection of `choice` must speak.
fn expected_era(choice: EraChoice) -> Era {
    match choice {
        EraChoice::Session => Era::Session,
        _ => Era::Modern,
    }
}

/// Where the server's stderr of one run goes.
fn log_path(peer: Peer, transport: &str, choice: EraChoice) -> PathBuf {
    crate::common::out_dir("client-interop").join(format!(
        "{}-{transport}-{:?}.stderr",
        peer.label(),
        choice
    ))
}

/// Panics with `why` and the server's log.
fn fail(peer: Peer, transport: &str, choice: EraChoice, log: &PathBuf, why: &str) -> ! {
    panic!(
        "{} server over {transport}, client era {choice:?}: {why}\nserver log {log:?}:\n{}",
        peer.label(),
        crate::common::tail(log, 40)
    )
}

/// The client spawns `peer`'s server over stdio in era `choice` and runs the flow.
async fn over_stdio(peer: Peer, choice: EraChoice) {
    let Some(mut command) = peer.command(&[]) else {
        return;
    };
    let log = log_path(peer, "stdio", choice);
    command.stderr(File::create(&log).unwrap());
    let (builder, asked) = builder(choice);
    let run = async {
        let client = builder
            .spawn(tokio::process::Command::from(command))
            .await
            .map_err(|e| format!("connecting: {e}"))?;
        deploy_twice(&client, expected_era(choice), &asked).await?;
        client.close().await.map_err(|e| format!("closing: {e}"))
    };
    match tokio::time::timeout(RUN_TIMEOUT, run).await {
        Ok(Ok(())) => {}
        Ok(Err(why)) => fail(peer, "stdio", choice, &log, &why),
        Err(_) => fail(
            peer,
            "stdio",
            choice,
            &log,
            &format!("ran over {RUN_TIMEOUT:?}"),
        ),
    }
}

/// Whether an HTTP server answers on `port` (a status line read back, not just a connect).
async fn answers_http(port: u16) -> bool {
    let probe = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        let request = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        stream.write_all(request).await?;
        let mut head = [0u8; 8];
        stream.read_exact(&mut head).await?;
        Ok::<bool, std::io::Error>(head.starts_with(b"HTTP/1."))
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(2), probe).await,
        Ok(Ok(true))
    )
}

/// Starts `peer`'s server over Streamable HTTP on a fresh loopback port, its output in `log`;
/// `None` when skipped. Panics, quoting the log, if it does not listen.
async fn start_http(peer: Peer, log: &PathBuf) -> Option<(ChildGuard, String)> {
    let mut error = String::new();
    for _attempt in 0..3 {
        let port = crate::common::fresh_port();
        let mut command = peer.command(&["--http", &port.to_string()])?;
        let out = File::create(log).unwrap();
        command
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        let mut child = ChildGuard::spawn(&mut command);
        let deadline = Instant::now() + LISTEN_TIMEOUT;
        // An early exit most likely means another process took the port: try another one.
        error = loop {
            let answered = answers_http(port).await;
            if let Some(status) = child.try_wait() {
                break format!("it exited early ({status})");
            }
            if answered {
                return Some((child, format!("http://127.0.0.1:{port}/mcp")));
            }
            if Instant::now() > deadline {
                break format!("it did not listen on port {port} within {LISTEN_TIMEOUT:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
    }
    panic!(
        "the {} server did not start over HTTP: {error}; log {log:?}:\n{}",
        peer.label(),
        crate::common::tail(log, 40)
    )
}

/// Starts `peer`'s server over Streamable HTTP and runs the flow in era `choice`.
async fn over_http(peer: Peer, choice: EraChoice) {
    let log = log_path(peer, "http", choice);
    let Some((_server, url)) = start_http(peer, &log).await else {
        return;
    };
    let (builder, asked) = builder(choice);
    let run = async {
        let client = builder
            .connect_http(&url)
            .await
            .map_err(|e| format!("connecting to {url}: {e}"))?;
        deploy_twice(&client, expected_era(choice), &asked).await?;
        if choice == EraChoice::Session && client.session_id().is_none() {
            return Err("the 2025-11-25 session has no Mcp-Session-Id".to_owned());
        }
        client.close().await.map_err(|e| format!("closing: {e}"))
    };
    match tokio::time::timeout(RUN_TIMEOUT, run).await {
        Ok(Ok(())) => {}
        Ok(Err(why)) => fail(peer, "http", choice, &log, &why),
        Err(_) => fail(
            peer,
            "http",
            choice,
            &log,
            &format!("ran over {RUN_TIMEOUT:?}"),
        ),
    }
}

#[tokio::test]
async fn ts_server_over_stdio_2026_input_required() {
    over_stdio(Peer::TypeScript, EraChoice::Automatic).await;
}

#[tokio::test]
async fn ts_server_over_stdio_2025_pushed_elicitation() {
    over_stdio(Peer::TypeScript, EraChoice::Session).await;
}

#[tokio::test]
async fn ts_server_over_http_2026_input_required() {
    over_http(Peer::TypeScript, EraChoice::Automatic).await;
}

#[tokio::test]
async fn ts_server_over_http_2025_pushed_elicitation() {
    over_http(Peer::TypeScript, EraChoice::Session).await;
}

#[tokio::test]
async fn python_server_over_stdio_2026_input_required() {
    over_stdio(Peer::Python, EraChoice::Automatic).await;
}

#[tokio::test]
async fn python_server_over_stdio_2025_pushed_elicitation() {
    over_stdio(Peer::Python, EraChoice::Session).await;
}

#[tokio::test]
async fn python_server_over_http_2026_input_required() {
    over_http(Peer::Python, EraChoice::Automatic).await;
}

#[tokio::test]
async fn python_server_over_http_2025_pushed_elicitation() {
    over_http(Peer::Python, EraChoice::Session).await;
}
