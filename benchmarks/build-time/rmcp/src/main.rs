//! A one-tool echo server over stdio or Streamable HTTP (`--http PORT`), on rmcp, written the
//! way rmcp's documentation does (a `#[tool_router]` impl, axum serving the HTTP service).

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerInfo};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

/// Arguments of `echo`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// What to echo.
    message: String,
}

#[derive(Clone)]
struct Echo {
    tool_router: Arc<ToolRouter<Self>>,
}

#[tool_router]
impl Echo {
    #[tool(description = "Echo the message back.")]
    async fn echo(&self, Parameters(EchoArgs { message }): Parameters<EchoArgs>) -> String {
        message
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let echo = Echo {
        tool_router: Arc::new(Echo::tool_router()),
    };
    match std::env::args().nth(2) {
        Some(port) => {
            let service = StreamableHttpService::new(
                move || Ok(echo.clone()),
                Arc::new(NeverSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let app = axum::Router::new().nest_service("/mcp", service);
            let listener =
                tokio::net::TcpListener::bind(("127.0.0.1", port.parse::<u16>()?)).await?;
            axum::serve(listener, app).await?;
        }
        None => echo
            .serve(rmcp::transport::stdio())
            .await?
            .waiting()
            .await
            .map(|_| ())?,
    }
    Ok(())
}
