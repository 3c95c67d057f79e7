//! stdio ceiling for the load harness: answers each JSON-RPC line with an id echo.
//!
//! Reads newline-delimited JSON on stdin and writes one reply line per request
//! on stdout until stdin closes (see `mcp_benchmarks::targets::echo_stdio`).

use std::io::BufWriter;

fn main() -> anyhow::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    mcp_benchmarks::targets::echo_stdio::echo_loop(stdin, stdout)?;
    Ok(())
}
