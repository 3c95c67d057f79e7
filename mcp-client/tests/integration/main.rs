//! The integration tests of `typemcp-client`, in one binary: the client against servers in
//! this process (`in_process`), over Streamable HTTP on loopback (`over_http`), and against a
//! server that behaves as another SDK's does (`session_stream`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod in_process;
mod over_http;
mod session_stream;
