//! The process's own stdin and stdout when they cannot wait on tokio's reactor (a terminal,
//! a file; off Unix: see `super::reactor`), each served by a dedicated thread doing plain
//! blocking, buffered I/O.
//!
//! tokio's `Stdin` and `Stdout` hand every read and every write to the blocking pool, a
//! round trip through it per message. Here the stdin thread reads, frames lines and hands
//! each one to the connection; the stdout thread takes the connection's messages from its
//! queue, writes as many as are waiting in one go and flushes when the queue runs dry, on
//! the protocol's own stdout (`stdout_guard`).
//!
//! The stdin thread ends when input ends or the connection goes away (at its next read: a
//! read of stdin cannot be interrupted, so a server shut down while its client keeps stdin
//! open leaves the thread blocked until the process exits).

use std::io::{self, BufWriter, Read, Write};
use std::thread;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};

use super::framing::{Framer, Line};

/// How many framed lines may wait for the connection before the stdin thread stops reading.
const LINE_BACKLOG: usize = 64;
/// How much is read from stdin at once.
const READ_CHUNK: usize = 64 * 1024;

/// The lines of the process's stdin, framed on the stdin thread.
pub(super) struct StdinLines {
    lines: mpsc::Receiver<io::Result<Line>>,
}

impl StdinLines {
    /// Starts the stdin thread.
    pub(super) fn spawn(max: usize) -> io::Result<Self> {
        let (tx, lines) = mpsc::channel(LINE_BACKLOG);
        thread::Builder::new()
            .name("mcp-stdin".to_owned())
            .spawn(move || read_stdin(max, &tx))?;
        Ok(Self { lines })
    }

    pub(super) async fn next(&mut self) -> io::Result<Line> {
        self.lines.recv().await.unwrap_or(Ok(Line::End))
    }
}

fn read_stdin(max: usize, lines: &mpsc::Sender<io::Result<Line>>) {
    let mut framer = Framer::new(max);
    let mut stdin = io::stdin().lock();
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        while let Some(line) = framer.next_line() {
            let last = matches!(line, Ok(Line::End) | Err(_));
            if lines.blocking_send(line).is_err() || last {
                return;
            }
        }
        match stdin.read(&mut chunk) {
            Ok(0) => framer.end(),
            Ok(read) => framer.buffer().extend_from_slice(&chunk[..read]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => {
                let _ = lines.blocking_send(Err(err));
                return;
            }
        }
    }
}

/// Starts the stdout thread, writing each message of `messages` as one line on `stdout`
/// (the protocol's own, see `stdout_guard`) until every sender is gone. The receiver tells
/// how writing ended.
pub(super) fn spawn_stdout_writer(
    stdout: Box<dyn Write + Send>,
    messages: mpsc::Receiver<Bytes>,
) -> io::Result<oneshot::Receiver<io::Result<()>>> {
    let (done, ended) = oneshot::channel();
    thread::Builder::new()
        .name("mcp-stdout".to_owned())
        .spawn(move || {
            let _ = done.send(write_stdout(stdout, messages));
        })?;
    Ok(ended)
}

fn write_stdout(
    stdout: Box<dyn Write + Send>,
    mut messages: mpsc::Receiver<Bytes>,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(READ_CHUNK, stdout);
    while let Some(first) = messages.blocking_recv() {
        write_line(&mut out, &first)?;
        while let Ok(next) = messages.try_recv() {
            write_line(&mut out, &next)?;
        }
        out.flush()?;
    }
    Ok(())
}

fn write_line(out: &mut impl Write, message: &[u8]) -> io::Result<()> {
    out.write_all(message)?;
    out.write_all(b"\n")
}
