//! What [`Server::serve_http_on`](crate::Server::serve_http_on) serves on its listener: `/mcp`
//! straight to the endpoint (behind the authentication layer, when one is configured), with
//! no router in between, and every other path (the protected resource metadata, or a 404)
//! through an axum [`Router`]. Nesting the endpoint's router at `/mcp` costs each request a
//! copy of its URI with the prefix stripped, and a route lookup, a clone and a boxed future
//! per router level: about a tenth of the server's work on a small call.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::Response;
use futures_util::future::Either;
use http::Request;
use tower::Service;
use tower::util::{BoxCloneSyncService, Oneshot, ServiceExt};

/// The path the endpoint is served at.
pub(super) const PATH: &str = "/mcp";

/// The endpoint at [`PATH`], everything else through `other`; and, once a connection is
/// accepted, its peer's address, which every request carries (`ConnectInfo<SocketAddr>`), as
/// axum's `into_make_service_with_connect_info` would record it.
#[derive(Clone)]
pub(super) struct Mount {
    endpoint: BoxCloneSyncService<Request<Body>, Response, Infallible>,
    other: Router,
    peer: Option<SocketAddr>,
}

impl Mount {
    /// `endpoint` at [`PATH`] (and `PATH/`), `other` for every other path.
    pub(super) fn new(
        endpoint: BoxCloneSyncService<Request<Body>, Response, Infallible>,
        other: Router,
    ) -> Self {
        Self {
            endpoint,
            other,
            peer: None,
        }
    }

    /// The same, for one connection from `peer`.
    pub(super) fn for_peer(&self, peer: SocketAddr) -> Self {
        Self {
            peer: Some(peer),
            ..self.clone()
        }
    }

    /// All of it as one router (for the HTTP/2 driver, which layers the router).
    #[cfg(feature = "http2")]
    pub(super) fn into_router(self) -> Router {
        Router::new().fallback_service(self)
    }
}

/// The future of a request through the endpoint, or through the other router.
type Served = Either<
    Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>,
    Oneshot<Router, Request<Body>>,
>;

impl Mount {
    fn route(&mut self, mut request: Request<Body>) -> Served {
        if let Some(peer) = self.peer {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        let path = request.uri().path();
        if path == PATH || path.strip_prefix(PATH) == Some("/") {
            Either::Left(self.endpoint.call(request))
        } else {
            Either::Right(self.other.clone().oneshot(request))
        }
    }
}

/// What the connection driver calls (HTTP/1.1).
impl Service<Request<hyper::body::Incoming>> for Mount {
    type Response = Response;
    type Error = Infallible;
    type Future = Served;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The endpoint is always ready, and the router is called through `oneshot`.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<hyper::body::Incoming>) -> Self::Future {
        self.route(request.map(Body::new))
    }
}

/// What a router calls (the HTTP/2 driver's, see [`Mount::into_router`]).
impl Service<Request<Body>> for Mount {
    type Response = Response;
    type Error = Infallible;
    type Future = Served;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        self.route(request)
    }
}
