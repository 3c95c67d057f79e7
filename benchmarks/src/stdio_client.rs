//! stdio load generator: one child process, requests pipelined on its stdin.
//!
//! The child is spawned fresh for each cell and speaks newline-delimited JSON
//! (the MCP stdio transport). A writer task keeps up to `in_flight` requests
//! outstanding: it waits for a free slot, then writes every request it has a
//! slot for in one `write` (so a deep pipeline is fed in batches, as a real
//! client multiplexing many callers would). A reader task matches reply lines
//! to requests by id, validates them and frees their slots. Latency is
//! measured from the write of a request to the read of its reply, queueing in
//! the pipe included.
//!
//! At the end of the window the writer stops and closes stdin, the reader
//! drains the replies still due, and the child is waited for (killed if it
//! lingers past the request timeout).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Semaphore;

use crate::protocol::{self, ReplyError};
use crate::stats::{CellStats, Recorder, Window};

/// Parameters of one stdio cell.
#[derive(Debug, Clone)]
pub struct StdioCell {
    /// The server executable.
    pub program: PathBuf,
    /// Maximum requests outstanding.
    pub in_flight: usize,
    /// Warm-up before the window.
    pub warmup: Duration,
    /// Window length.
    pub measure: Duration,
    /// Request budget of the cell.
    pub max_requests: u64,
    /// Timeout of one request.
    pub timeout: Duration,
    /// Full validation of every N-th reply.
    pub sample_every: u64,
}

type Pending = Arc<Mutex<HashMap<u64, Instant>>>;

fn spawn(program: &PathBuf) -> anyhow::Result<(Child, ChildStdin, ChildStdout)> {
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start {}", program.display()))?;
    let stdin = child.stdin.take().context("child has no stdin")?;
    let stdout = child.stdout.take().context("child has no stdout")?;
    Ok((child, stdin, stdout))
}

async fn stop(mut child: Child, grace: Duration) {
    if tokio::time::timeout(grace, child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
}

/// Sends two requests one at a time and validates the replies in full: the
/// pre-flight check that tells a working server from a broken one.
pub async fn preflight(program: &PathBuf, timeout: Duration) -> anyhow::Result<()> {
    let (child, mut stdin, stdout) = spawn(program)?;
    let mut reader = BufReader::new(stdout);
    let result = async {
        for id in 1..=2 {
            let mut line = protocol::request_body(id);
            line.push(b'\n');
            stdin.write_all(&line).await?;
            stdin.flush().await?;
            let mut reply = Vec::new();
            loop {
                reply.clear();
                let read = tokio::time::timeout(timeout, reader.read_until(b'\n', &mut reply))
                    .await
                    .context("no reply in time")??;
                anyhow::ensure!(read > 0, "the server closed stdout");
                // Skip notifications and log lines that are not replies.
                if protocol::reply_id(&reply).is_some()
                    || serde_json::from_slice::<serde_json::Value>(&reply).is_err()
                {
                    break;
                }
            }
            protocol::check_reply_full(reply.trim_ascii(), id)?;
        }
        anyhow::Ok(())
    }
    .await;
    drop(stdin);
    stop(child, timeout).await;
    result
}

/// Runs one stdio cell and returns its statistics.
pub async fn run(cell: StdioCell) -> anyhow::Result<CellStats> {
    let (mut child, stdin, stdout) = spawn(&cell.program)?;
    let window = Window::after(cell.warmup, cell.measure);
    let pending: Pending = Arc::default();
    let slots = Arc::new(Semaphore::new(cell.in_flight));

    let mut reader = tokio::spawn(read_replies(
        stdout,
        Arc::clone(&pending),
        Arc::clone(&slots),
        window,
        cell.sample_every,
    ));
    let writer = write_requests(stdin, Arc::clone(&pending), slots, window, &cell).await;

    // Stdin is closed: the server answers what it has and exits.
    let joined = match tokio::time::timeout(cell.timeout, &mut reader).await {
        Ok(joined) => joined,
        Err(_) => {
            // The server neither answered nor exited: kill it, which ends stdout.
            let _ = child.start_kill();
            reader.await
        }
    };
    let mut recorder = joined.context("reply reader panicked")?;
    stop(child, cell.timeout).await;
    let unanswered = pending.lock().unwrap_or_else(PoisonError::into_inner).len();
    for _ in 0..unanswered {
        recorder.error(&ReplyError::Transport(
            "request still unanswered when the cell ended".into(),
        ));
    }
    Ok(CellStats::merge(&window, [writer, recorder]))
}

async fn write_requests(
    mut stdin: ChildStdin,
    pending: Pending,
    slots: Arc<Semaphore>,
    window: Window,
    cell: &StdioCell,
) -> Recorder {
    let mut recorder = Recorder::default();
    let mut batch = Vec::with_capacity(cell.in_flight * 256);
    let mut sent = 0_u64;
    while Instant::now() < window.end && sent < cell.max_requests {
        match tokio::time::timeout(cell.timeout, slots.acquire()).await {
            Ok(Ok(permit)) => permit.forget(),
            Ok(Err(_closed)) => break,
            Err(_) => {
                recorder.error(&ReplyError::Transport(format!(
                    "{} requests outstanding for over {:?}",
                    cell.in_flight, cell.timeout
                )));
                break;
            }
        }
        let mut ids = vec![sent + 1];
        while sent + (ids.len() as u64) < cell.max_requests {
            match slots.try_acquire() {
                Ok(permit) => {
                    permit.forget();
                    ids.push(sent + ids.len() as u64 + 1);
                }
                Err(_) => break,
            }
        }
        batch.clear();
        for id in &ids {
            protocol::write_request(&mut batch, *id);
            batch.push(b'\n');
        }
        let now = Instant::now();
        {
            let mut pending = pending.lock().unwrap_or_else(PoisonError::into_inner);
            pending.extend(ids.iter().map(|id| (*id, now)));
        }
        sent += ids.len() as u64;
        if let Err(e) = stdin.write_all(&batch).await {
            recorder.error(&ReplyError::Transport(format!("writing to stdin: {e}")));
            break;
        }
    }
    let _ = stdin.flush().await;
    drop(stdin);
    recorder
}

async fn read_replies(
    stdout: ChildStdout,
    pending: Pending,
    slots: Arc<Semaphore>,
    window: Window,
    sample_every: u64,
) -> Recorder {
    let mut recorder = Recorder::default();
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::with_capacity(512);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                recorder.error(&ReplyError::Transport(format!("reading stdout: {e}")));
                break;
            }
        }
        let done = Instant::now();
        let json = line.trim_ascii();
        if json.is_empty() {
            continue;
        }
        let Some(id) = protocol::reply_id(json) else {
            let is_message = serde_json::from_slice::<serde_json::Value>(json)
                .is_ok_and(|v| v.get("method").is_some());
            if !is_message {
                // A reply without a usable id (e.g. a parse error): one request is lost.
                recorder.error(&ReplyError::Malformed(protocol::truncate(
                    &String::from_utf8_lossy(json),
                )));
                slots.add_permits(1);
            }
            continue;
        };
        let sent = pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        let Some(sent) = sent else {
            recorder.error(&ReplyError::Malformed(format!(
                "reply to unknown or repeated id {id}"
            )));
            continue;
        };
        slots.add_permits(1);
        let checked = if (id - 1).is_multiple_of(sample_every) {
            protocol::check_reply_full(json, id).map(|()| recorder.validated())
        } else {
            protocol::check_reply(json, id)
        };
        match checked {
            Ok(()) => recorder.success(&window, sent, done),
            Err(error) => recorder.error(&error),
        }
    }
    recorder
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cat` echoes the request back: a reply with the right id but no `result`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_server_answering_wrongly_is_broken() -> anyhow::Result<()> {
        let cat = PathBuf::from("/bin/cat");
        if !cat.is_file() {
            return Ok(());
        }
        assert!(preflight(&cat, Duration::from_secs(2)).await.is_err());
        let stats = run(StdioCell {
            program: cat,
            in_flight: 8,
            warmup: Duration::from_millis(20),
            measure: Duration::from_millis(100),
            max_requests: 10_000,
            timeout: Duration::from_secs(2),
            sample_every: 1,
        })
        .await?;
        assert!(stats.errors > 0);
        assert!(!stats.healthy());
        Ok(())
    }
}
