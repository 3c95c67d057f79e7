//! Issue 18, attack 2, measured as the operating system sees it, in a test binary of its own
//! (so no other test's memory is counted): at the defaults, 40 tasks each called with 1 MiB
//! of an argument the tool does not declare leave the process's resident memory (VmRSS, from
//! `/proc/self/status`) less than 16 MiB above what it was before them. Before the fix each
//! such task held its whole argument object for its hour of life (1.8 to 2.0 MB each).
//!
//! Linux only (it reads `/proc`); elsewhere it passes without measuring.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{Value, json};
use typemcp_server::{RequestContext, Server, TransportInfo, tool};

/// Holds until cancelled (at most a minute).
#[tool(task)]
async fn hold(note: String, ctx: RequestContext) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(60)) => note,
        () = ctx.cancellation().cancelled() => "released".to_owned(),
    }
}

/// The resident set of this process, in bytes.
fn rss_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

async fn start(server: &Server, message: &str) -> Value {
    let reply = server
        .handle_message(message.as_bytes(), TransportInfo::in_process())
        .await
        .expect("a reply");
    let reply: Value = serde_json::from_slice(&reply).unwrap();
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    reply
}

#[tokio::test]
async fn forty_tasks_with_a_megabyte_of_unread_arguments_grow_rss_by_less_than_16_mib() {
    let server = Server::builder().tool(hold).build().unwrap();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "hold",
        "arguments": {"note": "n", "junk": "j".repeat(1024 * 1024)},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
        },
    }})
    .to_string();
    // One call first, so that what every call allocates once (and the allocator keeps for
    // the next) is in the baseline.
    start(&server, &message).await;
    let Some(before) = rss_bytes() else {
        eprintln!("SKIP: no /proc/self/status");
        return;
    };
    for _ in 0..40 {
        start(&server, &message).await;
    }
    let after = rss_bytes().unwrap();
    let growth = after.saturating_sub(before);
    println!("VmRSS before {before} bytes, after 40 tasks {after} bytes: growth {growth} bytes");
    assert!(growth < 16 * 1024 * 1024, "VmRSS grew by {growth} bytes");
    drop(message);
}
