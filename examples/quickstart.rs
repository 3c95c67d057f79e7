//! The README quick start: a small server with a tool, a prompt and a resource template.
//!
//! ```text
//! cargo run --example quickstart                  # stdio (for an MCP client to spawn)
//! cargo run --example quickstart -- --http 3000   # Streamable HTTP on 127.0.0.1:3000/mcp
//! ```

use typemcp_server::prelude::*;
use typemcp_server::{prompt, resource, tool};

/// Add two numbers.
#[tool(read_only)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Ask for a code review.
#[prompt]
async fn review(
    /// The code to review.
    code: String,
) -> String {
    format!("Review this code for bugs:\n\n{code}")
}

/// A note by number.
#[resource(template = "notes://{id}", mime_type = "text/plain")]
async fn note(id: u32) -> String {
    format!("Note number {id}.")
}

fn server() -> Result<Server, typemcp_server::BuildError> {
    Server::builder()
        .name("quickstart")
        .version("1.0.0")
        .tool(add)
        .prompt(review)
        .resource(note)
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
            eprintln!("Serving MCP on http://127.0.0.1:{port}/mcp (Ctrl-C to stop). Try:");
            eprintln!(
                "  curl -s http://127.0.0.1:{port}/mcp -H 'Content-Type: application/json' \\\n    \
                 -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \\\n    \
                 -H 'Mcp-Method: tools/call' -H 'Mcp-Name: add' \\\n    \
                 -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":2,\"b\":3}},\
                 \"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}'"
            );
            server.serve_http(("127.0.0.1", port)).await?;
        }
        (None, _) => server.serve_stdio().await?,
        _ => return Err("usage: quickstart [--http PORT]".into()),
    }
    Ok(())
}
