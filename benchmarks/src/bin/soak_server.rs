//! The soak run's server: this workspace's SDK serving the `echo` and three-round `flow`
//! tools (`mcp_benchmarks::targets::ours`) over Streamable HTTP at `/mcp`, in a process of
//! its own so that its RSS and file descriptors can be read from `/proc`.
//!
//! Usage: `soak_server [PORT]` (default 0: any free port). It binds `127.0.0.1:PORT`, prints
//! `listening on 127.0.0.1:PORT` on stdout once it accepts connections, and serves through
//! `Server::serve_http_on` (the production path: request head and body time limits, a
//! bound on open connections, the session table) until its stdin closes or Ctrl-C. The
//! body limit is [`mcp_benchmarks::soak::MAX_BODY_BYTES`], so that the driver's oversized
//! bodies are refused without sending megabytes.
//!
//! `soak_server --stdio` serves the same tools over its stdin and stdout instead
//! (`Server::serve_stdio`, lines limited to the same size) until stdin closes.

use std::io::Write as _;

use anyhow::Context as _;
use mcp_benchmarks::soak::MAX_BODY_BYTES;
use tokio::io::AsyncReadExt as _;
use tokio::net::TcpListener;
use typemcp_server::Server;
use typemcp_server::transport::http::HttpConfig;

fn main() -> anyhow::Result<()> {
    let arg = std::env::args().nth(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    if arg.as_deref() == Some("--stdio") {
        return runtime.block_on(serve_stdio());
    }
    let port: u16 = match arg {
        Some(port) => port
            .parse()
            .context("the argument must be a port number or --stdio")?,
        None => 0,
    };
    runtime.block_on(serve(port))
}

/// Serves the same tools over stdio until stdin closes, with lines limited to
/// [`MAX_BODY_BYTES`].
async fn serve_stdio() -> anyhow::Result<()> {
    let builder = Server::builder().max_message_bytes(MAX_BODY_BYTES);
    mcp_benchmarks::targets::ours::echo_server_with(builder)?
        .serve_stdio()
        .await
        .context("serving stdio")
}

async fn serve(port: u16) -> anyhow::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .with_context(|| format!("cannot bind 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    let server = mcp_benchmarks::targets::ours::echo_server()?;
    let config = HttpConfig::default().max_body_bytes(MAX_BODY_BYTES);
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on {addr}")?;
        stdout.flush()?;
    }
    server
        .serve_http_on(listener, config, stopped())
        .await
        .context("serving HTTP")
}

/// Resolves when stdin reaches its end (the driver closed it or died) or on Ctrl-C.
async fn stopped() {
    let stdin_closed = async {
        let mut stdin = tokio::io::stdin();
        let mut buf = [0_u8; 64];
        while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
    };
    tokio::select! {
        () = stdin_closed => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
