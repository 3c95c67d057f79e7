//! The integration tests of `typemcp-client`, in one binary: the client against servers in
//! this process (`in_process`) and over Streamable HTTP on loopback (`over_http`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod in_process;
mod over_http;
