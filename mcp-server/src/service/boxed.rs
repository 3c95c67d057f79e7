//! [`BoxMcpService`]: the MCP service with the user's layers around it, behind one type, and
//! the answer to a layer's error or panic.

use std::convert::Infallible;
use std::fmt;
use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_util::FutureExt;
use tower::Service;
use typemcp_core::{McpError, RequestId};

use super::{BoxError, McpRequest, McpResponse, McpService};

type BoxFuture = Pin<Box<dyn Future<Output = McpResponse> + Send>>;

/// A cloneable, type-erased MCP service whose errors have been answered: the service that
/// [`ServerBuilder::layer`](crate::ServerBuilder::layer) wraps each new layer around.
///
/// ```
/// use typemcp_server::service::{BoxMcpService, McpService};
///
/// let service = BoxMcpService::new(McpService);
/// let again = service.clone();
/// # let _ = again;
/// ```
#[derive(Clone)]
pub struct BoxMcpService {
    inner: Arc<dyn Erased>,
}

impl fmt::Debug for BoxMcpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoxMcpService").finish_non_exhaustive()
    }
}

impl BoxMcpService {
    /// Erases `service`. Its errors (and panics) are answered as JSON-RPC `-32603`.
    pub fn new<S>(service: S) -> Self
    where
        S: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        Self {
            inner: Arc::new(Holder(Mutex::new(service))),
        }
    }

    /// Serves one request through the layers.
    pub(crate) fn serve(&self, request: McpRequest) -> impl Future<Output = McpResponse> + use<> {
        self.inner.call(request)
    }
}

impl Default for BoxMcpService {
    fn default() -> Self {
        Self::new(McpService)
    }
}

impl Service<McpRequest> for BoxMcpService {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let reply = self.inner.call(request);
        Box::pin(async move { Ok(reply.await) })
    }
}

trait Erased: Send + Sync {
    fn call(&self, request: McpRequest) -> BoxFuture;
}

/// The stack, cloned for each request (tower services are cheap to clone and share what must
/// be shared, such as a concurrency limit's semaphore).
struct Holder<S>(Mutex<S>);

impl<S> Erased for Holder<S>
where
    S: Service<McpRequest, Response = McpResponse> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn call(&self, request: McpRequest) -> BoxFuture {
        let mut service = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let id = request.id().clone();
        let run = async move {
            poll_fn(|cx| service.poll_ready(cx)).await?;
            service.call(request).await
        };
        Box::pin(async move {
            match AssertUnwindSafe(run).catch_unwind().await {
                Ok(Ok(response)) => response,
                Ok(Err(error)) => layer_error(id, &error.into()),
                Err(_) => {
                    tracing::error!(request_id = %id, "a service layer panicked");
                    McpResponse::error(id, McpError::internal("Internal error"))
                }
            }
        })
    }
}

/// A layer's error, answered as `-32603` with its cause in the message.
fn layer_error(id: RequestId, error: &BoxError) -> McpResponse {
    tracing::warn!(request_id = %id, %error, "a service layer failed the request");
    McpResponse::error(id, McpError::internal(format!("Internal error: {error}")))
}
