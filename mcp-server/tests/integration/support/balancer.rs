//! A round-robin HTTP balancer in process, with no affinity: each request goes to the next
//! backend, whatever session it names, as a plain load balancer does (the end-to-end tests
//! put nginx there). Bodies stream both ways, SSE included.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// The balancer's state: the backends and how many requests each got.
struct Backends {
    addrs: Vec<SocketAddr>,
    next: AtomicUsize,
    served: Vec<AtomicUsize>,
    client: Client<HttpConnector, Body>,
}

/// A running balancer.
pub struct Balancer {
    /// Where it listens.
    pub addr: SocketAddr,
    backends: Arc<Backends>,
}

impl Balancer {
    /// Listens on a free loopback port and spreads requests over `addrs` in turn.
    pub async fn start(addrs: Vec<SocketAddr>) -> Self {
        let served = addrs.iter().map(|_| AtomicUsize::new(0)).collect();
        let backends = Arc::new(Backends {
            addrs,
            next: AtomicUsize::new(0),
            served,
            client: Client::builder(TokioExecutor::new()).build_http(),
        });
        let state = Arc::clone(&backends);
        let app = Router::new().fallback(move |request: Request| {
            let backends = Arc::clone(&state);
            async move { forward(&backends, request).await }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, backends }
    }

    /// The URL of the MCP endpoint behind it.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// How many requests each backend got.
    pub fn served(&self) -> Vec<usize> {
        let served = &self.backends.served;
        served.iter().map(|n| n.load(Ordering::Relaxed)).collect()
    }
}

async fn forward(backends: &Backends, request: Request) -> Response {
    let turn = backends.next.fetch_add(1, Ordering::Relaxed) % backends.addrs.len();
    backends.served[turn].fetch_add(1, Ordering::Relaxed);
    let (mut parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = format!("http://{}{path}", backends.addrs[turn])
        .parse()
        .unwrap();
    match backends
        .client
        .request(Request::from_parts(parts, body))
        .await
    {
        Ok(response) => response.map(Body::new),
        Err(_) => http::StatusCode::BAD_GATEWAY.into_response(),
    }
}
