//! The phases of a graceful shutdown, shared by the transports.
//!
//! 1. **Draining** ([`Lifecycle::drain`]): the transport refuses new requests (HTTP: 503,
//!    stdio: a JSON-RPC error) but still takes what in-flight calls need: the client's
//!    answers to pushed requests, `notifications/cancelled`. Open `subscriptions/listen`
//!    streams end gracefully at once.
//! 2. **Grace**: in-flight calls have [`ServerBuilder::shutdown_grace`] to finish
//!    ([`Lifecycle::drained`] resolves as soon as none is left).
//! 3. **Stopped** (`Server::shutdown`): the service answers each request still in flight
//!    with an error and drops its handler (the request's own cancellation token is not
//!    cancelled), running tasks fail, sessions end, and the transport returns.
//!
//! [`ServerBuilder::shutdown_grace`]: crate::ServerBuilder::shutdown_grace

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(any(feature = "stdio", feature = "http"))]
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// The shutdown state of a server, and the count of requests it is serving.
#[derive(Debug)]
pub(crate) struct Lifecycle {
    /// Cancelled when the grace period is over: everything stops.
    stopped: CancellationToken,
    /// Cancelled when draining starts (and when the server stops).
    draining: CancellationToken,
    /// How many requests are being served, by every transport: one atomic add and one
    /// subtract per request.
    serving: AtomicUsize,
    /// Woken when the last request in flight ends while draining.
    idle: Notify,
}

/// One request being served, counted until dropped.
#[derive(Debug)]
pub(crate) struct Serving(Arc<Lifecycle>);

impl Drop for Serving {
    fn drop(&mut self) {
        let was = self.0.serving.fetch_sub(1, Ordering::AcqRel);
        if was == 1 && self.0.draining.is_cancelled() {
            self.0.idle.notify_waiters();
        }
    }
}

impl Lifecycle {
    pub(crate) fn new() -> Self {
        let stopped = CancellationToken::new();
        Self {
            draining: stopped.child_token(),
            stopped,
            serving: AtomicUsize::new(0),
            idle: Notify::new(),
        }
    }

    /// Cancelled when the server stops.
    pub(crate) fn stopped(&self) -> &CancellationToken {
        &self.stopped
    }

    /// Cancelled when draining starts.
    pub(crate) fn draining(&self) -> &CancellationToken {
        &self.draining
    }

    #[cfg(any(feature = "stdio", feature = "http"))] // The transports' shutdown.
    /// Starts draining: new requests are refused, listens end.
    pub(crate) fn drain(&self) {
        self.draining.cancel();
    }

    /// Stops everything.
    pub(crate) fn stop(&self) {
        self.stopped.cancel();
    }

    /// Counts a request as served until the guard is dropped.
    pub(crate) fn serving(self: &Arc<Self>) -> Serving {
        self.serving.fetch_add(1, Ordering::AcqRel);
        Serving(Arc::clone(self))
    }

    #[cfg(any(feature = "stdio", feature = "http"))] // The transports' shutdown.
    /// How many requests are being served.
    pub(crate) fn in_flight(&self) -> usize {
        self.serving.load(Ordering::Acquire)
    }

    #[cfg(any(feature = "stdio", feature = "http"))] // The transports' shutdown.
    /// Resolves once no request is being served (at once if none is). Only while
    /// draining: the last request wakes it only then.
    pub(crate) async fn drained(&self) {
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            // Registered before the count is read: the wake-up of the last request to end
            // cannot fall in between.
            idle.as_mut().enable();
            if self.in_flight() == 0 {
                return;
            }
            idle.await;
        }
    }

    #[cfg(any(feature = "stdio", feature = "http"))] // The transports' shutdown.
    /// Drains (if not yet), waits for the in-flight requests to finish, for `grace` at
    /// most; then stops the server. Returns whether every request finished in time.
    pub(crate) async fn finish(&self, grace: Duration) -> bool {
        self.drain();
        let finished = tokio::time::timeout(grace, self.drained()).await.is_ok();
        if finished {
            tracing::info!("shutdown: every in-flight request finished");
        } else {
            tracing::warn!(
                in_flight = self.in_flight(),
                grace_ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX),
                "shutdown: the grace period is over, cancelling the requests still in flight"
            );
        }
        self.stop();
        finished
    }
}

#[cfg(all(test, any(feature = "stdio", feature = "http")))]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn finish_waits_for_the_requests_in_flight_then_stops() {
        let lifecycle = Arc::new(Lifecycle::new());
        let serving = Arc::clone(&lifecycle);
        let request = tokio::spawn(async move {
            let _guard = serving.serving();
            tokio::time::sleep(Duration::from_secs(2)).await;
        });
        tokio::task::yield_now().await;
        assert_eq!(lifecycle.in_flight(), 1);
        lifecycle.drain();
        assert!(lifecycle.draining().is_cancelled());
        assert!(!lifecycle.stopped().is_cancelled());
        assert!(lifecycle.finish(Duration::from_secs(10)).await);
        assert!(lifecycle.stopped().is_cancelled());
        assert_eq!(lifecycle.in_flight(), 0);
        let _ = request.await;
    }

    #[tokio::test(start_paused = true)]
    async fn finish_gives_up_after_the_grace_period() {
        let lifecycle = Arc::new(Lifecycle::new());
        let _stuck = lifecycle.serving();
        assert!(!lifecycle.finish(Duration::from_secs(1)).await);
        assert!(lifecycle.stopped().is_cancelled());
        assert!(lifecycle.draining().is_cancelled());
    }
}
