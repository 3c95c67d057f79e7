//! Transports: newline-delimited JSON over stdio, Streamable HTTP, and in-process calls.

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

pub use crate::budget::{DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_MESSAGE_BYTES};
