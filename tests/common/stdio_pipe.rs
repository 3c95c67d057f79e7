//! Newline-delimited JSON-RPC over a server's stdin and stdout: a [`Pipe`] drives a server
//! in-process (on in-memory pipes, `tests/end_to_end/stdio.rs`) or spawned ([`spawn`]), for
//! what only the raw wire shows (a client of `typemcp-client` drives the rest). Every read has
//! a deadline, so a silent server fails the test instead of hanging it; a failure quotes the
//! spawned server's stderr (kept in `target/examples-e2e/`).

use std::fmt::Display;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::time::{Instant, timeout};

use super::{READ_TIMEOUT, assert_result, discover, example_binary, out_dir, tail};

/// A server's stdin (`W`) and stdout (`R`), read line by line.
#[derive(Debug)]
pub struct Pipe<W, R> {
    input: Option<W>,
    output: Lines<BufReader<R>>,
    /// The file holding the server's stderr, quoted in failure messages.
    stderr: Option<PathBuf>,
}

impl<W: AsyncWrite + Unpin, R: AsyncRead + Unpin> Pipe<W, R> {
    /// Speaks to a server through its `input` and `output`; `stderr` is the file holding
    /// its stderr, if any.
    pub fn new(input: W, output: R, stderr: Option<PathBuf>) -> Self {
        let output = BufReader::new(output).lines();
        Self {
            input: Some(input),
            output,
            stderr,
        }
    }

    /// Writes one line (a message, or any text without a newline) and a newline.
    pub async fn send(&mut self, line: impl Display) {
        let line = format!("{line}\n");
        assert_eq!(line.matches('\n').count(), 1, "one message per line");
        let Some(input) = self.input.as_mut() else {
            self.fail("its input is closed")
        };
        let write = async {
            input.write_all(line.as_bytes()).await?;
            input.flush().await
        };
        match timeout(READ_TIMEOUT, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.fail(&format!("cannot write to it ({e})")),
            Err(_) => self.fail(&format!("it read no line within {READ_TIMEOUT:?}")),
        }
    }

    /// Writes raw bytes as they are (no newline added), such as a line that is not UTF-8.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let Some(input) = self.input.as_mut() else {
            self.fail("its input is closed")
        };
        let write = async {
            input.write_all(bytes).await?;
            input.flush().await
        };
        match timeout(READ_TIMEOUT, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.fail(&format!("cannot write to it ({e})")),
            Err(_) => self.fail(&format!("it read nothing within {READ_TIMEOUT:?}")),
        }
    }

    /// Closes its input: end of input for the server.
    pub fn close(&mut self) {
        drop(self.input.take());
    }

    /// The next message within `period`; `None` if none arrived or the output ended.
    pub async fn next_within(&mut self, period: Duration) -> Option<Value> {
        let line = timeout(period, self.output.next_line()).await.ok()?;
        let line = line.unwrap_or_else(|e| self.fail(&format!("unreadable output ({e})")))?;
        let message = serde_json::from_str(&line);
        Some(message.unwrap_or_else(|e| self.fail(&format!("stdout is not JSON ({e}): {line}"))))
    }

    /// The next message; fails if none arrives within [`READ_TIMEOUT`].
    pub async fn next(&mut self) -> Value {
        let message = self.next_within(READ_TIMEOUT).await;
        message.unwrap_or_else(|| self.fail(&format!("no message within {READ_TIMEOUT:?}")))
    }

    /// Reads until the response to `id`; returns it and every message seen before it.
    pub async fn until_response(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next().await;
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Every message written within `period`.
    pub async fn drain_for(&mut self, period: Duration) -> Vec<Value> {
        let (deadline, mut seen) = (Instant::now() + period, Vec::new());
        while let Some(message) = self.next_within(deadline - Instant::now()).await {
            seen.push(message);
        }
        seen
    }

    /// Sends a request; returns the response to it and every message before it.
    pub async fn exchange(&mut self, message: &Value) -> (Value, Vec<Value>) {
        self.send(message).await;
        self.until_response(&message["id"]).await
    }

    /// Sends a request to the fixture server and returns its successful result.
    pub async fn call_ok(&mut self, message: &Value) -> Value {
        let (response, _) = self.exchange(message).await;
        assert_result(&response, &message["id"]).clone()
    }

    /// The fixture server still answers a well-formed request.
    pub async fn assert_still_serving(&mut self) {
        let result = self.call_ok(&discover("still-serving")).await;
        assert!(result["supportedVersions"].is_array(), "{result}");
    }

    /// Panics with `what` and the server's stderr, when it has one.
    #[track_caller]
    fn fail(&self, what: &str) -> ! {
        let stderr = self.stderr.as_ref().map(|path| tail(path, 40));
        panic!(
            "{what}; the server's stderr:\n{}",
            stderr.unwrap_or_default()
        );
    }
}

/// Builds (once) and spawns the example `name` with `args` over stdio (in a Tokio runtime),
/// with its stderr in `target/examples-e2e/`; the process is killed when dropped.
pub fn spawn(name: &str, args: &[&str]) -> (Pipe<ChildStdin, ChildStdout>, Child) {
    static SPAWNED: AtomicUsize = AtomicUsize::new(0);
    let n = SPAWNED.fetch_add(1, Ordering::Relaxed);
    let stderr = out_dir("examples-e2e").join(format!("{name}.stdio.{n}.log"));
    let log = std::fs::File::create(&stderr).expect("a log file");
    let mut command = tokio::process::Command::new(example_binary(name));
    command.args(args).env("RUST_LOG", "warn").stderr(log);
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = command.kill_on_drop(true).spawn().unwrap();
    let (input, output) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let pipe = Pipe::new(input, output, Some(stderr));
    (pipe, child)
}
