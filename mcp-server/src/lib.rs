//! Runtime for Model Context Protocol 2026-07-28 servers.
//!
//! Write handlers as plain async functions, register them on a [`Server`], and serve it
//! over stdio or Streamable HTTP. The server validates every request as the specification
//! requires (per-request `_meta`, protocol version, mirrored HTTP headers, Host/Origin),
//! derives its capabilities from what is registered, adds `resultType` and caching hints to
//! every result, and streams progress, logs and list changes.
//!
//! ```no_run
//! use typemcp_server::{tool, Server};
//!
//! /// Add two numbers.
//! #[tool(read_only)]
//! async fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     Server::builder()
//!         .name("calculator")
//!         .version("1.0.0")
//!         .tool(add)
//!         .build()?
//!         .serve_stdio()
//!         .await?;
//!     Ok(())
//! }
//! ```
//!
//! The macros ([`tool`](macro@tool), [`prompt`](macro@prompt), [`resource`](macro@resource))
//! only add metadata: every handler can also be registered by hand with [`ToolRoute`],
//! [`PromptRoute`], [`ResourceRoute`] and [`ResourceTemplateRoute`].
//!
//! Layout, in layers, each using only what is in its own layer or below (`tests/integration/layers.rs`
//! holds the crate to it):
//! 1. channels and budgets: `outbound` (where a request's notifications go), `budget`,
//!    `caller` (who a per-caller share counts);
//! 2. `session` (a 2025-11-25 session), `subscription`, [`tasks`] (long-running tools as
//!    tasks, and where tasks live), [`skills`] (the skills served, from folders and code);
//! 3. what a handler sees: [`context`] (its request), [`handler`] (extractors and return
//!    types), [`registry`] (routes for tools, prompts, resources and templates), [`state`]
//!    (multi-round state), and [`server`] (the server's shared state);
//! 4. `dispatch`: the protocol era decided once (`dispatch::era`), the method table, the
//!    multi-round guard;
//! 5. [`service`]: the transport-agnostic `tower::Service` every transport hands its
//!    requests to, and which your tower layers wrap ([`ServerBuilder::layer`]);
//! 6. the builder ([`ServerBuilder`]), which puts a server and its layers together;
//! 7. [`transport`]: stdio and Streamable HTTP.

// Lets the macros' absolute `::typemcp_server` paths resolve inside this crate too.
extern crate self as typemcp_server;

#[macro_use]
mod macros;
#[macro_use]
mod error;

mod budget;
mod build_error;
mod builder;
mod caller;
pub mod context;
mod dispatch;
pub mod handler;
mod header_names;
#[cfg(feature = "logging")]
pub mod logging;
mod macro_support;
mod outbound;
#[cfg(feature = "redis")]
mod redis_link;
pub mod registry;
pub mod server;
pub mod service;
#[cfg(sessions)]
mod session;
pub mod skills;
pub mod state;
mod subscription;
pub mod tasks;
pub mod transport;

pub use builder::ServerBuilder;
pub use context::{AuthIdentity, RequestContext, TransportInfo, TransportKind};
pub use handler::{
    Arguments, FromInvocation, Handler, IntoPromptResult, IntoResourceResult, IntoToolResult,
    Invocation, Json, Rejection, Requirements, State, ToolArgument, ToolInput, UriParams,
};
pub use registry::{
    CompletionRequest, IntoCompletion, IntoPromptRoute, IntoResourceRoute, IntoToolRoute,
    PromptRoute, ResourceRoute, ResourceTemplateRoute, ToolRoute,
};
pub use server::{BuildError, CachePolicy, Server};
pub use skills::SkillBundle;
pub use tokio_util::sync::CancellationToken;
pub use typemcp_core;
/// The `chrono` crate of date form fields (feature `chrono`): no separate dependency needed.
#[cfg(feature = "chrono")]
pub use typemcp_core::chrono;
pub use typemcp_core::form::{Answer, ElicitForm, Email, FormChoice, FormError};
/// The `url` crate of URL form fields (feature `url`): no separate dependency needed.
#[cfg(feature = "url")]
pub use typemcp_core::url;
pub use typemcp_core::{ErrorCode, McpError};
#[doc = include_str!("docs/elicit_form.md")]
pub use typemcp_macros::ElicitForm;
#[doc = include_str!("docs/form_choice.md")]
pub use typemcp_macros::FormChoice;
#[doc = include_str!("docs/tool_input.md")]
pub use typemcp_macros::ToolInput;
/// The attribute spelling of [`ElicitForm`](derive@ElicitForm): `#[elicit_form]` on a struct
/// is `#[derive(ElicitForm)]`.
pub use typemcp_macros::elicit_form;
#[doc = include_str!("docs/prompt.md")]
pub use typemcp_macros::prompt;
#[doc = include_str!("docs/resource.md")]
pub use typemcp_macros::resource;
#[doc = include_str!("docs/tool.md")]
pub use typemcp_macros::tool;

/// Runtime support for generated code. Its name carries the version shared with
/// `typemcp-macros`, so a macro crate is never paired with a runtime of another version.
#[doc(hidden)]
pub mod __private_v0_1 {
    pub use crate::macro_support::*;
}

/// The common imports for writing a server.
pub mod prelude {
    pub use crate::{
        Arguments, Json, McpError, PromptRoute, RequestContext, ResourceRoute,
        ResourceTemplateRoute, Server, State, ToolRoute, UriParams,
    };
    pub use typemcp_core::protocol::{
        CallToolResult, ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult,
        ResourceContents, Role,
    };
}
