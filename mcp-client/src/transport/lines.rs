//! One JSON-RPC connection over newline-delimited messages (a child's stdio, an in-memory
//! duplex, any byte stream): the client's requests matched to their responses by id, and the
//! server's own requests (a 2025-11-25 session's pushed questions, `ping`) answered by a
//! callback. What the server sends is bounded: a line longer than the connection's limit
//! ends the connection, and every request still waiting fails.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::codec::{FramedRead, FramedWrite, LinesCodec};
use typemcp_core::McpError;

use super::{Inbound, Incoming, MAX_MESSAGE_BYTES, MAX_SERVER_REQUESTS, classify};
use crate::error::ClientError;

/// How many outgoing messages may wait for the writer.
const OUT_BACKLOG: usize = 64;

type Waiting = HashMap<u64, oneshot::Sender<Result<Value, McpError>>>;

/// The client's end of one connection.
pub(crate) struct Connection {
    out: mpsc::Sender<String>,
    waiting: Arc<Mutex<Waiting>>,
    /// Set once the server's side of the stream ended.
    ended: Arc<AtomicBool>,
    tasks: [JoinHandle<()>; 2],
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("waiting", &lock(&self.waiting).len())
            .finish_non_exhaustive()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Removes a request's place among those waiting when dropped.
#[derive(Debug)]
pub(crate) struct Forget {
    waiting: Arc<Mutex<Waiting>>,
    id: u64,
}

impl Drop for Forget {
    fn drop(&mut self) {
        lock(&self.waiting).remove(&self.id);
    }
}

fn lock(waiting: &Mutex<Waiting>) -> MutexGuard<'_, Waiting> {
    waiting.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Connection {
    /// Serves the connection of `reader` and `writer` until either ends; the server's
    /// requests and notifications go to `inbound`.
    pub(crate) fn open<R, W>(reader: R, writer: W, inbound: Inbound) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, mut outgoing) = mpsc::channel::<String>(OUT_BACKLOG);
        let writing = tokio::spawn(async move {
            let mut lines = FramedWrite::new(writer, LinesCodec::new());
            while let Some(line) = outgoing.recv().await {
                if lines.send(line).await.is_err() {
                    break;
                }
            }
        });
        let waiting = Arc::new(Mutex::new(Waiting::new()));
        let ended = Arc::new(AtomicBool::new(false));
        let reading = tokio::spawn(read(
            FramedRead::new(reader, LinesCodec::new_with_max_length(MAX_MESSAGE_BYTES)),
            (Arc::clone(&waiting), Arc::clone(&ended)),
            out.clone(),
            inbound,
        ));
        Self {
            out,
            waiting,
            ended,
            tasks: [writing, reading],
        }
    }

    /// Sends `method` with `params` and waits for its response.
    pub(crate) async fn request(
        &self,
        id: u64,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientError> {
        let (rx, _place) = self.send_request(id, method, params).await?;
        match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(ClientError::Server(error)),
            Err(_) => Err(ClientError::Closed),
        }
    }

    /// Sends `method` with `params` and returns where its response will come, and the
    /// request's place among those waiting: freed when the guard is dropped, whether the
    /// response came or the caller gave up. On a connection the server already ended, the
    /// request fails at once.
    pub(crate) async fn send_request(
        &self,
        id: u64,
        method: &str,
        params: Value,
    ) -> Result<(oneshot::Receiver<Result<Value, McpError>>, Forget), ClientError> {
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id, tx);
        let place = Forget {
            waiting: Arc::clone(&self.waiting),
            id,
        };
        // The reader marks the end before it fails every waiting request: a request placed
        // after that sees the mark.
        if self.ended.load(Ordering::SeqCst) {
            return Err(ClientError::Closed);
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if self.out.send(message.to_string()).await.is_err() {
            return Err(ClientError::Closed);
        }
        Ok((rx, place))
    }

    /// The sender of outgoing messages, for a notification sent from elsewhere.
    pub(crate) fn sender(&self) -> mpsc::Sender<String> {
        self.out.clone()
    }

    /// Sends the notification `method` with `params`.
    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.out
            .send(message.to_string())
            .await
            .map_err(|_| ClientError::Closed)
    }
}

/// Reads the server's messages until the stream ends (or sends a line over the limit):
/// responses go to their waiting requests, requests to `inbound` (each answered on a task of
/// its own), and notifications too.
async fn read<R: AsyncRead + Unpin>(
    mut lines: FramedRead<R, LinesCodec>,
    (waiting, ended): (Arc<Mutex<Waiting>>, Arc<AtomicBool>),
    out: mpsc::Sender<String>,
    inbound: Inbound,
) {
    let answering = Arc::new(Semaphore::new(MAX_SERVER_REQUESTS));
    while let Some(line) = lines.next().await {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                tracing::warn!(%error, "the server sent what is not a line of at most 16 MiB");
                break;
            }
        };
        let Ok(Value::Object(message)) = serde_json::from_str::<Value>(&line) else {
            tracing::warn!("the server sent a line that is not a JSON object");
            continue;
        };
        match classify(message, line.len()) {
            Incoming::Response { id, outcome } => {
                if let Some(waiter) = id.and_then(|id| lock(&waiting).remove(&id)) {
                    let _ = waiter.send(outcome);
                }
            }
            Incoming::Request { id, method, params } => {
                let Ok(place) = Arc::clone(&answering).try_acquire_owned() else {
                    let error = McpError::internal("too many requests of the server's at once");
                    let reply = json!({"jsonrpc": "2.0", "id": id, "error": error});
                    let _ = out.send(reply.to_string()).await;
                    continue;
                };
                let (answer, out) = (Arc::clone(&inbound.requests), out.clone());
                tokio::spawn(async move {
                    let _place = place;
                    let reply = match answer(method, params).await {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                    };
                    let _ = out.send(reply.to_string()).await;
                });
            }
            Incoming::Notification {
                method,
                params,
                bytes,
            } => inbound.notified(method, params, bytes),
        }
    }
    // Nothing more will come: every request still waiting fails, and those sent later too.
    ended.store(true, Ordering::SeqCst);
    lock(&waiting).clear();
}
