//! Serving the endpoint on a TCP listener ([`Server::serve_http_on`](crate::Server::serve_http_on)):
//! hyper's connection driver with the limits a server facing the network needs, and
//! graceful shutdown.
//!
//! - A client has [`HttpConfig::request_head_timeout`] to send each request's head (hyper's
//!   `header_read_timeout`), so a connection that trickles its headers, or sits idle between
//!   requests, is closed rather than held for good; with HTTP/2, it has as long to send the
//!   first bytes that say which version it speaks, and a connection with no request in
//!   progress for as long is closed ([`super::h2_limits`]).
//! - At most [`HttpConfig::max_connections`] connections are served at once; further ones
//!   wait in the listen queue.
//! - Each request carries the connection's peer address (`ConnectInfo<SocketAddr>`), the key
//!   of unauthenticated callers' quotas.
//! - Connections are accepted until `shutdown` resolves, which the transport makes wait for
//!   the requests in flight (the grace period); then the listener closes, every connection
//!   finishes what it writes and closes ([`CLOSE_TIMEOUT`] at most), and the function
//!   returns.
//!
//! HTTP/1.1 only, unless the `http2` feature adds HTTP/2 (cleartext, prior knowledge).

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::HttpConfig;
use super::mount::Mount;

/// How long accepting pauses after an error (such as running out of file descriptors).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How long connections may take to close once the listener is closed.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

/// Serves `mount` on `listener` until `shutdown` resolves (the transport's graceful
/// shutdown, grace period included), then closes the connections.
pub(super) async fn serve(
    listener: TcpListener,
    mount: Mount,
    config: &HttpConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let connections = Arc::new(Semaphore::new(config.max_connections));
    let graceful = GracefulShutdown::new();
    let driver = Driver::new(config.head_timeout);
    tokio::pin!(shutdown);
    loop {
        let place = tokio::select! {
            place = Arc::clone(&connections).acquire_owned() => place,
            () = &mut shutdown => break,
        };
        let Ok(place) = place else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                tracing::warn!(error = %err, "could not accept a connection");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        // Responses are written whole: no need to wait for more to fill a packet.
        let _ = stream.set_nodelay(true);
        // The peer address, for per-caller quotas (`crate::caller::Caller`), as axum's
        // `into_make_service_with_connect_info` would record it.
        driver.spawn(&graceful, TokioIo::new(stream), mount.for_peer(peer), place);
    }
    drop(listener);
    // Requests were served or cancelled during the shutdown; what is left is writing out
    // their last bytes, or streams ending with their sessions.
    if tokio::time::timeout(CLOSE_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::debug!("shutdown: closing the connections that were still open");
    }
    Ok(())
}

/// Builds and runs one connection's HTTP driver.
struct Driver {
    #[cfg(not(feature = "http2"))]
    builder: hyper::server::conn::http1::Builder,
    #[cfg(feature = "http2")]
    builder: hyper_util::server::conn::auto::Builder<hyper_util::rt::TokioExecutor>,
    /// How long a connection has to say which HTTP version it speaks.
    #[cfg(feature = "http2")]
    head_timeout: Duration,
}

type Io = TokioIo<tokio::net::TcpStream>;

impl Driver {
    #[cfg(not(feature = "http2"))]
    fn new(head_timeout: Duration) -> Self {
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(head_timeout);
        Self { builder }
    }

    #[cfg(feature = "http2")]
    fn new(head_timeout: Duration) -> Self {
        let mut builder =
            hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(head_timeout);
        builder.http2().timer(TokioTimer::new());
        Self {
            builder,
            head_timeout,
        }
    }

    /// Serves one connection of `mount` in a task of its own, holding `place` until it
    /// closes.
    fn spawn(
        &self,
        graceful: &GracefulShutdown,
        io: Io,
        mount: Mount,
        place: tokio::sync::OwnedSemaphorePermit,
    ) {
        #[cfg(not(feature = "http2"))]
        let connection = graceful.watch(
            self.builder
                .serve_connection(io, TowerToHyperService::new(mount)),
        );
        #[cfg(feature = "http2")]
        let connection = {
            let (builder, watcher, wait) =
                (self.builder.clone(), graceful.watcher(), self.head_timeout);
            async move {
                if !super::h2_limits::version_within(io.inner(), wait).await {
                    tracing::debug!(
                        "closed a connection that did not say its HTTP version in time"
                    );
                    return Ok(());
                }
                let (router, activity) = super::h2_limits::Activity::track(mount.into_router());
                let service = TowerToHyperService::new(router);
                let serving = watcher.watch(builder.serve_connection(io, service).into_owned());
                tokio::select! {
                    served = serving => served,
                    () = activity.idle_for(wait) => {
                        tracing::debug!("closed a connection idle for the head timeout");
                        Ok(())
                    }
                }
            }
        };
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, "a connection ended with an error");
            }
            drop(place);
        });
    }
}
