//! The stdio transport: one JSON-RPC message per line on stdin, responses and
//! notifications on stdout.
//!
//! Requests are handled concurrently. `notifications/cancelled` stops a request and nothing
//! more is written for it. [`Server::serve_stdio`] shuts down gracefully on SIGTERM and
//! Ctrl-C (see `server::shutdown`): new requests are refused while the answers and
//! cancellations of the ones in flight are still read, until they finish or the grace
//! period ends. On end of input, open `subscriptions/listen` requests complete,
//! the session (if any) ends, so that requests waiting for the client's answers fail, in-flight
//! requests drain, and the function returns.
//!
//! Both eras are served (see `dispatch::era`): the first `initialize` opens the process's
//! 2025-11-25 session, whose notifications outside any request (list changes, updates of
//! subscribed resources) are written to stdout; requests with modern `_meta` are still
//! served statelessly beside it. On that session the server may send requests of its own
//! (pushed input requests, `ping`) on stdout; the client's responses read from stdin are
//! routed back to them.
//!
//! Lines are framed in [`framing`]. The process's own stdin and stdout ([`Server::serve_stdio`])
//! are read and written on tokio's reactor when they are pipes or sockets ([`reactor`]), and
//! otherwise each by a thread of its own ([`process`]); any other reader and writer
//! ([`Server::serve_io`]) by tokio.

mod framing;
mod process;
#[cfg(unix)]
mod reactor;
mod stdout_guard;

use std::collections::HashMap;
use std::io;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::sync::CancellationToken;
use typemcp_core::jsonrpc::{
    IncomingMessage, IncomingNotification, IncomingRequest, parse_message,
};
use typemcp_core::protocol::methods;
use typemcp_core::{McpError, RequestId};

use framing::{AsyncLines, Line};
use process::StdinLines;

use crate::Server;
use crate::budget::Budget;
use crate::context::TransportInfo;
use crate::dispatch::{Era, Reply, Scope};
use crate::outbound::Outbound;
use crate::service::McpRequest;
use crate::session::Session;
use crate::transport::Signals;

type InFlight = Arc<Mutex<HashMap<RequestId, (CancellationToken, Option<AbortHandle>)>>>;

fn lock(
    map: &InFlight,
) -> MutexGuard<'_, HashMap<RequestId, (CancellationToken, Option<AbortHandle>)>> {
    map.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    /// Serves this server over the process's stdin and stdout until stdin closes.
    ///
    /// Only the protocol is written to stdout. On Unix, anything else written there (a
    /// `println!`, a logger on stdout, a child process) is moved to stderr, after a
    /// warning printed once: the protocol keeps a duplicate of fd 1 and fd 1 becomes a pipe
    /// forwarded to stderr. Log with [`logging::init`](crate::logging::init), which writes
    /// to stderr.
    ///
    /// When stdin and stdout are pipes or sockets (as when a client spawns the server), they
    /// are read and written by tasks of the runtime, woken by its event loop: no thread of
    /// their own, no hand-off between threads per message. On a current-thread runtime
    /// (`#[tokio::main(flavor = "current_thread")]`), reading, serving and writing then all
    /// happen on one thread, which is the fastest way to serve a single stdio client. A
    /// terminal or a file is served by a thread of its own doing blocking, buffered I/O
    /// instead (see `process`).
    ///
    /// A request is first served on the task that reads the input, and becomes a task of
    /// its own only when it has to wait: a handler that computes for long without awaiting
    /// should do that work in `tokio::task::spawn_blocking`, as anywhere in tokio, or it
    /// holds up the reading meanwhile.
    ///
    /// On SIGTERM or Ctrl-C (SIGINT) it shuts down gracefully: new requests are answered with
    /// a JSON-RPC error (`-32603`, `Service Unavailable: the server is shutting down`), while
    /// the client's answers to pushed requests and its cancellations are still read; open
    /// `subscriptions/listen` requests complete; in-flight requests have
    /// [`ServerBuilder::shutdown_grace`](crate::ServerBuilder::shutdown_grace) (default
    /// 10 s) to finish, then are cancelled (each answered with an error), and the function
    /// returns `Ok`. A second signal stops at once.
    pub async fn serve_stdio(self) -> io::Result<()> {
        let signals = Signals::install();
        let watcher = tokio::spawn({
            let server = self.clone();
            async move {
                signals.first(server.clone()).await;
                server
                    .lifecycle()
                    .finish(server.config().shutdown_grace)
                    .await;
            }
        });
        let _stop_watching = AbortHandleOnDrop(watcher.abort_handle());
        // Dropped last: the files' flags go back once nothing reads or writes them.
        let mut restore = Vec::new();
        let (out_tx, out_rx) = mpsc::channel::<Bytes>(OUT_BACKLOG);
        // Guarded before anything is read: no handler runs before fd 1 is a pipe.
        let (written, _stop_writing) = write_stdout(out_rx, &mut restore)?;
        let input = read_stdin(self.config().max_message_bytes, &mut restore)?;
        // A task of the runtime rather than the caller's future: on a multi-thread runtime,
        // `block_on`'s thread would otherwise be woken by a worker for every message.
        let serving = tokio::spawn(self.serve_lines(input, out_tx, written));
        let abort = serving.abort_handle();
        let _stop_serving = AbortHandleOnDrop(abort);
        let served = serving
            .await
            .unwrap_or_else(|join| Err(io::Error::other(join)));
        // What handlers printed is on stderr before the caller (likely `main`) goes on.
        stdout_guard::settle();
        served
    }

    /// Serves newline-delimited JSON-RPC over any reader and writer (a socket, a pipe, an
    /// in-memory duplex in tests) until the reader ends.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out_tx, out_rx) = mpsc::channel::<Bytes>(OUT_BACKLOG);
        let writer_task = tokio::spawn(write_lines(writer, out_rx));
        let written = async move {
            writer_task
                .await
                .unwrap_or_else(|join| Err(io::Error::other(join)))
        };
        let input = AsyncLines::new(reader, self.config().max_message_bytes);
        self.serve_lines(Input::Async(input), out_tx, written).await
    }

    /// Serves the lines of `input`, writing through `out`, until input ends; then waits for
    /// everything to be `written`.
    async fn serve_lines<R: AsyncRead + Unpin>(
        self,
        input: Input<R>,
        out: mpsc::Sender<Bytes>,
        written: impl Future<Output = io::Result<()>>,
    ) -> io::Result<()> {
        let connection = Connection {
            server: self.clone(),
            out,
            in_flight: Arc::default(),
            budget: Budget::new(self.config().max_in_flight),
            listens: CancellationToken::new(),
            tasks: JoinSet::new(),
            session: None,
        };
        let result = connection.run(input).await;
        result.and(written.await)
    }
}

/// Aborts a task when dropped.
struct AbortHandleOnDrop(AbortHandle);

impl Drop for AbortHandleOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// How the process's stdout is written, and its end awaited.
type Written = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

/// What gives a file read or written on the reactor its flags back.
#[cfg(unix)]
type Restored = reactor::Restore;
#[cfg(not(unix))]
type Restored = ();

/// What reads the process's stdin when it is on the reactor.
#[cfg(unix)]
type StdinReader = tokio::net::unix::pipe::Receiver;
#[cfg(not(unix))]
type StdinReader = tokio::io::Empty;

/// Starts writing `messages` to the protocol's stdout: a task on the reactor when stdout is a
/// pipe or a socket, else the stdout thread. Returns the end of writing, and what stops the
/// task if serving is given up.
fn write_stdout(
    messages: mpsc::Receiver<Bytes>,
    restore: &mut Vec<Restored>,
) -> io::Result<(Written, Option<AbortHandleOnDrop>)> {
    #[cfg(unix)]
    if let Some((sender, restored)) = stdout_guard::protocol_file().and_then(reactor::stdout) {
        restore.push(restored);
        let task = tokio::spawn(write_lines(sender, messages));
        let stop = AbortHandleOnDrop(task.abort_handle());
        let written = async move {
            task.await
                .unwrap_or_else(|join| Err(io::Error::other(join)))
        };
        return Ok((Box::pin(written), Some(stop)));
    }
    let _ = restore;
    let written = process::spawn_stdout_writer(stdout_guard::protocol_stdout(), messages)?;
    let written = async move {
        written
            .await
            .unwrap_or_else(|_| Err(io::Error::other("the stdout writer thread stopped")))
    };
    Ok((Box::pin(written), None))
}

/// The lines of the process's stdin: read on the reactor when stdin is a pipe or a socket,
/// else by the stdin thread.
fn read_stdin(max: usize, restore: &mut Vec<Restored>) -> io::Result<Input<StdinReader>> {
    #[cfg(unix)]
    if let Some((receiver, restored)) = reactor::stdin() {
        restore.push(restored);
        return Ok(Input::Async(AsyncLines::new(receiver, max)));
    }
    let _ = restore;
    Ok(Input::Stdin(StdinLines::spawn(max)?))
}

/// How many messages may wait to be written.
const OUT_BACKLOG: usize = 256;

/// How much output is gathered into one write.
const WRITE_BUFFER: usize = 64 * 1024;

/// Where the lines come from.
enum Input<R> {
    /// An async reader, framed here.
    Async(AsyncLines<R>),
    /// The process's stdin, framed on its thread.
    Stdin(StdinLines),
}

impl<R: AsyncRead + Unpin> Input<R> {
    async fn next(&mut self) -> io::Result<Line> {
        match self {
            Self::Async(lines) => lines.next().await,
            Self::Stdin(lines) => lines.next().await,
        }
    }
}

struct Connection {
    server: Server,
    out: mpsc::Sender<Bytes>,
    in_flight: InFlight,
    /// How many requests are served at once.
    budget: Budget,
    /// Ends open listens when input ends.
    listens: CancellationToken,
    tasks: JoinSet<()>,
    /// The process's 2025-11-25 session, once `initialize` has been served.
    session: Option<Arc<Session>>,
}

impl Connection {
    async fn run<R: AsyncRead + Unpin>(mut self, mut lines: Input<R>) -> io::Result<()> {
        let max = self.server.config().max_message_bytes;
        let mut outcome = Ok(());
        loop {
            let next = tokio::select! {
                next = lines.next() => next,
                () = self.server.shutdown_token().cancelled() => break,
            };
            match next {
                Ok(Line::End) => break,
                Ok(Line::Message(line)) if line.trim().is_empty() => {}
                Ok(Line::Message(line)) => self.on_line(line.as_bytes()).await,
                Ok(Line::TooLong) => {
                    let error = McpError::invalid_request(format!(
                        "Message too large: the limit is {max} bytes"
                    ));
                    self.send(Reply::error(None, error).body).await;
                }
                Ok(Line::NotUtf8) => {
                    let error = McpError::parse_error("Parse error: the message is not UTF-8");
                    self.send(Reply::error(None, error).body).await;
                }
                Err(err) => {
                    outcome = Err(err);
                    break;
                }
            }
            while self.tasks.try_join_next().is_some() {}
        }
        self.listens.cancel();
        // Ending the session first ends the waits for answers that can no longer come.
        if let Some(session) = self.session.take() {
            session.close();
        }
        while self.tasks.join_next().await.is_some() {}
        outcome
    }

    async fn on_line(&mut self, line: &[u8]) {
        match parse_message(line) {
            Err(error) => {
                self.send(Reply::error(error.id.clone(), error.error).body)
                    .await
            }
            Ok(IncomingMessage::Request(request)) => self.on_request(request).await,
            Ok(IncomingMessage::Notification(notification)) => self.on_notification(notification),
            // The answer to a request the server sent on the session (see `session::outgoing`).
            Ok(IncomingMessage::Response { id }) => match &self.session {
                Some(session) => {
                    session.answer(line);
                }
                None => tracing::debug!(?id, "ignoring a response from the client"),
            },
        }
    }

    async fn on_request(&mut self, request: IncomingRequest) {
        let id = request.id.clone();
        if self.server.is_draining() {
            tracing::debug!(method = %request.method, "refused a request: shutting down");
            let error = McpError::internal("Service Unavailable: the server is shutting down");
            self.send(Reply::error(Some(id), error).body).await;
            return;
        }
        if lock(&self.in_flight).contains_key(&id) {
            let error = McpError::invalid_request(
                "Invalid request: a request with this id is still in progress",
            );
            self.send(Reply::error(Some(id), error).body).await;
            return;
        }
        let scope = Scope::Process {
            session: self.session.as_ref(),
            sink: &self.out,
        };
        let era = match self.server.era_of(&request, scope) {
            // Boxed: a rare branch, which would make every request's reading future as large
            // as a whole request's.
            Ok(era @ Era::Opening(_)) => return Box::pin(self.initialize(request, era)).await,
            Ok(era) => era,
            Err(reply) => return self.send(reply.body).await,
        };
        let is_listen =
            matches!(era, Era::Modern(_)) && request.method == methods::SUBSCRIPTIONS_LISTEN;
        let token = if is_listen {
            self.listens.child_token()
        } else {
            CancellationToken::new()
        };
        // With every place taken, reading waits here (a `subscriptions/listen` stream is not
        // work in progress and takes none).
        let place = if is_listen {
            None
        } else {
            self.budget.admit().await
        };
        let server = self.server.clone();
        let out = self.out.clone();
        let in_flight = Arc::clone(&self.in_flight);
        let outbound = Outbound::Channel(self.out.clone());
        let task_token = token.clone();
        let task_id = id.clone();
        // Registered before it runs, so that a cancellation finds it and its reply knows it
        // is still wanted.
        lock(&self.in_flight).insert(id.clone(), (token, None));
        // The place is held until the answer is handed to the writer, so that a client that
        // does not read holds back its own requests.
        let serve = self.budget.run(place, async move {
            let request =
                McpRequest::new(request, era, TransportInfo::stdio(), outbound, task_token);
            let reply = server.call_service(request).await.into_reply();
            // A cancelled request was removed from the map: nothing more is written for it.
            let still_wanted = lock(&in_flight).remove(&task_id).is_some();
            if still_wanted {
                let _ = out.send(reply.body).await;
            }
        });
        // Boxed: the request's future is several kilobytes, and tokio moves a task's future
        // (and, when it ends, its stage) by value; a box makes each of those moves a pointer.
        let mut serve = Box::pin(serve);
        // Most requests finish without waiting for anything: they are served here, on the
        // reading task, without a hand-off to another worker thread and back. One that waits
        // (I/O, a timer, the client, a full output queue) goes on as a task of its own from
        // where it stopped, so a handler that awaits never holds up the reading.
        // A handler's panic is answered inside `serve`; one anywhere else must not end the
        // reading either.
        let first = std::future::poll_fn(|cx| {
            Poll::Ready(std::panic::catch_unwind(AssertUnwindSafe(|| {
                serve.as_mut().poll(cx).is_ready()
            })))
        })
        .await;
        match first {
            Ok(true) => return,
            Ok(false) => {}
            Err(_) => {
                drop(serve);
                let error = internal_error!(request_id = %id, "serving a request panicked");
                if lock(&self.in_flight).remove(&id).is_some() {
                    self.send(Reply::error(Some(id), error).body).await;
                }
                return;
            }
        }
        let handle = self.tasks.spawn(serve);
        // Unless it was cancelled meanwhile, a cancellation can now abort it.
        if let Some((_, slot)) = lock(&self.in_flight).get_mut(&id) {
            *slot = Some(handle);
        }
    }

    /// `initialize`, through the service like every request, but awaited here rather than
    /// spawned: the next line must find the session it opens.
    async fn initialize(&mut self, request: IncomingRequest, era: Era) {
        let outbound = Outbound::Channel(self.out.clone());
        let request = McpRequest::new(
            request,
            era,
            TransportInfo::stdio(),
            outbound,
            CancellationToken::new(),
        );
        let response = self.server.call_service(request).await;
        let (reply, opened) = response.into_parts();
        if let Some(session) = opened {
            self.session = Some(session);
        }
        self.send(reply.body).await;
    }

    fn on_notification(&mut self, notification: IncomingNotification) {
        let Some(params) = crate::transport::cancelled(notification) else {
            return;
        };
        if let Some((token, handle)) = lock(&self.in_flight).remove(&params.request_id) {
            token.cancel();
            if let Some(handle) = handle {
                handle.abort();
            }
            tracing::debug!(request_id = %params.request_id, reason = ?params.reason, "request cancelled by the client");
        }
    }

    async fn send(&self, body: Bytes) {
        let _ = self.out.send(body).await;
    }
}

/// Writes each message followed by a newline, flushing whenever the queue runs dry.
async fn write_lines<W: AsyncWrite + Unpin>(
    writer: W,
    mut rx: mpsc::Receiver<Bytes>,
) -> io::Result<()> {
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER, writer);
    while let Some(message) = rx.recv().await {
        writer.write_all(&message).await?;
        writer.write_all(b"\n").await?;
        if rx.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await?;
    writer.shutdown().await
}
