//! How the client reaches a server: newline-delimited JSON-RPC on a byte stream (a child's
//! stdio, an in-memory duplex: [`lines`]) or Streamable HTTP ([`http`]). Both send the same
//! [`Outgoing`] requests, match responses to them, and hand the server's own requests (a
//! 2025-11-25 session's pushed questions, `ping`) to one callback. What the server sends is
//! bounded: one message is at most [`MAX_MESSAGE_BYTES`], and what the open listens hold
//! until they are read has a byte budget ([`listeners`]).

pub(crate) mod http;
pub(crate) mod lines;
pub(crate) mod listeners;

pub(crate) use listeners::{Listeners, MAX_LISTENS};

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::oneshot;
use typemcp_core::McpError;

use crate::error::ClientError;
use crate::notification::Notification;

/// The most bytes of one message the server may send (16 MiB).
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How many of the server's requests are answered at once; one beyond is refused.
pub(crate) const MAX_SERVER_REQUESTS: usize = 16;

/// A boxed future.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Answers one request of the server's (`method`, `params`): the result, or the error sent back.
pub(crate) type ServerRequests =
    Arc<dyn Fn(String, Value) -> BoxFuture<'static, Result<Value, McpError>> + Send + Sync>;

/// Takes one notification of the server's.
pub(crate) type ServerNotifications = Arc<dyn Fn(Notification) + Send + Sync>;

/// Where what the server sends on its own goes: its requests, and its notifications (to the
/// listen whose `subscriptionId` they carry, else to the user's handler, else logged).
#[derive(Clone)]
pub(crate) struct Inbound {
    pub(crate) requests: ServerRequests,
    pub(crate) notifications: Option<ServerNotifications>,
    pub(crate) listeners: Listeners,
}

impl std::fmt::Debug for Inbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbound")
            .field("notifications", &self.notifications.is_some())
            .finish_non_exhaustive()
    }
}

impl Inbound {
    /// Hands a notification, `bytes` long on the wire, to whoever takes them.
    pub(crate) fn notified(&self, method: String, params: Value, bytes: usize) {
        tracing::debug!(%method, "a notification from the server");
        let subscription = params
            .get("_meta")
            .and_then(|meta| meta.get(SUBSCRIPTION_ID))
            .and_then(Value::as_u64);
        let notification = Notification { method, params };
        let notification = match subscription {
            Some(id) => match self.listeners.deliver(id, notification, bytes) {
                Ok(()) => return,
                Err(notification) => notification,
            },
            None => notification,
        };
        if let Some(take) = &self.notifications {
            take(notification);
        }
    }
}

/// One request of the client's.
#[derive(Debug)]
pub(crate) struct Outgoing<'a> {
    /// The JSON-RPC id, unique on the connection.
    pub(crate) id: u64,
    /// The method.
    pub(crate) method: &'a str,
    /// Its params.
    pub(crate) params: Value,
    /// Headers an HTTP request carries besides the standard ones (`Mcp-Param-*`); other
    /// transports ignore them.
    pub(crate) headers: Vec<(String, String)>,
}

/// The `_meta` key naming the listen a notification belongs to.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The connection of one client.
#[derive(Debug)]
pub(crate) enum Transport {
    /// Newline-delimited JSON-RPC on a byte stream.
    Lines(lines::Connection),
    /// Streamable HTTP, and the session's own event stream once it is open.
    Http(
        http::HttpConnection,
        std::sync::Mutex<Option<http::AbortOnDrop>>,
    ),
}

impl Transport {
    /// Sends `request` and waits for its response.
    pub(crate) async fn request(&self, request: Outgoing<'_>) -> Result<Value, ClientError> {
        match self {
            Self::Lines(lines) => {
                lines
                    .request(request.id, request.method, request.params)
                    .await
            }
            Self::Http(http, _) => http.request(request).await,
        }
    }

    /// Sends `request` and lets it run on its own: its answer comes on the returned channel;
    /// dropping the returned guard stops waiting for it (over HTTP, it closes its stream).
    pub(crate) async fn start(
        &self,
        request: Outgoing<'static>,
    ) -> Result<
        (
            oneshot::Receiver<Result<Value, ClientError>>,
            http::AbortOnDrop,
        ),
        ClientError,
    > {
        let (done, answer) = oneshot::channel();
        let task = match self {
            Self::Lines(lines) => {
                let (raw, place) = lines
                    .send_request(request.id, request.method, request.params)
                    .await?;
                tokio::spawn(async move {
                    // Aborted (the caller gave up) or answered, the place is freed.
                    let _place = place;
                    let outcome = match raw.await {
                        Ok(Ok(result)) => Ok(result),
                        Ok(Err(error)) => Err(ClientError::Server(error)),
                        Err(_) => Err(ClientError::Closed),
                    };
                    let _ = done.send(outcome);
                })
            }
            Self::Http(http, _) => {
                let http = http.clone();
                tokio::spawn(async move {
                    let _ = done.send(http.request(request).await);
                })
            }
        };
        Ok((answer, http::AbortOnDrop::new(task.abort_handle())))
    }

    /// Sends the notification `method` with `params`.
    pub(crate) async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        match self {
            Self::Lines(lines) => lines.notify(method, params).await,
            Self::Http(http, _) => http.notify(method, params).await,
        }
    }

    /// A handle that sends a notification later, from anywhere (a cancellation sent when a
    /// request is dropped).
    pub(crate) fn notifier(&self) -> Notifier {
        match self {
            Self::Lines(lines) => Notifier::Lines(lines.sender()),
            Self::Http(http, _) => Notifier::Http(http.clone()),
        }
    }

    /// Records the revision spoken from now on (the `MCP-Protocol-Version` of HTTP requests;
    /// `None` before a session is negotiated).
    pub(crate) fn speak(&self, version: Option<&str>) {
        if let Self::Http(http, _) = self {
            http.speak(version);
        }
    }

    /// Whether requests go over HTTP (and so carry the standard and parameter headers).
    pub(crate) fn is_http(&self) -> bool {
        matches!(self, Self::Http(..))
    }

    /// Whether a request is cancelled by closing its stream (2026-07-28 over HTTP) rather
    /// than by `notifications/cancelled`.
    pub(crate) fn cancels_by_closing(&self) -> bool {
        matches!(self, Self::Http(http, _) if http.is_modern())
    }

    /// Opens the session's own event stream, over HTTP, for the server's requests that belong
    /// to no request of the client's, waiting up to `wait` for the server to answer the `GET`.
    pub(crate) async fn listen(&self, wait: std::time::Duration) {
        if let Self::Http(http, listening) = self {
            let handle = http.listen(wait).await;
            *listening
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(handle);
        }
    }

    /// The `Mcp-Session-Id` of an HTTP session, if the server handed one out.
    pub(crate) fn session_id(&self) -> Option<String> {
        match self {
            Self::Lines(_) => None,
            Self::Http(http, _) => http.session(),
        }
    }

    /// Ends the connection: over HTTP, a session is deleted on the server.
    pub(crate) async fn close(&self) -> Result<(), ClientError> {
        match self {
            Self::Lines(_) => Ok(()),
            Self::Http(http, listening) => {
                drop(
                    listening
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .take(),
                );
                http.close().await
            }
        }
    }
}

/// A message of the server's, by kind.
pub(super) enum Incoming {
    Response {
        /// The id, when it is one of this client's (a number).
        id: Option<u64>,
        outcome: Result<Value, McpError>,
    },
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
        /// Its length on the wire.
        bytes: usize,
    },
}

/// What `message`, `bytes` long on the wire, is.
pub(super) fn classify(mut message: Map<String, Value>, bytes: usize) -> Incoming {
    let method = message.remove("method").and_then(|m| match m {
        Value::String(method) => Some(method),
        _ => None,
    });
    let id = message.remove("id");
    match (method, id) {
        (Some(method), Some(id)) => Incoming::Request {
            id,
            method,
            params: message.remove("params").unwrap_or(Value::Null),
        },
        (Some(method), None) => Incoming::Notification {
            method,
            params: message.remove("params").unwrap_or(Value::Null),
            bytes,
        },
        (None, id) => {
            let outcome = match (message.remove("result"), message.remove("error")) {
                (Some(result), None) => Ok(result),
                (_, Some(error)) => Err(serde_json::from_value(error).unwrap_or_else(|_| {
                    McpError::internal("the server answered with a malformed error")
                })),
                (None, None) => Err(McpError::internal(
                    "the server answered with neither a result nor an error",
                )),
            };
            Incoming::Response {
                id: id.as_ref().and_then(Value::as_u64),
                outcome,
            }
        }
    }
}

/// Sends one notification on a task of its own.
#[derive(Debug)]
pub(crate) enum Notifier {
    Lines(tokio::sync::mpsc::Sender<String>),
    Http(http::HttpConnection),
}

impl Notifier {
    /// Sends the request `method` with `params` without waiting for its answer (which is
    /// dropped): a `tasks/cancel` for a task nobody follows any more. Its id is drawn above
    /// the ids of the client's own requests.
    pub(crate) fn request_later(self, method: &'static str, params: Value) {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1 << 52);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let sent = match self {
                Self::Lines(out) => {
                    let message = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                    out.send(message.to_string())
                        .await
                        .map_err(|_| ClientError::Closed)
                }
                Self::Http(http) => {
                    let request = Outgoing {
                        id,
                        method,
                        params,
                        headers: Vec::new(),
                    };
                    http.request(request).await.map(drop)
                }
            };
            if let Err(error) = sent {
                tracing::debug!(%error, method, "a request sent in passing failed");
            }
        });
    }

    /// Sends `method` with `params` without waiting (a notification that cannot be sent is
    /// dropped: the connection is gone).
    pub(crate) fn notify_later(self, method: &'static str, params: Value) {
        tokio::spawn(async move {
            let sent = match self {
                Self::Lines(out) => {
                    let message =
                        serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
                    out.send(message.to_string())
                        .await
                        .map_err(|_| ClientError::Closed)
                }
                Self::Http(http) => http.notify(method, params).await,
            };
            if let Err(error) = sent {
                tracing::debug!(%error, method, "a notification was not sent");
            }
        });
    }
}
