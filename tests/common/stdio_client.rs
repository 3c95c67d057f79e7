//! A minimal MCP client over stdio for the end-to-end tests: builds any example of the root
//! package, spawns it with piped stdin/stdout, sends newline-delimited JSON-RPC requests
//! (with the required `_meta`, see [`crate::common::request`]) and reads the response line
//! to each one with a deadline, so a silent server fails the test instead of hanging it.
//!
//! Builds on `tests/common/mod.rs` (`ChildGuard`, `capture`, `root_dir`, `target_dir`,
//! `READ_TIMEOUT`). A test binary includes it next to `common`:
//!
//! ```ignore
//! mod common;
//! #[path = "common/stdio_client.rs"]
//! mod stdio_client;
//! ```
//!
//! Not every test binary uses every helper, hence the `dead_code` allowances.

#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, Command};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use serde_json::Value;

use crate::common::{ChildGuard, READ_TIMEOUT, capture, request, root_dir, target_dir};

/// Builds `examples/<name>.rs` of the root package once per test binary, with the cargo and
/// profile running the tests, and returns the path of the executable.
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    // Holding the lock while building also keeps two builds from racing each other.
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    built
        .entry(name.to_owned())
        .or_insert_with(|| build_example(name))
        .clone()
}

fn build_example(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let release = !cfg!(debug_assertions);
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "--example", name])
        .current_dir(root_dir());
    if release {
        build.arg("--release");
    }
    capture(&mut build);
    let exe = target_dir()
        .join(if release { "release" } else { "debug" })
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        exe.is_file(),
        "built the example {name} but {exe:?} does not exist"
    );
    exe
}

/// A server child process spoken to over stdio: a reader thread turns its stdout into
/// lines, another (if stderr is piped) keeps its stderr for failure messages.
#[derive(Debug)]
pub struct StdioClient {
    process: ChildGuard,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// What the server is called in failure messages.
    label: String,
}

impl StdioClient {
    /// Takes over a server spawned with piped stdin and stdout (stderr may be piped too,
    /// then it is quoted when the server misbehaves).
    pub fn new(mut process: ChildGuard, label: impl Into<String>) -> Self {
        let label = label.into();
        let stdin = process
            .child
            .stdin
            .take()
            .unwrap_or_else(|| panic!("{label}: stdin must be piped"));
        let stdout = process
            .child
            .stdout
            .take()
            .unwrap_or_else(|| panic!("{label}: stdout must be piped"));
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        if let Some(mut pipe) = process.child.stderr.take() {
            let sink = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut buffer = [0_u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut buffer) {
                    let text = String::from_utf8_lossy(&buffer[..n]);
                    sink.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push_str(&text);
                }
            });
        }
        Self {
            process,
            stdin: Some(stdin),
            lines,
            stderr,
            label,
        }
    }

    /// Spawns `command` with stdin, stdout and stderr piped.
    pub fn spawn(command: &mut Command, label: impl Into<String>) -> Self {
        use std::process::Stdio;
        let process = ChildGuard::spawn(
            command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        );
        Self::new(process, label)
    }

    /// Sends `method` with `params` (and the required `_meta`) as request `id` and returns
    /// the whole response message. Notifications and responses to other ids written in the
    /// meantime are skipped; panics if no response arrives within [`READ_TIMEOUT`].
    pub fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) -> Value {
        let message = request(id, method, params);
        self.send(&message);
        self.response_to(&message["id"], method)
    }

    /// Writes one message as one line.
    pub fn send(&mut self, message: &Value) {
        let line = message.to_string();
        let written = {
            let stdin = self.stdin.as_mut().expect("stdin is still open");
            stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush())
        };
        if let Err(e) = written {
            self.fail(&format!("cannot write to it ({e})"));
        }
    }

    /// Reads lines until the response to `id`.
    fn response_to(&mut self, id: &Value, method: &str) -> Value {
        let deadline = Instant::now() + READ_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => self.fail(&format!(
                    "no response to {method} (id {id}) within {READ_TIMEOUT:?}"
                )),
                Err(RecvTimeoutError::Disconnected) => self.fail(&format!(
                    "its stdout closed before the response to {method} (id {id})"
                )),
            };
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                self.fail(&format!("stdout carries only JSON-RPC ({e}): {line:?}"))
            });
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Closes stdin: end of input for the server.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Panics with `what`, the server's exit status and its stderr so far.
    #[track_caller]
    fn fail(&mut self, what: &str) -> ! {
        let status = match self.process.child.try_wait() {
            Ok(Some(status)) => format!("it has exited ({status})"),
            Ok(None) => "it is still running".to_owned(),
            Err(e) => format!("its status is unknown ({e})"),
        };
        let stderr = self
            .stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let stderr = if stderr.trim().is_empty() {
            String::new()
        } else {
            format!("\nits stderr:\n{stderr}")
        };
        panic!("{}: {what}; {status}{stderr}", self.label);
    }
}
