//! `subscriptions/listen` (2026-07-28) as a [`Stream`]: [`Client::listen`] opens one with a
//! filter, waits for the server's acknowledgement, and hands back a [`Subscription`] that
//! yields the notifications tagged with its id until the server ends it. Dropping it ends
//! the listen: over HTTP its stream closes, over stdio the server is sent
//! `notifications/cancelled`.
//!
//! [`Client::listen`]: crate::Client::listen

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use typemcp_core::protocol::SubscriptionFilter;

use crate::error::ClientError;
use crate::notification::Notification;
use crate::transport::http::AbortOnDrop;
use crate::transport::{Listeners, Notifier};

/// An open `subscriptions/listen`: a [`Stream`] of the notifications it asked for.
#[derive(Debug)]
pub struct Subscription {
    pub(crate) id: u64,
    pub(crate) honoured: SubscriptionFilter,
    pub(crate) notifications: mpsc::Receiver<Notification>,
    /// The listen request's answer: the server ended it.
    pub(crate) done: oneshot::Receiver<Result<Value, ClientError>>,
    pub(crate) ended: bool,
    pub(crate) listeners: Listeners,
    /// Over stdio, where the end is told with `notifications/cancelled`.
    pub(crate) cancel: Option<Notifier>,
    pub(crate) _request: AbortOnDrop,
}

impl Subscription {
    /// The part of the filter the server honours (its acknowledgement).
    pub fn honoured(&self) -> &SubscriptionFilter {
        &self.honoured
    }

    /// The next notification; `None` once the server ended the listen.
    pub async fn next(&mut self) -> Option<Notification> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for Subscription {
    type Item = Notification;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        let this = self.get_mut();
        if let Poll::Ready(Some(notification)) = this.notifications.poll_recv(cx) {
            return Poll::Ready(Some(notification));
        }
        if !this.ended && Pin::new(&mut this.done).poll(cx).is_ready() {
            this.ended = true;
        }
        if this.ended {
            // What came before the end is still given out, then the stream ends.
            return Poll::Ready(this.notifications.try_recv().ok());
        }
        Poll::Pending
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.listeners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.id);
        if let (false, Some(notifier)) = (self.ended, self.cancel.take()) {
            let params = json!({"requestId": self.id, "reason": "the client stopped listening"});
            notifier.notify_later("notifications/cancelled", params);
        }
    }
}

/// The filter a listen asks for, as sent.
pub(crate) fn filter_params(filter: &SubscriptionFilter) -> Value {
    json!({ "notifications": filter })
}
