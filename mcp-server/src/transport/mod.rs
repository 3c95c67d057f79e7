//! Transports: newline-delimited JSON over stdio, Streamable HTTP, and in-process calls.

pub mod http;
mod in_process;
mod stdio;

pub use stdio::DEFAULT_MAX_MESSAGE_BYTES;
