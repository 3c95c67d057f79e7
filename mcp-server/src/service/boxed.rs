//! [`BoxMcpService`]: the MCP service with the user's layers around it, behind one type, and
//! the answer to a layer's error or panic.

use std::convert::Infallible;
use std::future::{Future, poll_fn};
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
    inner: BoxCloneSyncService<McpRequest, McpResponse, BoxError>,
}

debug_fields!(BoxMcpService);

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
            inner: BoxCloneSyncService::new(service.map_err(Into::into)),
        }
    }

    /// Serves one request through the layers: a clone of the stack, made ready, then
    /// called; an error or a panic on the way is the request's `-32603`.
    pub(crate) fn serve(&self, request: McpRequest) -> BoxFuture {
        let mut service = self.inner.clone();
        let id = request.id().clone();
        Box::pin(async move {
            let run = async {
                poll_fn(|cx| service.poll_ready(cx)).await?;
                service.call(request).await
            };
            match AssertUnwindSafe(run).catch_unwind().await {
                Ok(Ok(response)) => response,
                Ok(Err(error)) => layer_error(id, &error),
                Err(_) => {
                    let error = internal_error!(request_id = %id, "a service layer panicked");
                    McpResponse::error(id, error)
                }
            }
        })
    }
}

impl Service<McpRequest> for BoxMcpService {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<McpResponse, Infallible>> + Send>>;

    /// Always ready: the stack's own readiness is awaited for each request, in
    /// the call, so that a layer's failure is that request's answer.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        Box::pin(self.serve(request).map(Ok))
    }
}

/// A layer's error, answered as `-32603` with its cause in the message.
fn layer_error(id: RequestId, error: &BoxError) -> McpResponse {
    tracing::warn!(request_id = %id, %error, "a service layer failed the request");
    McpResponse::error(
        id,
        typemcp_core::McpError::internal(format!("Internal error: {error}")),
    )
}
