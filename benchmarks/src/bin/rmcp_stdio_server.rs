//! rmcp 3.1.4 serving the `echo` tool over stdio, for the load harness.
//!
//! Speaks newline-delimited JSON on stdin/stdout until stdin closes (see
//! `mcp_benchmarks::targets::rmcp`).

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    mcp_benchmarks::targets::rmcp::serve_stdio().await
}
