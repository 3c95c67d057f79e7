//! The comparison table of `docs/benchmarks/README.md`: ours, rmcp 3.1.4, the TypeScript and
//! Python SDKs (pinned, from npm and PyPI, skipped with a message when they cannot be
//! installed) and the ceilings, each server a child process pinned to its own core, with
//! throughput, p50/p99, server CPU per call, peak RSS and cold start, every ratio against a
//! ceiling run made just before it (see `mcp_benchmarks::table`).
//!
//! Run with `cargo bench -p mcp-benchmarks --bench table` (about 10 minutes with the
//! defaults; a quick look: `TABLE_RUNS=1 TABLE_MEASURE_MS=1000 TABLE_COLD_STARTS=3`). The
//! table goes to stdout and, with the bar chart `ratios.png` and every run in `runs.csv`, to
//! `TABLE_OUT` (default `target/bench-table/`; `TABLE_OUT=docs/benchmarks` refreshes the
//! docs); progress goes to stderr.

use mcp_benchmarks::bins::BinLocator;
use mcp_benchmarks::table::{self, TableConfig};

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench` (and maybe a filter); this harness takes no arguments.
    let config = TableConfig::from_env()?;
    // Cargo sets CARGO_BIN_EXE_<name> when compiling benches and builds the bins first.
    let mut bins = BinLocator::default()
        .with_known("echo_stdio", option_env!("CARGO_BIN_EXE_echo_stdio"))
        .with_known(
            "echo_stdio_value",
            option_env!("CARGO_BIN_EXE_echo_stdio_value"),
        )
        .with_known(
            "bare_http_server",
            option_env!("CARGO_BIN_EXE_bare_http_server"),
        )
        .with_known(
            "ours_http_server",
            option_env!("CARGO_BIN_EXE_ours_http_server"),
        )
        .with_known(
            "ours_stdio_server",
            option_env!("CARGO_BIN_EXE_ours_stdio_server"),
        )
        .with_known(
            "rmcp_http_server",
            option_env!("CARGO_BIN_EXE_rmcp_http_server"),
        )
        .with_known(
            "rmcp_stdio_server",
            option_env!("CARGO_BIN_EXE_rmcp_stdio_server"),
        );
    let report = table::run(&config, &mut bins)?;
    let text = table::render(&report);
    println!("{text}");
    let (markdown, png) = table::write_outputs(&report, &text)?;
    eprintln!("wrote {} and {}", markdown.display(), png.display());
    Ok(())
}
