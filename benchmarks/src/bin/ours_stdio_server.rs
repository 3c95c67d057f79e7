//! This workspace's SDK (`typemcp-server`) serving the `echo` tool over stdio, for the load harness.
//!
//! Speaks newline-delimited JSON on stdin/stdout until stdin closes (see
//! `mcp_benchmarks::targets::ours`).

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    mcp_benchmarks::targets::ours::serve_stdio().await
}
