//! Where a request's notifications (and, on a 2025-11-25 session, the server's requests to
//! the client) go: the request's own stream (HTTP SSE), the shared stdio channel, or nowhere
//! (when the client cannot receive a stream, and for in-process calls).

use bytes::Bytes;
use serde::Serialize;
use tokio::sync::mpsc;
use typemcp_core::jsonrpc::Notification;

/// The sink for notifications tied to one request.
#[derive(Debug, Clone)]
pub(crate) enum Outbound {
    /// Serialized notifications go to this channel. Made by the stdio and HTTP transports
    /// (and tests); in-process calls have none.
    #[cfg(any(test, feature = "stdio", feature = "http"))]
    Channel(mpsc::Sender<Bytes>),
    /// Notifications are dropped (the client accepts no stream for this request).
    Discard,
}

impl Outbound {
    /// The channel, unless messages are dropped.
    fn channel(&self) -> Option<&mpsc::Sender<Bytes>> {
        match self {
            #[cfg(any(test, feature = "stdio", feature = "http"))]
            Self::Channel(tx) => Some(tx),
            Self::Discard => None,
        }
    }

    /// Sends an already serialized message (a server-to-client request). Returns whether it
    /// was queued; `false` when the client accepts no stream here.
    #[cfg(sessions)]
    pub(crate) async fn send(&self, message: Bytes) -> bool {
        match self.channel() {
            Some(tx) => tx.send(message).await.is_ok(),
            None => false,
        }
    }

    /// Serializes and sends a notification. Returns whether it was queued.
    pub(crate) async fn notify<P: Serialize>(&self, method: &str, params: &P) -> bool {
        let Some(tx) = self.channel() else {
            return false;
        };
        match serde_json::to_vec(&Notification::new(method, params)) {
            Ok(bytes) => tx.send(Bytes::from(bytes)).await.is_ok(),
            Err(err) => {
                tracing::error!(%method, error = %err, "could not serialize a notification");
                false
            }
        }
    }
}
