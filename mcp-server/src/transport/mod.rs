//! Transports: newline-delimited JSON over stdio, Streamable HTTP, and in-process calls.

pub(crate) mod budget;
#[cfg(feature = "http")]
pub mod http;
mod in_process;
#[cfg(feature = "stdio")]
mod stdio;

/// How many stdio requests are served at once by default.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;

/// The largest stdio message accepted by default, in bytes (4 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
