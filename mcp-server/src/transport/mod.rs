//! Transports: newline-delimited JSON over stdio, Streamable HTTP, and in-process calls.

pub(crate) mod budget;
#[cfg(feature = "http")]
pub mod http;
mod in_process;
#[cfg(any(feature = "http", feature = "stdio"))]
mod signal;
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) use signal::Signals;
#[cfg(any(feature = "http", feature = "stdio"))]
pub use signal::shutdown_signal;
#[cfg(feature = "stdio")]
mod stdio;

/// How many stdio requests are served at once by default.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;

/// The largest stdio message accepted by default, in bytes (4 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
