//! The end-to-end tests of the workspace, in one binary: the examples as processes and in
//! this process, the typed client against them and against peers' servers, the peers'
//! clients (TypeScript, Python, rmcp) against ours, scale-out through Redis, a fresh crate
//! written from the README, and the examples' listing snapshots. Each module was a test binary
//! of its own; its doc comment says what it covers. The official conformance suite
//! (`tests/conformance/`) and graceful shutdown (`tests/shutdown.rs`, its own fixture
//! process) are binaries of their own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
/// The conformance server example, compiled into this binary to be served in-process.
#[allow(dead_code, missing_docs)]
#[path = "../../examples/conformance_server.rs"]
mod fixture;

mod balancer;
mod booking;
mod client_examples;
mod client_interop;
mod client_interop_rmcp;
mod examples;
mod fresh_crate;
mod http;
mod interop_python;
mod interop_python_legacy;
mod interop_rmcp;
mod interop_rmcp_skills;
mod interop_ts;
mod interop_ts_legacy;
mod long_task;
mod scale_out;
mod snapshots;
mod stdio;
