//! A one-tool echo server over stdio or Streamable HTTP (`--http PORT`), on this SDK.

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
    let server = Server::builder()
        .name("echo")
        .version("1.0.0")
        .tool(echo)
        .build()?;
    match std::env::args().nth(2) {
        Some(port) => {
            server
                .serve_http(("127.0.0.1", port.parse::<u16>()?))
                .await?
        }
        None => server.serve_stdio().await?,
    }
    Ok(())
}
