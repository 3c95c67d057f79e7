//! The stdio half of the soak: the same server over stdio (`soak_server --stdio`, a process
//! of its own), driven one line at a time through [`STDIO_MIX`].
//!
//! Every line sent is a JSON-RPC request and gets exactly one line back:
//! * [`Kind::Echo`], [`Kind::Flow`]: as over HTTP, checked in full;
//! * [`Kind::Malformed`]: a line cut in the middle of the JSON: error `-32700`, no id;
//! * [`Kind::WrongTypes`]: a tool result flagged `isError` (`Invalid arguments: ...`);
//! * [`Kind::Tampered`]: round 1 of a flow, then round 2 with a changed state: error `-32602`;
//! * [`Kind::UnknownTool`]: error `-32602`;
//! * [`Kind::Oversized`]: a line over the server's message limit: error `-32600`, no id.

use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

use anyhow::Context as _;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::http::REQUEST_TIMEOUT;
use super::load::Counters;
use super::ops::{self, Failure, Kind};
use crate::protocol::{self, FlowRound};

/// The order of the stdio operations (then starts again): half plain calls.
pub const STDIO_MIX: [Kind; 12] = [
    Kind::Echo,
    Kind::Flow,
    Kind::Echo,
    Kind::Malformed,
    Kind::Echo,
    Kind::WrongTypes,
    Kind::Echo,
    Kind::Tampered,
    Kind::Echo,
    Kind::UnknownTool,
    Kind::Echo,
    Kind::Oversized,
];

/// The stdio server process and its pipes.
#[derive(Debug)]
pub struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl StdioServer {
    /// Starts `exe --stdio` (inside a tokio runtime).
    pub fn spawn(exe: &Path) -> anyhow::Result<Self> {
        let mut child = Command::new(exe)
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("cannot start {} --stdio", exe.display()))?;
        let stdin = child.stdin.take().context("no stdin of the stdio server")?;
        let stdout = child
            .stdout
            .take()
            .context("no stdout of the stdio server")?;
        Ok(Self {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            line: Vec::new(),
        })
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Writes `message` as one line and reads the next line back.
    async fn exchange(&mut self, message: &[u8]) -> Result<&[u8], Failure> {
        let stdin = self.stdin.as_mut().ok_or("stdin already closed")?;
        let io = async {
            stdin.write_all(message).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await?;
            self.line.clear();
            let n = self.stdout.read_until(b'\n', &mut self.line).await?;
            std::io::Result::Ok(n)
        };
        match tokio::time::timeout(REQUEST_TIMEOUT, io).await {
            Ok(Ok(0)) => Err("the stdio server closed its stdout".to_owned()),
            Ok(Ok(_)) => Ok(&self.line),
            Ok(Err(e)) => Err(format!("stdio: {e}")),
            Err(_) => Err(format!("stdio: no reply within {REQUEST_TIMEOUT:?}")),
        }
    }

    /// Closes its stdin (the end of input, on which it stops) and waits for it to exit.
    pub async fn stop(&mut self) -> anyhow::Result<std::process::ExitStatus> {
        drop(self.stdin.take());
        match tokio::time::timeout(REQUEST_TIMEOUT, self.child.wait()).await {
            Ok(status) => Ok(status?),
            Err(_) => {
                self.child.kill().await?;
                anyhow::bail!("the stdio server did not stop at the end of its input; killed")
            }
        }
    }
}

/// Runs [`STDIO_MIX`] against `server` until `deadline`, one request at a time.
pub async fn run(server: &mut StdioServer, deadline: Instant, counters: &Counters) {
    let mut id = 1_u64 << 56;
    let mut slot = 0_usize;
    while Instant::now() < deadline {
        let kind = STDIO_MIX[slot % STDIO_MIX.len()];
        let turn = (slot / STDIO_MIX.len()) as u64;
        let result = op(kind, server, &mut id, turn).await;
        let closed = result
            .as_ref()
            .is_err_and(|e| e.contains("closed its stdout"));
        counters.record(kind, result);
        if closed {
            break;
        }
        slot += 1;
    }
}

/// One operation over stdio; returns the number of lines sent.
async fn op(
    kind: Kind,
    server: &mut StdioServer,
    ids: &mut u64,
    turn: u64,
) -> Result<u64, Failure> {
    let mut next_id = || {
        *ids += 1;
        *ids
    };
    match kind {
        Kind::Echo => {
            let id = next_id();
            let reply = server.exchange(&protocol::request_body(id)).await?;
            protocol::check_reply_full(reply, id).map_err(|e| format!("echo: {e}"))?;
            Ok(1)
        }
        Kind::Flow => {
            let mut state = None;
            for round in [FlowRound::First, FlowRound::Second, FlowRound::Third] {
                state = flow_round(server, next_id(), round, state.as_deref()).await?;
            }
            Ok(3)
        }
        Kind::Malformed => {
            let mut body = protocol::request_body(next_id());
            body.truncate(body.len() / 2);
            let reply = server.exchange(&body).await?;
            expect_error(reply, None, -32700, "malformed")?;
            Ok(1)
        }
        Kind::WrongTypes => {
            let id = next_id();
            let reply = server
                .exchange(ops::wrong_types_body(id).as_bytes())
                .await?;
            if ops::is_tool_error(reply, id, "Invalid arguments") {
                Ok(1)
            } else {
                Err(format!(
                    "wrong types: expected a tool result with isError, got {}",
                    describe(reply)
                ))
            }
        }
        Kind::Tampered => {
            let state = flow_round(server, next_id(), FlowRound::First, None)
                .await?
                .ok_or("tampered: round 1 gave no state")?;
            let id = next_id();
            let tampered = ops::tamper(&state, turn);
            let body = protocol::flow_request_body(id, FlowRound::Second, Some(&tampered));
            let reply = server.exchange(&body).await?;
            expect_error(reply, Some(id), -32602, "tampered")?;
            Ok(2)
        }
        Kind::UnknownTool => {
            let id = next_id();
            let reply = server
                .exchange(ops::unknown_tool_body(id).as_bytes())
                .await?;
            expect_error(reply, Some(id), -32602, "unknown tool")?;
            Ok(1)
        }
        Kind::Oversized => {
            let body = ops::oversized_body(next_id());
            let reply = server.exchange(body.as_bytes()).await?;
            expect_error(reply, None, -32600, "oversized")?;
            Ok(1)
        }
        Kind::Session | Kind::BadHeaders => Ok(0),
    }
}

async fn flow_round(
    server: &mut StdioServer,
    id: u64,
    round: FlowRound,
    state: Option<&str>,
) -> Result<Option<String>, Failure> {
    let body = protocol::flow_request_body(id, round, state);
    let reply = server.exchange(&body).await?;
    protocol::check_flow_reply(reply, id, round, round == FlowRound::Third)
        .map_err(|e| format!("flow {round:?}: {e}"))
}

/// `reply` is a JSON-RPC error with `code`, for request `id` (`None`: id `null` or absent).
fn expect_error(reply: &[u8], id: Option<u64>, code: i64, step: &str) -> Result<(), Failure> {
    let found_id = serde_json::from_slice::<serde_json::Value>(reply)
        .ok()
        .and_then(|v| v.get("id").cloned());
    let id_matches = match id {
        Some(id) => found_id.as_ref().and_then(serde_json::Value::as_u64) == Some(id),
        // JSON-RPC asks for `"id": null` when the request's id cannot be read; the server
        // leaves the member out, which is accepted here too.
        None => matches!(found_id, None | Some(serde_json::Value::Null)),
    };
    if id_matches && ops::rpc_error_code(reply) == Some(code) {
        Ok(())
    } else {
        Err(format!(
            "{step}: expected error {code} for id {id:?}, got {}",
            describe(reply)
        ))
    }
}

fn describe(reply: &[u8]) -> String {
    protocol::truncate(String::from_utf8_lossy(reply).trim_end())
}
