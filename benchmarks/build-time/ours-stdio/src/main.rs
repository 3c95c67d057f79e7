//! A one-tool echo server over stdio, on this SDK without the HTTP transport.

use typemcp_server::{Server, tool};

/// Echo the message back.
#[tool]
async fn echo(
    /// What to echo.
    message: String,
) -> String {
    message
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Server::builder()
        .name("echo")
        .version("1.0.0")
        .tool(echo)
        .build()?
        .serve_stdio()
        .await?;
    Ok(())
}
