//! `subscriptions/listen` (2026-07-28) as a [`Stream`]: [`Client::listen`] opens one with a
//! filter, waits for the server's acknowledgement, and hands back a [`Subscription`] that
//! yields the notifications tagged with its id until the server ends it (or the connection
//! is lost: [`Subscription::ended`] says which). Dropping it ends
//! the listen: over HTTP its stream closes, over stdio the server is sent
//! `notifications/cancelled`.
//!
//! [`Client::listen`]: crate::Client::listen

use std::pin::Pin;
use std::task::{Context, Poll};

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use typemcp_core::protocol::{SubscriptionFilter, methods};

use crate::client::{Client, Era};
use crate::error::ClientError;
use crate::notification::Notification;
use crate::transport::http::AbortOnDrop;
use crate::transport::listeners::QueueReceiver;
use crate::transport::{Listeners, MAX_LISTENS, Notifier, Outgoing};

/// An open `subscriptions/listen`: a [`Stream`] of the notifications it asked for.
///
/// Until it is read, it holds at most 4 MiB of notifications (as the server sent them), or
/// 1,024 of them, and all of a client's listens together 16 MiB: what the server sends
/// beyond is dropped, with a warning, so a listen nobody reads cannot grow the client.
#[derive(Debug)]
#[must_use = "dropping a Subscription ends the listen"]
pub struct Subscription {
    honoured: SubscriptionFilter,
    notifications: QueueReceiver,
    /// The listen request's answer: the server ended it.
    done: oneshot::Receiver<Result<Value, ClientError>>,
    /// How it ended, once it has.
    ended: Option<Result<(), ClientError>>,
    registration: Registration,
    _request: AbortOnDrop,
}

/// A listen's place among the client's listens: freed when dropped, whatever ends the listen
/// (its `Subscription` dropped, or `Client::listen` given up before it returned), and over
/// stdio, where the end is told, the server sent `notifications/cancelled`.
#[derive(Debug)]
struct Registration {
    id: u64,
    listeners: Listeners,
    /// Set once the request is sent over stdio, and cleared once the server ended it.
    cancel: Option<Notifier>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.listeners.close(self.id);
        if let Some(notifier) = self.cancel.take() {
            let params = json!({"requestId": self.id, "reason": "the client stopped listening"});
            notifier.notify_later("notifications/cancelled", params);
        }
    }
}

impl Subscription {
    /// The part of the filter the server honours (its acknowledgement).
    pub fn honoured(&self) -> &SubscriptionFilter {
        &self.honoured
    }

    /// The next notification; `None` once the listen ended (see [`Subscription::ended`]).
    pub async fn next(&mut self) -> Option<Notification> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// How the listen ended, once its stream has: `Ok` when the server ended it (its answer
    /// to the listen), the error when the server answered with one or the connection to it
    /// was lost ([`ClientError::Closed`]); `None` while it is open.
    pub fn ended(&self) -> Option<Result<(), &ClientError>> {
        self.ended
            .as_ref()
            .map(Result::as_ref)
            .map(|end| end.map(drop))
    }
}

impl Stream for Subscription {
    type Item = Notification;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        let this = self.get_mut();
        if let Poll::Ready(Some(notification)) = this.notifications.poll_recv(cx) {
            return Poll::Ready(Some(notification));
        }
        if this.ended.is_none()
            && let Poll::Ready(answer) = Pin::new(&mut this.done).poll(cx)
        {
            this.ended = Some(match answer {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(error)) => Err(error),
                Err(_) => Err(ClientError::Closed),
            });
            // Nothing to tell a server that ended the listen itself, and nothing more taken
            // for it: what came before the end is given out, then the stream stays ended.
            this.registration.cancel = None;
            this.registration.listeners.close(this.registration.id);
        }
        if this.ended.is_some() {
            // What came before the end is still given out, then the stream ends.
            return Poll::Ready(this.notifications.try_recv());
        }
        Poll::Pending
    }
}

impl Client {
    /// Opens a `subscriptions/listen` (2026-07-28) for what `filter` asks, and waits for the
    /// server's acknowledgement: the [`Subscription`] yields the notifications it carries
    /// until the server ends it, and ends the listen when dropped. A 2025-11-25 session has no
    /// listen: its notifications go to
    /// [`ClientBuilder::on_notification`](crate::ClientBuilder::on_notification).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use typemcp_client::Client;
    /// use typemcp_client::typemcp_core::protocol::SubscriptionFilter;
    /// use typemcp_server::{RequestContext, Server, tool};
    ///
    /// /// Adds a tool, as far as clients can tell.
    /// #[tool]
    /// async fn grow(ctx: RequestContext) -> &'static str {
    ///     ctx.server().notify_tools_list_changed();
    ///     "grown"
    /// }
    ///
    /// let server = Server::builder().tool(grow).build()?;
    /// # let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    /// # let (read, write) = tokio::io::split(server_end);
    /// # tokio::spawn(server.serve_io(read, write));
    /// # let (read, write) = tokio::io::split(client_end);
    /// let client = Client::builder().connect_io(read, write).await?;
    /// let mut filter = SubscriptionFilter::default();
    /// filter.tools_list_changed = Some(true);
    /// let mut changes = client.listen(filter).await?;
    /// client.call_tool("grow", serde_json::json!({})).await?;
    /// let changed = changes.next().await.expect("a notification");
    /// assert_eq!(changed.method, "notifications/tools/list_changed");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let method = methods::SUBSCRIPTIONS_LISTEN;
        if self.era != Era::Modern {
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: "a 2025-11-25 session has no subscriptions/listen".to_owned(),
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let Some(mut notifications) = self.listeners.open(id) else {
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: format!("already {MAX_LISTENS} listens open on this client"),
            });
        };
        let mut registration = Registration {
            id,
            listeners: Arc::clone(&self.listeners),
            cancel: None,
        };
        let mut params = filter_params(&filter);
        params["_meta"] = self.meta();
        let request = Outgoing {
            id,
            method,
            params,
            headers: Vec::new(),
        };
        let (mut done, running) = self.connection.start(request).await?;
        if !self.connection.is_http() {
            registration.cancel = Some(self.connection.notifier());
        }
        let wait = self.probe_timeout;
        let acknowledged = tokio::select! {
            // The acknowledgement first, when it came with the end.
            biased;
            first = notifications.recv() => first,
            () = tokio::time::sleep(wait) => {
                return Err(ClientError::TimedOut { method: method.to_owned(), after: wait });
            }
            ended = &mut done => {
                registration.cancel = None;
                return Err(match ended {
                    Ok(Err(error)) => error,
                    _ => ClientError::Malformed {
                        method: method.to_owned(),
                        reason: "the listen ended before it was acknowledged".to_owned(),
                    },
                });
            }
        };
        let honoured = acknowledged
            .filter(|first| first.method == methods::SUBSCRIPTIONS_ACKNOWLEDGED)
            .and_then(|ack| ack.params.get("notifications").cloned())
            .and_then(|honoured| serde_json::from_value(honoured).ok());
        let Some(honoured) = honoured else {
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: "the first message of the listen is not its acknowledgement".to_owned(),
            });
        };
        Ok(Subscription {
            honoured,
            notifications,
            done,
            ended: None,
            registration,
            _request: running,
        })
    }
}

/// The filter a listen asks for, as sent.
fn filter_params(filter: &SubscriptionFilter) -> Value {
    json!({ "notifications": filter })
}
