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
//! At the end of the window the writer stops, waits (up to the request timeout) for the
//! replies still due, and closes stdin; the reader drains what is left, and the child is
//! waited for (killed if it lingers past the request timeout).
//!
//! A server of the 2025-11-25 era (the TypeScript and Python SDKs 1.x) needs a session
//! first: with [`StdioCell::session`] the cell sends `initialize`, waits for its reply, sends
//! `notifications/initialized`, and only then starts the window, sending the `echo` call
//! without the 2026 `_meta`. The server's CPU time in the window and its peak RSS are read
//! from `/proc` ([`crate::proc_stats`]) into the cell's statistics.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Semaphore;

use crate::command::ServerCommand;
use crate::protocol::{self, ReplyError};
use crate::stats::{CellStats, Recorder, Window};

/// Parameters of one stdio cell.
#[derive(Debug, Clone)]
pub struct StdioCell {
    /// The server's command line.
    pub command: ServerCommand,
    /// Whether to open a 2025-11-25 session (`initialize`) before the window.
    pub session: bool,
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

fn spawn(command: &ServerCommand) -> anyhow::Result<(Child, ChildStdin, ChildStdout)> {
    let mut child = command
        .tokio()
        .spawn()
        .with_context(|| format!("cannot start {}", command.display()))?;
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
    preflight_command(&ServerCommand::new(program), false, timeout).await
}

/// [`preflight`] for any command line, opening a 2025-11-25 session first when `session`.
pub async fn preflight_command(
    command: &ServerCommand,
    session: bool,
    timeout: Duration,
) -> anyhow::Result<()> {
    let (child, mut stdin, stdout) = spawn(command)?;
    let mut reader = BufReader::new(stdout);
    let result = async {
        if session {
            open_session(&mut stdin, &mut reader, timeout).await?;
        }
        for id in 1..=2 {
            let mut line = if session {
                protocol::session_request_body(id)
            } else {
                protocol::request_body(id)
            };
            line.push(b'\n');
            stdin.write_all(&line).await?;
            stdin.flush().await?;
            let reply = read_reply_line(&mut reader, timeout).await?;
            protocol::check_reply_full(reply.trim_ascii(), id)?;
        }
        anyhow::Ok(())
    }
    .await;
    drop(stdin);
    stop(child, timeout).await;
    result
}

/// Reads lines until one is a reply (has an id) or is not JSON; skips notifications.
async fn read_reply_line(
    reader: &mut BufReader<ChildStdout>,
    timeout: Duration,
) -> anyhow::Result<Vec<u8>> {
    let mut reply = Vec::new();
    loop {
        reply.clear();
        let read = tokio::time::timeout(timeout, reader.read_until(b'\n', &mut reply))
            .await
            .context("no reply in time")??;
        anyhow::ensure!(read > 0, "the server closed stdout");
        if protocol::reply_id(&reply).is_some()
            || serde_json::from_slice::<serde_json::Value>(&reply).is_err()
        {
            return Ok(reply);
        }
    }
}

/// Opens a 2025-11-25 session: `initialize` (its reply checked), then
/// `notifications/initialized`.
async fn open_session(
    stdin: &mut ChildStdin,
    reader: &mut BufReader<ChildStdout>,
    timeout: Duration,
) -> anyhow::Result<()> {
    stdin
        .write_all(format!("{}\n", protocol::INITIALIZE_BODY).as_bytes())
        .await?;
    stdin.flush().await?;
    let reply = read_reply_line(reader, timeout).await?;
    protocol::check_initialize_reply(reply.trim_ascii()).context("initialize")?;
    stdin
        .write_all(format!("{}\n", protocol::INITIALIZED_BODY).as_bytes())
        .await?;
    stdin.flush().await?;
    Ok(())
}

/// Cold start: the time from spawning `command` to reading the first reply line, the first
/// request (`initialize` when `session`, else the `echo` call) written at once. The reply is
/// checked.
pub async fn cold_start(
    command: &ServerCommand,
    session: bool,
    timeout: Duration,
) -> anyhow::Result<Duration> {
    let mut first = if session {
        protocol::INITIALIZE_BODY.as_bytes().to_vec()
    } else {
        protocol::request_body(1)
    };
    first.push(b'\n');
    let started = Instant::now();
    let (child, mut stdin, stdout) = spawn(command)?;
    let mut reader = BufReader::new(stdout);
    let result = async {
        stdin.write_all(&first).await?;
        stdin.flush().await?;
        let reply = read_reply_line(&mut reader, timeout).await?;
        let elapsed = started.elapsed();
        if session {
            protocol::check_initialize_reply(reply.trim_ascii())?;
        } else {
            protocol::check_reply_full(reply.trim_ascii(), 1)?;
        }
        anyhow::Ok(elapsed)
    }
    .await;
    drop(stdin);
    stop(child, timeout).await;
    result
}

/// Runs one stdio cell and returns its statistics.
pub async fn run(cell: StdioCell) -> anyhow::Result<CellStats> {
    let (mut child, mut stdin, stdout) = spawn(&cell.command)?;
    let pid = child.id();
    let stdout = if cell.session {
        let mut reader = BufReader::with_capacity(64 * 1024, stdout);
        open_session(&mut stdin, &mut reader, cell.timeout).await?;
        reader
    } else {
        BufReader::with_capacity(64 * 1024, stdout)
    };
    let window = Window::after(cell.warmup, cell.measure);
    let cpu = tokio::spawn(crate::proc_stats::cpu_in_window(pid, window));
    let pending: Pending = Arc::default();
    let slots = Arc::new(Semaphore::new(cell.in_flight));

    let mut reader = tokio::spawn(read_replies(
        stdout,
        Arc::clone(&pending),
        Arc::clone(&slots),
        window,
        cell.sample_every,
    ));
    let (writer, stdin) = write_requests(stdin, Arc::clone(&pending), slots, window, &cell).await;
    // The window is over: read the server's accounting while it still runs, then close its
    // stdin so that it answers what it has and exits.
    let server_cpu = cpu.await.ok().flatten();
    let server_peak_rss_kib = pid.and_then(crate::proc_stats::peak_rss_kib);
    drop(stdin);

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
    let mut stats = CellStats::merge(&window, [writer, recorder]);
    stats.server_cpu = server_cpu;
    stats.server_peak_rss_kib = server_peak_rss_kib;
    Ok(stats)
}

async fn write_requests(
    mut stdin: ChildStdin,
    pending: Pending,
    slots: Arc<Semaphore>,
    window: Window,
    cell: &StdioCell,
) -> (Recorder, ChildStdin) {
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
            if cell.session {
                protocol::write_session_request(&mut batch, *id);
            } else {
                protocol::write_request(&mut batch, *id);
            }
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
    // Let the requests still in flight be answered before stdin is closed: a server may
    // drop what it is working on when its input ends (the Python SDK does).
    let deadline = Instant::now() + cell.timeout;
    while Instant::now() < deadline
        && !pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    (recorder, stdin)
}

async fn read_replies(
    mut reader: BufReader<ChildStdout>,
    pending: Pending,
    slots: Arc<Semaphore>,
    window: Window,
    sample_every: u64,
) -> Recorder {
    let mut recorder = Recorder::default();
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
            command: ServerCommand::new(cat),
            session: false,
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
