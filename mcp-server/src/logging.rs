//! Logging out of the box (feature `logging`, on by default): one call installs a `tracing`
//! subscriber that writes to **stderr**, so that it never mixes with the protocol a stdio
//! server speaks on stdout.
//!
//! ```no_run
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     typemcp_server::logging::init();
//!     let server = typemcp_server::Server::builder().build().expect("a valid server");
//!     server.serve_stdio().await
//! }
//! ```
//!
//! The filter comes from `RUST_LOG` (the `tracing-subscriber` syntax: `debug`,
//! `typemcp_server=debug,my_server=trace`, …); without it, or for the parts of it that do not
//! parse, the level is `info`. What the levels show:
//!
//! - `info`: what the server serves on (the HTTP address), shutdowns, and warnings about
//!   its setup, such as a request-state key drawn for this process only;
//! - `debug`: one line per request served, in the request's span (target
//!   `typemcp_server::request`, fields named with the OpenTelemetry conventions for MCP:
//!   method, protocol version, request id, tool or prompt, transport, error code; then the
//!   outcome and duration; never arguments, results, states or tokens), and requests refused
//!   before a handler ran, with the reason;
//! - `trace`: what the dependencies (hyper, redis) say.
//!
//! Already using a subscriber of your own? Keep it, with its writer on stderr
//! (`tracing_subscriber::fmt().with_writer(std::io::stderr)`): the default writer of
//! `tracing_subscriber::fmt` is stdout, which corrupts a stdio server's channel. On Unix,
//! [`Server::serve_stdio`](crate::Server::serve_stdio) keeps the protocol safe from such
//! writes anyway: see its documentation.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::util::TryInitError;

/// Installs a subscriber logging to stderr, filtered by `RUST_LOG` (default `info`). Does
/// nothing if a global subscriber is already installed.
///
/// ```
/// typemcp_server::logging::init();
/// tracing::info!("this line goes to stderr");
/// ```
pub fn init() {
    // Already installed (by the application or an earlier call): that one stays.
    let _ = try_init();
}

/// Like [`init`], but tells when a global subscriber was already installed.
///
/// ```
/// typemcp_server::logging::init();
/// assert!(typemcp_server::logging::try_init().is_err());
/// ```
pub fn try_init() -> Result<(), TryInitError> {
    use std::io::IsTerminal;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .from_env_lossy();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .finish()
        .try_init()
}
