//! The client's open `subscriptions/listen` and what they hold: the notifications of each
//! listen wait in its queue until its `Subscription` is read, within a byte budget. A listen
//! holds at most [`LISTEN_SHARE_BYTES`] and [`LISTEN_BACKLOG`] notifications, all of them
//! together at most [`LISTENS_BUDGET_BYTES`]; a notification beyond is dropped, with a
//! warning, so a server cannot grow the client's memory through a listen nobody reads. Bytes
//! are counted as the server sent them (parsed, a notification takes some more). Each queued
//! notification carries its [`Charge`], which gives its bytes back however it leaves the
//! queue: read, drained, refused, or dropped with the queue.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use tokio::sync::mpsc;

use crate::notification::Notification;

/// The most `subscriptions/listen` a client keeps open at once.
pub(crate) const MAX_LISTENS: usize = 64;

/// How many notifications one listen holds until its stream is read.
pub(crate) const LISTEN_BACKLOG: usize = 1024;

/// How many bytes of notifications (as the server sent them) one listen holds (4 MiB).
pub(crate) const LISTEN_SHARE_BYTES: usize = 4 * 1024 * 1024;

/// How many bytes of notifications all of a client's listens hold together (16 MiB).
pub(crate) const LISTENS_BUDGET_BYTES: usize = 16 * 1024 * 1024;

/// The open listens, by the id of their `subscriptions/listen` request.
pub(crate) type Listeners = Arc<ListenTable>;

/// A notification waiting in a queue, and what it holds of the budget.
type Queued = (Notification, Charge);

/// The open listens' queues, and the bytes they hold together.
#[derive(Debug, Default)]
pub(crate) struct ListenTable {
    open: Mutex<HashMap<u64, Queue>>,
    held: Arc<AtomicUsize>,
}

/// The bytes one queued notification holds of its listen's share and of the budget, given
/// back when it is dropped.
#[derive(Debug)]
struct Charge {
    bytes: usize,
    listen: Arc<AtomicUsize>,
    all: Arc<AtomicUsize>,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.listen.fetch_sub(self.bytes, Ordering::SeqCst);
        self.all.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

/// The sending end of one listen's queue.
#[derive(Debug, Clone)]
struct Queue {
    sender: mpsc::Sender<Queued>,
    held: Arc<AtomicUsize>,
}

/// The receiving end of one listen's queue (what it still holds is given back when the
/// notifications in it are dropped with it).
#[derive(Debug)]
pub(crate) struct QueueReceiver {
    receiver: mpsc::Receiver<Queued>,
}

/// Takes `bytes` from `counter` if it stays within `limit`.
fn take(counter: &AtomicUsize, bytes: usize, limit: usize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |held| {
            held.checked_add(bytes).filter(|total| *total <= limit)
        })
        .is_ok()
}

impl ListenTable {
    /// Opens the queue of the listen `id`; `None` when [`MAX_LISTENS`] are open.
    pub(crate) fn open(self: &Arc<Self>, id: u64) -> Option<QueueReceiver> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.len() >= MAX_LISTENS {
            return None;
        }
        let (sender, receiver) = mpsc::channel(LISTEN_BACKLOG);
        let held = Arc::new(AtomicUsize::new(0));
        open.insert(id, Queue { sender, held });
        Some(QueueReceiver { receiver })
    }

    /// Forgets the listen `id`: what the server sends for it later goes elsewhere.
    pub(crate) fn close(&self, id: u64) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.remove(&id);
    }

    /// Queues `notification`, `bytes` long on the wire, for the listen `id`; hands it back
    /// if no such listen is open. Dropped, with a warning, when it would take the listen
    /// beyond its share or backlog, or the listens beyond their budget.
    pub(crate) fn deliver(
        &self,
        id: u64,
        notification: Notification,
        bytes: usize,
    ) -> Result<(), Notification> {
        let queue = {
            let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            open.get(&id).cloned()
        };
        let Some(queue) = queue else {
            return Err(notification);
        };
        if !take(&queue.held, bytes, LISTEN_SHARE_BYTES) {
            tracing::warn!(
                bytes,
                "a listen's stream is not read: a notification dropped"
            );
            return Ok(());
        }
        if !take(&self.held, bytes, LISTENS_BUDGET_BYTES) {
            queue.held.fetch_sub(bytes, Ordering::SeqCst);
            tracing::warn!(
                bytes,
                "the listens' streams are not read: a notification dropped"
            );
            return Ok(());
        }
        let charge = Charge {
            bytes,
            listen: queue.held,
            all: Arc::clone(&self.held),
        };
        // Refused (full, or the listen gone), the notification and its charge are dropped.
        if queue.sender.try_send((notification, charge)).is_err() {
            tracing::warn!("a listen's stream is not read: a notification dropped");
        }
        Ok(())
    }

    /// The bytes all listens hold.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }
}

impl QueueReceiver {
    /// The next notification, once one is queued; `None` once nothing more can come.
    pub(crate) async fn recv(&mut self) -> Option<Notification> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next notification.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Notification>> {
        self.receiver
            .poll_recv(cx)
            .map(|queued| queued.map(|queued| self.taken(queued)))
    }

    /// The next notification already queued, if any.
    pub(crate) fn try_recv(&mut self) -> Option<Notification> {
        let queued = self.receiver.try_recv().ok()?;
        Some(self.taken(queued))
    }

    /// The notification, its charge given back.
    fn taken(&self, (notification, _charge): Queued) -> Notification {
        notification
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1024 * 1024;

    fn notification(n: u64) -> Notification {
        Notification {
            method: "notifications/resources/updated".to_owned(),
            params: serde_json::json!({ "n": n }),
        }
    }

    #[tokio::test]
    async fn a_listen_not_read_holds_its_share_and_no_more() {
        let table = Listeners::default();
        let mut queue = table.open(1).unwrap();
        for n in 0..6 {
            assert!(table.deliver(1, notification(n), MIB).is_ok());
        }
        assert_eq!(
            table.held(),
            4 * MIB,
            "two notifications beyond the share dropped"
        );
        let first = queue.recv().await.unwrap();
        assert_eq!(first.params["n"], 0);
        assert_eq!(table.held(), 3 * MIB);
        // Read, it has room again.
        assert!(table.deliver(1, notification(6), MIB).is_ok());
        let ns: Vec<_> = std::iter::from_fn(|| queue.try_recv())
            .map(|n| n.params["n"].clone())
            .collect();
        assert_eq!(ns, [1, 2, 3, 6]);
        assert_eq!(table.held(), 0);
    }

    #[tokio::test]
    async fn all_listens_together_hold_the_budget_and_a_dropped_one_gives_its_bytes_back() {
        let table = Listeners::default();
        let mut queues: Vec<_> = (0..5).map(|id| table.open(id).unwrap()).collect();
        for id in 0..5 {
            for n in 0..4 {
                assert!(table.deliver(id, notification(n), MIB).is_ok());
            }
        }
        assert_eq!(table.held(), LISTENS_BUDGET_BYTES);
        assert!(
            queues[4].try_recv().is_none(),
            "the fifth listen got nothing"
        );
        queues.remove(0);
        table.close(0);
        assert_eq!(table.held(), LISTENS_BUDGET_BYTES - 4 * MIB);
        assert!(table.deliver(4, notification(9), MIB).is_ok());
        assert_eq!(
            queues[3].try_recv().map(|n| n.params["n"].clone()),
            Some(9.into())
        );
        // A closed listen is no listen: its notifications go elsewhere.
        assert!(table.deliver(0, notification(0), 1).is_err());
    }

    #[test]
    fn no_more_than_the_most_listens_open() {
        let table = Listeners::default();
        let open: Vec<_> = (0..MAX_LISTENS as u64).map(|id| table.open(id)).collect();
        assert!(open.iter().all(Option::is_some));
        assert!(table.open(MAX_LISTENS as u64).is_none());
    }
}
