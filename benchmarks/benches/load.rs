//! `tools/call` load harness: bare hyper vs rmcp vs ours, HTTP and stdio, plus the
//! three-round flow (rmcp vs ours over HTTP, and ours with single use over Redis against
//! ours without it), the 2025-11-25 session mode (ours and rmcp's stateful
//! configuration), and tasks (ours: create, poll until completed), in one run.
//!
//! Run with `cargo bench -p mcp-benchmarks --bench load`. Tune with the `LOAD_*`
//! environment variables documented in `mcp_benchmarks::config` (for a quick
//! smoke run: `LOAD_WARMUP_MS=200 LOAD_MEASURE_MS=500`; only the flow:
//! `LOAD_HTTP_CONCURRENCY=1,64 LOAD_STDIO_IN_FLIGHT=none LOAD_SESSION_CONCURRENCY=none
//! LOAD_TASK_CONCURRENCY=none LOAD_TARGETS=rmcp,ours`; single use over Redis:
//! `LOAD_TARGETS=ours,ours-redis`, which needs `redis-server` and skips with a message
//! without it; the 2026 wire against the session mode at 64 connections:
//! `LOAD_TARGETS=bare-hyper,ours,rmcp,rmcp-session LOAD_HTTP_CONCURRENCY=64
//! LOAD_SESSION_CONCURRENCY=64 LOAD_FLOW_CONCURRENCY=none LOAD_TASK_CONCURRENCY=none
//! LOAD_STDIO_IN_FLIGHT=none`; tasks
//! against plain calls: `LOAD_TARGETS=ours LOAD_HTTP_CONCURRENCY=1,64
//! LOAD_TASK_CONCURRENCY=1,64 LOAD_FLOW_CONCURRENCY=none LOAD_SESSION_CONCURRENCY=none
//! LOAD_STDIO_IN_FLIGHT=none`).
//! Progress goes to stderr, the final table to stdout.

use mcp_benchmarks::bins::BinLocator;
use mcp_benchmarks::config::LoadConfig;
use mcp_benchmarks::{report, runner, targets};

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench` (and maybe a filter); this harness takes no arguments.
    let config = LoadConfig::from_env()?;
    // Cargo sets CARGO_BIN_EXE_<name> when compiling benches and builds the bins first.
    let mut bins = BinLocator::default()
        .with_known("echo_stdio", option_env!("CARGO_BIN_EXE_echo_stdio"))
        .with_known(
            "rmcp_stdio_server",
            option_env!("CARGO_BIN_EXE_rmcp_stdio_server"),
        );
    let all = targets::all();
    let report = runner::run(&config, &all, &mut bins)?;
    println!("{}", report::render(&report));
    Ok(())
}
