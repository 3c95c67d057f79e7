//! The stdio transport: one JSON-RPC message per line on stdin, responses and
//! notifications on stdout.
//!
//! Requests are handled concurrently. `notifications/cancelled` stops a request and nothing
//! more is written for it. On end of input, open `subscriptions/listen` requests complete,
//! the session (if any) ends, so that requests waiting for the client's answers fail, in-flight
//! requests drain, and the function returns.
//!
//! Both eras are served (see `dispatch::route`): the first `initialize` opens the process's
//! 2025-11-25 session, whose notifications outside any request (list changes, updates of
//! subscribed resources) are written to stdout; requests with modern `_meta` are still
//! served statelessly beside it. On that session the server may send requests of its own
//! (pushed input requests, `ping`) on stdout; the client's responses read from stdin are
//! routed back to them.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::{Bytes, BytesMut};
use mcp_core::jsonrpc::{IncomingMessage, IncomingNotification, IncomingRequest, parse_message};
use mcp_core::protocol::{CancelledParams, methods};
use mcp_core::{McpError, RequestId};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};
use tokio_util::sync::CancellationToken;

use crate::Server;
use crate::context::{Outbound, TransportInfo};
use crate::dispatch::{Reply, Routed, Scope, Session};

type InFlight = Arc<Mutex<HashMap<RequestId, (CancellationToken, Option<AbortHandle>)>>>;

fn lock(
    map: &InFlight,
) -> MutexGuard<'_, HashMap<RequestId, (CancellationToken, Option<AbortHandle>)>> {
    map.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Server {
    /// Serves this server over the process's stdin and stdout until stdin closes.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves newline-delimited JSON-RPC over any reader and writer (a socket, a pipe, an
    /// in-memory duplex in tests) until the reader ends.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out_tx, out_rx) = mpsc::channel::<Bytes>(256);
        let writer_task = tokio::spawn(write_lines(writer, out_rx));
        let connection = Connection {
            server: self.clone(),
            out: out_tx,
            in_flight: Arc::default(),
            listens: CancellationToken::new(),
            tasks: JoinSet::new(),
            session: None,
        };
        let result = connection.run(reader).await;
        match writer_task.await {
            Ok(write_result) => result.and(write_result),
            Err(join) => result.and(Err(io::Error::other(join))),
        }
    }
}

struct Connection {
    server: Server,
    out: mpsc::Sender<Bytes>,
    in_flight: InFlight,
    /// Ends open listens when input ends.
    listens: CancellationToken,
    tasks: JoinSet<()>,
    /// The process's 2025-11-25 session, once `initialize` has been served.
    session: Option<Arc<Session>>,
}

impl Connection {
    async fn run<R: AsyncRead + Unpin>(mut self, reader: R) -> io::Result<()> {
        let max = self.server.config().max_message_bytes;
        let mut lines = Lines::new(reader, max);
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
            // The answer to a request the server sent on the session (see `dispatch::outgoing`).
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
        let routed = match self.server.route(request, scope) {
            Ok(routed @ Routed::Initialize(..)) => return self.initialize(routed).await,
            Ok(routed) => routed,
            Err(reply) => return self.send(reply.body).await,
        };
        let is_listen = matches!(&routed, Routed::Modern(checked)
            if checked.request.method == methods::SUBSCRIPTIONS_LISTEN);
        let token = if is_listen {
            self.listens.child_token()
        } else {
            CancellationToken::new()
        };
        let server = self.server.clone();
        let out = self.out.clone();
        let in_flight = Arc::clone(&self.in_flight);
        let outbound = Outbound::Channel(self.out.clone());
        let task_token = token.clone();
        let task_id = id.clone();
        // Hold the lock while spawning so the task cannot finish before it is registered.
        let mut guard = lock(&self.in_flight);
        let handle = self.tasks.spawn(async move {
            let reply = server
                .call_service(routed, TransportInfo::stdio(), outbound, task_token)
                .await
                .into_reply();
            // A cancelled request was removed from the map: nothing more is written for it.
            let still_wanted = lock(&in_flight).remove(&task_id).is_some();
            if still_wanted {
                let _ = out.send(reply.body).await;
            }
        });
        guard.insert(id, (token, Some(handle)));
    }

    /// `initialize`, through the service like every request, but awaited here rather than
    /// spawned: the next line must find the session it opens.
    async fn initialize(&mut self, routed: Routed) {
        let outbound = Outbound::Channel(self.out.clone());
        let response = self
            .server
            .call_service(
                routed,
                TransportInfo::stdio(),
                outbound,
                CancellationToken::new(),
            )
            .await;
        let (reply, opened) = response.into_parts();
        if let Some(session) = opened {
            self.session = Some(session);
        }
        self.send(reply.body).await;
    }

    fn on_notification(&mut self, notification: IncomingNotification) {
        if notification.method != methods::CANCELLED {
            return;
        }
        let params = serde_json::from_value::<CancelledParams>(serde_json::Value::Object(
            notification.params,
        ));
        let Ok(params) = params else {
            tracing::debug!("ignoring a malformed notifications/cancelled");
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

/// One framed line of input.
enum Line {
    Message(String),
    /// A line over the limit: it was discarded up to its newline, and reading goes on.
    TooLong,
    /// A line that is not UTF-8: discarded, and reading goes on.
    NotUtf8,
    End,
}

/// Newline framing with a length limit that survives bad lines. tokio-util's `LinesCodec`
/// recovers from an over-long line by itself, but `FramedRead` ends the stream at the first
/// decode error, so the codec is driven here directly.
struct Lines<R> {
    reader: R,
    codec: LinesCodec,
    buffer: BytesMut,
    eof: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    fn new(reader: R, max: usize) -> Self {
        Self {
            reader,
            codec: LinesCodec::new_with_max_length(max),
            buffer: BytesMut::with_capacity(8 * 1024),
            eof: false,
        }
    }

    async fn next(&mut self) -> io::Result<Line> {
        loop {
            let decoded = if self.eof {
                self.codec.decode_eof(&mut self.buffer)
            } else {
                self.codec.decode(&mut self.buffer)
            };
            match decoded {
                Ok(Some(line)) => return Ok(Line::Message(line)),
                Err(LinesCodecError::MaxLineLengthExceeded) => return Ok(Line::TooLong),
                Err(LinesCodecError::Io(err)) if err.kind() == io::ErrorKind::InvalidData => {
                    return Ok(Line::NotUtf8);
                }
                Err(LinesCodecError::Io(err)) => return Err(err),
                Ok(None) if self.eof => return Ok(Line::End),
                Ok(None) => {
                    if self.reader.read_buf(&mut self.buffer).await? == 0 {
                        self.eof = true;
                    }
                }
            }
        }
    }
}

/// Writes each message followed by a newline, flushing whenever the queue runs dry.
async fn write_lines<W: AsyncWrite + Unpin>(
    writer: W,
    mut rx: mpsc::Receiver<Bytes>,
) -> io::Result<()> {
    let mut writer = BufWriter::new(writer);
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
