//! The soak run: minutes of mixed load against this workspace's server in a process of its
//! own, watching that its memory and file descriptors stay flat.
//!
//! `cargo run --release -p mcp-benchmarks --bin soak [SECONDS]` (default 600, or
//! `SOAK_SECS`):
//! 1. starts the `soak_server` bin (the `echo` and three-round `flow` tools of
//!    [`crate::targets::ours`] behind `Server::serve_http_on`, on a free loopback port);
//! 2. runs `SOAK_WORKERS` (default 16) workers, each on its own keep-alive connection,
//!    through the mix of [`ops::Kind::MIX`]: plain calls, multi-round flows, 2025-11-25
//!    sessions and bad input, each operation checked against the one answer it must get
//!    ([`ops`]);
//!    and, at the same time, the same server over stdio (`soak_server --stdio`, another
//!    process) through [`stdio::STDIO_MIX`], one line at a time (`SOAK_STDIO=0` leaves it out);
//! 3. samples each server's `VmRSS`, threads and open descriptors from `/proc` once a second
//!    ([`sample`]), writes them to `soak.csv` and draws `soak.png` ([`plot`]) in
//!    `docs/soak/` (or `SOAK_OUT`);
//! 4. prints a summary and exits non-zero when memory or descriptors grew, or an operation
//!    got an unexpected answer ([`verdict`]).
//!
//! Traffic stays on `127.0.0.1`; the run is bounded in time and stops by itself.

pub mod http;
pub mod load;
pub mod ops;
pub mod plot;
pub mod run;
pub mod sample;
pub mod stdio;
pub mod verdict;

/// The largest request body the soak server accepts (its `HttpConfig::max_body_bytes`); the
/// driver's oversized bodies are larger.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
