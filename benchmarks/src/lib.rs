//! Load harness comparing MCP server implementations on one `tools/call` request.
//!
//! The harness measures requests per second and latency of the same
//! protocol-revision `2026-07-28` stateless `tools/call` request (see [`protocol`])
//! against several [`targets`]:
//!
//! * a bare hyper 1.x endpoint that parses the JSON-RPC body and echoes the id
//!   (the HTTP ceiling for any framework),
//! * a newline-delimited JSON echo child process (the stdio ceiling),
//! * rmcp 3.1.4, the official Rust SDK, over Streamable HTTP and stdio,
//! * this workspace's `mcp-server`, over Streamable HTTP and stdio.
//!
//! Servers run on their own multi-thread tokio runtime, the load generators on
//! another ([`runner`]); traffic stays on `127.0.0.1` and every cell is bounded
//! in time and in request count ([`config`]). The bench target
//! `benches/load.rs` drives everything and prints a table ([`report`]).

pub mod bins;
pub mod client;
pub mod config;
pub mod protocol;
pub mod report;
pub mod runner;
pub mod stats;
pub mod stdio_client;
pub mod targets;
