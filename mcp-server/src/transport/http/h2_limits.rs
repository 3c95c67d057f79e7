//! The connection limits that serving HTTP/2 beside HTTP/1.1 (feature `http2`) needs and
//! hyper does not give: hyper-util's driver reads the first bytes, to tell the versions
//! apart, before any timeout applies, and an HTTP/2 connection has no idle timeout. So a
//! connection must say its version within the head timeout ([`version_within`]), and one
//! with no request in progress (its answer's body included, so an open SSE stream counts)
//! for as long is closed ([`Activity`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use http_body_util::BodyExt;
use tokio::sync::Notify;

/// Whether `stream`'s first bytes say which HTTP version it speaks within `wait`: HTTP/2's
/// preface whole, or bytes that are not a part of it. Serving both versions, hyper reads
/// them before any of its timeouts applies, so a connection that sends nothing (or a part of
/// the preface) would otherwise hold its place for good.
pub(super) async fn version_within(stream: &tokio::net::TcpStream, wait: Duration) -> bool {
    const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let decided = async {
        let mut first = [0u8; 24];
        loop {
            match stream.peek(&mut first).await {
                Ok(0) | Err(_) => return false,
                Ok(n) if n == PREFACE.len() || first[..n] != PREFACE[..n] => return true,
                // A part of the preface, and no more yet: a rare wait, looked at again shortly.
                Ok(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    };
    tokio::time::timeout(wait, decided).await.unwrap_or(false)
}

/// The requests of one connection in progress: each from its head until its answer's body
/// ends (or is dropped).
#[derive(Debug, Default)]
pub(super) struct Activity {
    in_progress: AtomicUsize,
    changed: Notify,
}

/// One request in progress; its end when dropped.
struct InProgress(Arc<Activity>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.in_progress.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

impl Activity {
    /// `router`, counting its requests in the activity returned with it.
    pub(super) fn track(router: Router) -> (Router, Arc<Self>) {
        let activity = Arc::new(Self::default());
        let counted = Arc::clone(&activity);
        let router = router.layer(axum::middleware::from_fn(
            move |request: Request, next: Next| {
                let started = counted.start();
                async move {
                    let response = next.run(request).await;
                    // The request ends with its answer's body: the guard goes with it.
                    response.map(|body| {
                        Body::new(body.map_frame(move |frame| {
                            let _in_progress = &started;
                            frame
                        }))
                    })
                }
            },
        ));
        (router, activity)
    }

    fn start(self: &Arc<Self>) -> InProgress {
        self.in_progress.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_waiters();
        InProgress(Arc::clone(self))
    }

    /// Resolves once no request has been in progress for `wait` on end.
    pub(super) async fn idle_for(&self, wait: Duration) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before the count is read: a change after it is not missed.
            changed.as_mut().enable();
            if self.in_progress.load(Ordering::SeqCst) == 0 {
                tokio::select! {
                    () = tokio::time::sleep(wait) => return,
                    () = &mut changed => {}
                }
            } else {
                changed.await;
            }
        }
    }
}
