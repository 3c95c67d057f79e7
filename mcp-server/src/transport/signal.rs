//! The signals that start a graceful shutdown of [`Server::serve_stdio`] and
//! [`Server::serve_http`]: SIGTERM and SIGINT (Ctrl-C) on Unix, Ctrl-C elsewhere.
//!
//! On Unix both handlers are installed when [`Signals::install`] runs, before the transport
//! serves anything, so a signal that arrives early starts the shutdown rather than killing
//! the process. A second signal stops the server without waiting for the grace period.
//!
//! [`Server::serve_stdio`]: crate::Server::serve_stdio
//! [`Server::serve_http`]: crate::Server::serve_http

/// Handlers for the shutdown signals, installed.
#[derive(Debug)]
pub(crate) struct Signals {
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    /// Installs the handlers. One that cannot be installed is logged and never fires.
    pub(crate) fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let install = |kind: SignalKind, name: &str| match signal(kind) {
                Ok(signal) => Some(signal),
                Err(err) => {
                    tracing::warn!(error = %err, "could not handle {name}: it will not shut the server down gracefully");
                    None
                }
            };
            Self {
                terminate: install(SignalKind::terminate(), "SIGTERM"),
                interrupt: install(SignalKind::interrupt(), "SIGINT"),
            }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Resolves at the first shutdown signal; a second one then stops `server` at once
    /// ([`Server::shutdown`](crate::Server::shutdown)), without waiting for the grace period.
    pub(crate) async fn first(mut self, server: crate::Server) {
        self.received().await;
        tokio::spawn(async move {
            self.received().await;
            tracing::warn!("a second signal: stopping now");
            server.shutdown();
        });
    }

    /// Resolves at the next shutdown signal.
    async fn received(&mut self) {
        #[cfg(unix)]
        {
            async fn next(signal: Option<&mut tokio::signal::unix::Signal>) {
                let received = match signal {
                    Some(signal) => signal.recv().await.is_some(),
                    None => false,
                };
                if !received {
                    // No handler, or its stream ended: this signal never comes.
                    std::future::pending::<()>().await;
                }
            }
            let name = tokio::select! {
                () = next(self.terminate.as_mut()) => "SIGTERM",
                () = next(self.interrupt.as_mut()) => "SIGINT",
            };
            tracing::info!("{name} received: shutting down gracefully");
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                // No signal handling available: serve until the process is killed.
                std::future::pending::<()>().await;
            }
            tracing::info!("Ctrl-C received: shutting down gracefully");
        }
    }
}

/// Resolves at the first SIGTERM or SIGINT (Ctrl-C) on Unix, at Ctrl-C elsewhere: the
/// signal [`Server::serve_http`](crate::Server::serve_http) and
/// [`Server::serve_stdio`](crate::Server::serve_stdio) shut down on, for
/// [`Server::serve_http_on`](crate::Server::serve_http_on). The handlers are installed when
/// this is called, not when the future is first polled.
///
/// Once it has resolved, a second signal ends the process at once, with exit status 130:
/// the grace period is for a deploy's SIGTERM, not for a user pressing Ctrl-C twice. (The
/// built-in shutdown of `serve_http` and `serve_stdio` stops the server instead, and returns.)
///
/// ```no_run
/// # async fn run(server: typemcp_server::Server) -> std::io::Result<()> {
/// use typemcp_server::transport::{http::HttpConfig, shutdown_signal};
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// server.serve_http_on(listener, HttpConfig::default(), shutdown_signal()).await
/// # }
/// ```
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    let mut signals = Signals::install();
    async move {
        signals.received().await;
        // The handlers stay installed for the life of the process (tokio does not give a
        // signal back to its default action), so without this a second signal during the
        // grace period would be swallowed. It ends the process instead, as one would expect.
        tokio::spawn(async move {
            signals.received().await;
            tracing::warn!("a second signal: exiting now, without waiting for the grace period");
            std::process::exit(EXIT_ON_SECOND_SIGNAL);
        });
    }
}

/// The exit status after a second signal during a shutdown through [`shutdown_signal`]: 130,
/// what a shell reports for a process ended by Ctrl-C.
const EXIT_ON_SECOND_SIGNAL: i32 = 130;
