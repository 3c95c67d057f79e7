//! The handle through which a handler closes the connection of its SSE stream (2025-11-25
//! polling, SEP-1699); the HTTP transport gives one to the requests of sessions whose stream
//! can be resumed, and nothing else has one.

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;

type Close = dyn Fn() -> BoxFuture<'static, bool> + Send + Sync;

/// Closes the connection currently carrying a request's SSE stream; says whether it did.
#[derive(Clone)]
pub(crate) struct SseControl(Arc<Close>);

impl SseControl {
    #[cfg(feature = "http")] // Made by the HTTP transport.
    pub(crate) fn new(
        close: impl Fn() -> BoxFuture<'static, bool> + Send + Sync + 'static,
    ) -> Self {
        Self(Arc::new(close))
    }

    pub(crate) async fn close(&self) -> bool {
        (self.0)().await
    }
}

impl fmt::Debug for SseControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SseControl")
    }
}
