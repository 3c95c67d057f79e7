//! This workspace's SDK (`typemcp-server`) serving the `echo` tool over HTTP in a process of its own, for the comparison
//! table: `ours_http_server <port>` listens on `127.0.0.1:<port>` until stdin closes (see
//! `mcp_benchmarks::http_process`).

fn main() -> anyhow::Result<()> {
    mcp_benchmarks::http_process::serve(&mcp_benchmarks::targets::ours::Ours)
}
