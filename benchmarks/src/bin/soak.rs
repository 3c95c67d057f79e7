//! The soak run: mixed load against `soak_server` in its own process, sampling its RSS and
//! open file descriptors once a second (see `mcp_benchmarks::soak`).
//!
//! `cargo run --release -p mcp-benchmarks --bin soak [SECONDS]`: 600 s by default (or
//! `SOAK_SECS`), 16 workers (`SOAK_WORKERS`); writes `docs/soak/soak.csv` and
//! `docs/soak/soak.png` (or into `SOAK_OUT`) and exits non-zero when memory or descriptors
//! grew after the warm-up, or an operation got an unexpected answer.

use std::process::ExitCode;

use mcp_benchmarks::soak::run::{Settings, run};

fn main() -> anyhow::Result<ExitCode> {
    let settings = Settings::from_env()?;
    Ok(if run(&settings)? {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
