//! stdio ceiling that reads each line into a `serde_json::Value`, for the table: answers
//! each JSON-RPC line with an id echo.
//!
//! Reads newline-delimited JSON on stdin and writes one reply line per request on stdout
//! until stdin closes (see `mcp_benchmarks::targets::echo_stdio`, [`Parse::Value`]).
//!
//! [`Parse::Value`]: mcp_benchmarks::targets::echo_stdio::Parse::Value

use std::io::BufWriter;

use mcp_benchmarks::targets::echo_stdio::{Parse, echo_loop_with};

fn main() -> anyhow::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    echo_loop_with(Parse::Value, stdin, stdout)?;
    Ok(())
}
