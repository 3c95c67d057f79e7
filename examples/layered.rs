//! A server wrapped in ordinary tower layers, the same on every transport.
//!
//! Two tools: `echo` (answers its `text`) and `sleep` (waits `ms` milliseconds, then says so).
//! Around the MCP service, from the outside in:
//!
//! 1. an audit layer, written here in a few lines, that writes `audit: <method>` (and
//!    ` tool=<name>` for `tools/call`) to stderr for every request, of either protocol era;
//! 2. `tower::limit::ConcurrencyLimitLayer`: at most 4 requests are served at once, the
//!    others wait for a slot;
//! 3. `tower::timeout::TimeoutLayer`: a request served for longer than 1 second is answered
//!    with the JSON-RPC error `-32603` `Internal error: request timed out` (so
//!    `sleep` with `{"ms": 3000}` times out), and the server keeps serving.
//!
//! ```text
//! cargo run --example layered                  # stdio (for an MCP client to spawn)
//! cargo run --example layered -- --http 3000   # Streamable HTTP on 127.0.0.1:3000/mcp
//! ```

use std::task::{Context, Poll};
use std::time::Duration;

use tower::Service;
use tower::layer::layer_fn;
use tower::limit::ConcurrencyLimitLayer;
use tower::timeout::TimeoutLayer;
use typemcp_server::prelude::*;
use typemcp_server::service::McpRequest;
use typemcp_server::tool;

/// How long a request may take.
const TIMEOUT: Duration = Duration::from_secs(1);
/// How many requests are served at once.
const CONCURRENCY: usize = 4;

/// Answer with the text you were given.
#[tool(read_only)]
async fn echo(
    /// The text to send back.
    text: String,
) -> String {
    text
}

/// Wait, then say how long.
#[tool(read_only)]
async fn sleep(
    /// How long to wait, in milliseconds.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// The audit layer's service: logs the method and tool, then passes the request on.
#[derive(Debug, Clone)]
struct Audit<S>(S);

impl<S: Service<McpRequest>> Service<McpRequest> for Audit<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        match request.tool_name() {
            Some(tool) => eprintln!("audit: {} tool={tool}", request.method()),
            None => eprintln!("audit: {}", request.method()),
        }
        self.0.call(request)
    }
}

fn server() -> Result<Server, typemcp_server::BuildError> {
    Server::builder()
        .name("layered")
        .version("1.0.0")
        .tool(echo)
        .tool(sleep)
        // Each layer wraps those added before it: the audit layer sees a request first.
        .layer(TimeoutLayer::new(TIMEOUT))
        .layer(ConcurrencyLimitLayer::new(CONCURRENCY))
        .layer(layer_fn(Audit))
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr (stdout carries the protocol over stdio); `RUST_LOG=typemcp_server=debug`
    // shows every request served.
    typemcp_server::logging::init();
    let server = server()?;
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(port)) => {
            let port: u16 = port.parse()?;
            eprintln!("Serving MCP on http://127.0.0.1:{port}/mcp (Ctrl-C to stop)");
            server.serve_http(("127.0.0.1", port)).await?;
        }
        (None, _) => server.serve_stdio().await?,
        _ => return Err("usage: layered [--http PORT]".into()),
    }
    Ok(())
}
