//! Requests the server sends to the client of a 2025-11-25 session, and the routing of the
//! client's answers back to whoever waits for them.
//!
//! Each request gets an id minted here (`mcp-server-<n>`, a string, so that it never looks like
//! the integers most clients count with). The request goes out on the stream of the client
//! request being served ([`Outbound`]: stdout on stdio, the POST's SSE stream over HTTP), and
//! the caller waits for the answer, at most for a timeout, and no longer than the originating
//! request lives (its cancellation) or the session (closing it ends every wait).
//!
//! A session shared across instances names the instance in each id
//! (`mcp-server-<instance>-<n>`, see [`instance_of_answer`]), so that an answer landing on
//! another instance can be forwarded to the one waiting for it.
//!
//! The transports hand every JSON-RPC response a client sends on the session to
//! [`Outgoing::answer`]; an id nobody waits for (unknown, or answered too late) is logged and
//! dropped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use typemcp_core::{McpError, RequestId};

use crate::outbound::Outbound;

/// The prefix of the ids of server-to-client requests.
const ID_PREFIX: &str = "mcp-server-";

/// The client's answer: its `result`, or its `error`.
type Answer = Result<Value, McpError>;

/// Why a server-to-client request got no result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PushError {
    /// The client answered with a JSON-RPC error.
    Refused(McpError),
    /// No answer within the timeout.
    TimedOut(Duration),
    /// The originating request was cancelled.
    Cancelled,
    /// The session ended while waiting.
    Closed,
    /// There is no stream to send the request on (an HTTP client that accepts only JSON).
    NoStream,
}

impl PushError {
    /// The error the originating request is answered with (`method` is what was pushed).
    pub(crate) fn into_error(self, method: &str) -> McpError {
        match self {
            Self::Refused(error) => McpError::internal(format!(
                "The client answered the server's {method} request with error {}: {}",
                error.code, error.message
            )),
            Self::TimedOut(after) => McpError::internal(format!(
                "The client did not answer the server's {method} request within {} s",
                after.as_secs_f64()
            )),
            Self::Cancelled => McpError::internal("Request cancelled"),
            Self::Closed => McpError::internal(format!(
                "The session ended while waiting for the answer to the server's {method} request"
            )),
            Self::NoStream => McpError::internal(format!(
                "This request needs input from the client ({method}), which can only be asked \
                 on an event stream: send Accept: text/event-stream"
            )),
        }
    }
}

/// A server-to-client request on the wire.
#[derive(Serialize)]
struct OutgoingRequest<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a Value,
}

/// A response from the client, read without interpretation.
#[derive(Deserialize)]
struct IncomingResponse {
    id: RequestId,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<McpError>,
}

/// The table of one session's server-to-client requests awaiting an answer.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    /// The instance named in the ids, when the session is shared.
    instance: std::sync::OnceLock<String>,
    next: AtomicU64,
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Answer>>>,
}

impl Outgoing {
    fn lock(&self) -> MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Answer>>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh id (also used for URL elicitations' `elicitationId`).
    pub(crate) fn mint(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        match self.instance.get() {
            Some(instance) => format!("{ID_PREFIX}{instance}-{n}"),
            None => format!("{ID_PREFIX}{n}"),
        }
    }

    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    /// Names `instance` in the ids minted from now on (once; `instance` is made of ASCII
    /// letters and digits).
    pub(crate) fn name_instance(&self, instance: &str) {
        let _ = self.instance.set(instance.to_owned());
    }

    /// Sends `method` with `params` on `outbound` and waits for the client's answer.
    pub(crate) async fn request(
        self: &Arc<Self>,
        outbound: &Outbound,
        method: &str,
        params: &Value,
        timeout: Duration,
        cancellation: &CancellationToken,
        closed: &CancellationToken,
    ) -> Result<Value, PushError> {
        let id = RequestId::from(self.mint().as_str());
        let message = serde_json::to_vec(&OutgoingRequest {
            jsonrpc: "2.0",
            id: &id,
            method,
            params,
        })
        .map_err(|err| {
            tracing::error!(%method, error = %err, "could not serialize a server request");
            PushError::Closed
        })?;
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id.clone(), tx);
        // Forgets the entry however the wait ends (answered, timed out, cancelled, dropped).
        let _entry = Entry {
            table: Arc::clone(self),
            id: id.clone(),
        };
        if !outbound.send(Bytes::from(message)).await {
            return Err(PushError::NoStream);
        }
        tokio::select! {
            () = cancellation.cancelled() => Err(PushError::Cancelled),
            () = closed.cancelled() => Err(PushError::Closed),
            answer = tokio::time::timeout(timeout, rx) => match answer {
                Err(_) => Err(PushError::TimedOut(timeout)),
                Ok(Err(_)) => Err(PushError::Closed),
                Ok(Ok(answer)) => answer.map_err(PushError::Refused),
            },
        }
    }

    /// Routes a response the client sent on the session to the request waiting for it.
    /// Returns whether someone was waiting; anything else is logged and dropped.
    pub(crate) fn answer(&self, message: &[u8]) -> bool {
        let response = match serde_json::from_slice::<IncomingResponse>(message) {
            Ok(response) => response,
            Err(err) => {
                tracing::debug!(error = %err, "dropping a malformed response from the client");
                return false;
            }
        };
        let answer = match (response.result, response.error) {
            (_, Some(error)) => Err(error),
            (Some(result), None) => Ok(result),
            (None, None) => Ok(Value::Null),
        };
        let waiting = self.lock().remove(&response.id);
        match waiting {
            Some(tx) => tx.send(answer).is_ok(),
            None => {
                tracing::debug!(id = %response.id, "dropping a response to no pending server request");
                false
            }
        }
    }

    /// Ends every wait (the session closed).
    pub(crate) fn close(&self) {
        self.lock().clear();
    }
}

#[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
/// The instance named in the id of a client's answer (raw JSON-RPC) to a request of a
/// shared session: `None` for ids this server did not mint so, or a message that is not an
/// answer.
pub(crate) fn instance_of_answer(message: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Id {
        id: RequestId,
    }
    let Id { id } = serde_json::from_slice(message).ok()?;
    let RequestId::String(id) = id else {
        return None;
    };
    let (instance, n) = id.strip_prefix(ID_PREFIX)?.split_once('-')?;
    let well_formed = !instance.is_empty()
        && instance.bytes().all(|b| b.is_ascii_alphanumeric())
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit());
    well_formed.then(|| instance.to_owned())
}

/// Removes a pending request from its table when the wait ends.
struct Entry {
    table: Arc<Outgoing>,
    id: RequestId,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.table.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    #[tokio::test]
    async fn answers_reach_the_waiting_request_and_strays_are_dropped() {
        let table = Arc::new(Outgoing::default());
        let (tx, mut rx) = mpsc::channel(4);
        let outbound = Outbound::Channel(tx);
        let never = CancellationToken::new();
        let waiting = {
            let table = Arc::clone(&table);
            tokio::spawn(async move {
                table
                    .request(
                        &outbound,
                        "ping",
                        &Value::Object(Default::default()),
                        Duration::from_secs(5),
                        &never.clone(),
                        &never,
                    )
                    .await
            })
        };
        let sent = rx.recv().await.unwrap_or_default();
        let sent: Value = serde_json::from_slice(&sent).unwrap_or_default();
        assert_eq!(sent["method"], "ping");
        assert_eq!(sent["id"], "mcp-server-0");
        assert!(!table.answer(br#"{"jsonrpc":"2.0","id":"mcp-server-9","result":{}}"#));
        assert!(!table.answer(b"not json"));
        assert!(table.answer(br#"{"jsonrpc":"2.0","id":"mcp-server-0","result":{"ok":1}}"#));
        let answer = waiting.await.ok();
        assert_eq!(answer, Some(Ok(serde_json::json!({"ok": 1}))));
        assert!(table.lock().is_empty());
    }

    #[tokio::test]
    async fn a_wait_ends_on_timeout_and_on_close() {
        let table = Arc::new(Outgoing::default());
        let (tx, _rx) = mpsc::channel(4);
        let outbound = Outbound::Channel(tx);
        let (cancel, closed) = (CancellationToken::new(), CancellationToken::new());
        let params = Value::Null;
        let timed_out = table
            .request(
                &outbound,
                "ping",
                &params,
                Duration::from_millis(10),
                &cancel,
                &closed,
            )
            .await;
        assert_eq!(
            timed_out,
            Err(PushError::TimedOut(Duration::from_millis(10)))
        );
        closed.cancel();
        let ended = table
            .request(
                &outbound,
                "ping",
                &params,
                Duration::from_secs(5),
                &cancel,
                &closed,
            )
            .await;
        assert_eq!(ended, Err(PushError::Closed));
        assert!(table.lock().is_empty());
        let refused = table
            .request(
                &Outbound::Discard,
                "ping",
                &params,
                Duration::from_secs(5),
                &cancel,
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(refused, Err(PushError::NoStream));
    }
}
