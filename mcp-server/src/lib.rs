//! Runtime for Model Context Protocol 2026-07-28 servers.
//!
//! Write handlers as plain async functions, register them on a [`Server`], and serve it
//! over stdio or Streamable HTTP. The server validates every request as the specification
//! requires (per-request `_meta`, protocol version, mirrored HTTP headers, Host/Origin),
//! derives its capabilities from what is registered, adds `resultType` and caching hints to
//! every result, and streams progress, logs and list changes.
//!
//! ```no_run
//! use mcp_server::{Arguments, Server, ToolRoute};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add {
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     Server::builder()
//!         .name("calculator")
//!         .version("1.0.0")
//!         .tool(ToolRoute::new("add", |Arguments(Add { a, b }): Arguments<Add>| async move { a + b })
//!             .description("Add two numbers."))
//!         .build()
//!         .expect("valid server")
//!         .serve_stdio()
//!         .await
//! }
//! ```
//!
//! Layout: [`context`] (what a handler knows about its request), [`handler`] (extractors and
//! return types), [`registry`] (routes for tools, prompts, resources and templates),
//! `dispatch` (validation and routing), [`server`] (the server and its builder),
//! [`transport`] (stdio and HTTP).

pub mod context;
mod dispatch;
pub mod handler;
pub mod registry;
pub mod server;
pub mod transport;

pub use context::{AuthIdentity, RequestContext, TransportInfo, TransportKind};
pub use handler::{
    Arguments, FromInvocation, Handler, IntoPromptResult, IntoResourceResult, IntoToolResult,
    Invocation, Json, Rejection, State, UriParams,
};
pub use mcp_core;
pub use mcp_core::{ErrorCode, McpError};
pub use registry::{
    CompletionRequest, IntoCompletion, IntoPromptRoute, IntoResourceRoute, IntoToolRoute,
    PromptRoute, ResourceRoute, ResourceTemplateRoute, ToolRoute,
};
pub use server::{BuildError, CachePolicy, Server, ServerBuilder};
pub use tokio_util::sync::CancellationToken;

/// The common imports for writing a server.
pub mod prelude {
    pub use crate::{
        Arguments, Json, McpError, PromptRoute, RequestContext, ResourceRoute,
        ResourceTemplateRoute, Server, State, ToolRoute, UriParams,
    };
    pub use mcp_core::protocol::{
        CallToolResult, ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult,
        ResourceContents, Role,
    };
}
