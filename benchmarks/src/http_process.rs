//! The HTTP servers of the comparison table as processes of their own (`bare_http_server`,
//! `ours_http_server`, `rmcp_http_server`): each serves one [`Target`] on `127.0.0.1:<port>`,
//! the port given as the only argument, until its stdin closes (or it is killed), so that
//! its CPU time and memory are its own ([`crate::proc_stats`]).
//!
//! The runtime is tokio's multi-thread one with its default worker count, which is the number
//! of cores the process may run on: one when the table pins it with `taskset -c 0`.

use std::io::Read as _;

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

use crate::targets::Target;

/// Serves `target` over HTTP on the port named by the first command-line argument, until
/// stdin reaches its end.
pub fn serve(target: &dyn Target) -> anyhow::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .context("usage: <server> <port>")?
        .parse()
        .context("the port must be a number")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot build the runtime")?;
    let shutdown = CancellationToken::new();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
        target.spawn_http(listener, shutdown.clone())
    })?;
    // The harness holds our stdin; when it goes away, so do we.
    let mut sink = [0_u8; 64];
    while std::io::stdin().read(&mut sink).is_ok_and(|n| n > 0) {}
    shutdown.cancel();
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(())
}
