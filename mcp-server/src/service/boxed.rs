//! [`BoxMcpService`]: the MCP service with the user's layers around it, behind one type, and
//! the answer to a layer's error or panic.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::FutureExt;
use tower::Service;
use tower::util::{BoxCloneSyncService, ServiceExt};
use typemcp_core::RequestId;

use super::{BoxError, McpRequest, McpResponse};

/// A cloneable, type-erased MCP service whose errors have been answered: the service that
/// [`ServerBuilder::layer`](crate::ServerBuilder::layer) wraps each new layer around.
///
/// It is boxed once, when the server is built, and cloned without a lock for each request
/// (tower services are cheap to clone and share what must be shared, such as a concurrency
/// limit's semaphore).
///
/// ```
/// use typemcp_server::Server;
/// use typemcp_server::service::{BoxMcpService, McpService};
///
/// let server = Server::builder().build().unwrap();
/// let service = BoxMcpService::new(McpService::new(&server));
/// let again = service.clone();
/// # let _ = again;
/// ```
#[derive(Clone)]
pub struct BoxMcpService {
    inner: BoxCloneSyncService<McpRequest, McpResponse, Infallible>,
}

impl fmt::Debug for BoxMcpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoxMcpService").finish_non_exhaustive()
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = McpResponse> + Send>>;

impl BoxMcpService {
    /// Erases `service`. Its errors (and panics) are answered as JSON-RPC `-32603`.
    pub fn new<S>(service: S) -> Self
    where
        S: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        Self {
            inner: BoxCloneSyncService::new(Answered::new(service)),
        }
    }

    /// Serves one request through the layers.
    pub(crate) fn serve(&self, request: McpRequest) -> BoxFuture {
        let service = self.inner.clone();
        Box::pin(async move {
            match service.oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            }
        })
    }
}

impl Service<McpRequest> for BoxMcpService {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        self.inner.call(request)
    }
}

/// A service whose errors and panics are answered as `-32603`, so that the stack never fails.
#[derive(Clone)]
struct Answered<S> {
    inner: S,
    /// Why the inner service could not get ready: the next request is answered with it.
    unready: Option<Unready>,
}

/// Why a layer could not take a request.
#[derive(Clone)]
enum Unready {
    /// It failed (its error names the cause, which the client is told).
    Failed(String),
    /// It panicked.
    Panicked,
}

impl<S> Answered<S> {
    fn new(inner: S) -> Self {
        Self {
            inner,
            unready: None,
        }
    }
}

impl<S> Service<McpRequest> for Answered<S>
where
    S: Service<McpRequest, Response = McpResponse>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = McpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        if self.unready.is_some() {
            return Poll::Ready(Ok(()));
        }
        let inner = &mut self.inner;
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll_ready(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(Ok(()))) => Poll::Ready(Ok(())),
            Ok(Poll::Ready(Err(error))) => {
                self.unready = Some(Unready::Failed(error.into().to_string()));
                Poll::Ready(Ok(()))
            }
            Err(_) => {
                self.unready = Some(Unready::Panicked);
                Poll::Ready(Ok(()))
            }
        }
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        let id = request.id().clone();
        if let Some(unready) = self.unready.take() {
            let response = match unready {
                Unready::Failed(error) => layer_error(id, &error),
                Unready::Panicked => panicked(id),
            };
            return Box::pin(std::future::ready(Ok(response)));
        }
        let inner = &mut self.inner;
        let called = std::panic::catch_unwind(AssertUnwindSafe(|| inner.call(request)));
        Box::pin(async move {
            let answered = match called {
                Ok(call) => AssertUnwindSafe(call).catch_unwind().await,
                Err(panic) => Err(panic),
            };
            Ok(match answered {
                Ok(Ok(response)) => response,
                Ok(Err(error)) => layer_error(id, &Into::<BoxError>::into(error)),
                Err(_) => panicked(id),
            })
        })
    }
}

/// The answer to a request a layer panicked on: `-32603`, the panic logged.
fn panicked(id: RequestId) -> McpResponse {
    McpResponse::error(
        id.clone(),
        internal_error!(request_id = %id, "a service layer panicked"),
    )
}

/// A layer's error, answered as `-32603` with its cause in the message.
fn layer_error(id: RequestId, error: &dyn std::fmt::Display) -> McpResponse {
    tracing::warn!(request_id = %id, %error, "a service layer failed the request");
    McpResponse::error(
        id,
        typemcp_core::McpError::internal(format!("Internal error: {error}")),
    )
}
