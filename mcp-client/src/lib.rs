//! A typed client of Model Context Protocol servers: connect to any server (a child process
//! over stdio, a Streamable HTTP endpoint, or any byte stream, such as your own server's
//! `serve_io` in the same process), list and call what it offers, and answer the questions it
//! asks on the way with one [`Answers`] implementation, whichever era the server speaks.
//!
//! - **Transports**: [`ClientBuilder::spawn`] (stdio), [`ClientBuilder::connect_http`]
//!   (`http://` endpoints: JSON or event-stream answers, `Mcp-Session-Id` and a new session
//!   when the server ends one, the standard and `Mcp-Param-*` headers, streams resumed with
//!   `Last-Event-ID`), [`ClientBuilder::connect_io`].
//!   The official conformance suite's client scenarios (outside OAuth and skills) pass with a
//!   client built on it (`examples/conformance_client.rs` of the repository).
//! - **Every server method**: the lists (all pages), `call_tool`, `get_prompt`,
//!   `read_resource`, `complete`, `ping`, [`Client::listen`] (a [`Subscription`] stream);
//!   progress and log messages to [`ClientBuilder::on_notification`]; a per-request timeout
//!   and cancellation ([`ClientBuilder::request_timeout`], or dropping the call); calls that
//!   become tasks followed to their end ([`ClientBuilder::tasks`]).
//! - **Both eras, chosen when the connection opens**: `server/discover` first (2026-07-28,
//!   each request carrying `_meta`), `initialize` when the server does not answer it (a
//!   2025-11-25 session); or forced either way ([`EraChoice`]).
//! - **Multi-round calls run themselves**: a `tools/call`, `prompts/get` or `resources/read`
//!   answered `input_required` is retried with the newest answers and the echoed
//!   `requestState`, untouched, up to a round limit; a 2025-11-25 server's pushed questions go
//!   to the same [`Answers`].
//! - **Typed answers**: [`Reply::accept`] answers a form with a value of the
//!   [`ElicitForm`](typemcp_core::form::ElicitForm) type the server derived it from, checked
//!   against the form the server sent before it goes out; [`Scripted`] answers a test's
//!   questions by key and round.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use typemcp_client::{Client, Reply, Scripted, ToolResultExt};
//! use typemcp_server::state::{Continuation, Round, Step};
//! use typemcp_server::{ElicitForm, Server, tool};
//!
//! /// Confirm the deploy.
//! #[derive(ElicitForm, serde::Serialize)]
//! struct Confirm {
//!     ok: bool,
//! }
//!
//! #[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
//! enum Flow {
//!     #[awaits(confirm: Confirm)]
//!     Confirming,
//! }
//!
//! /// Deploys once confirmed.
//! #[tool]
//! async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
//!     use typemcp_server::state::Reply::Accepted;
//!     match round.resume() {
//!         None => round.ask(FlowAsking::Confirming { confirm: "Deploy?".into() }),
//!         Some(FlowAnswered::Confirming { confirm: Accepted(Confirm { ok: true }) }) => {
//!             Step::done("Deployed.")
//!         }
//!         Some(FlowAnswered::Confirming { .. }) => Step::done("Not deployed."),
//!     }
//! }
//!
//! let server = Server::builder().tool(deploy).build()?;
//! let (client_end, server_end) = tokio::io::duplex(64 * 1024);
//! let (read, write) = tokio::io::split(server_end);
//! tokio::spawn(server.serve_io(read, write));
//! let (read, write) = tokio::io::split(client_end);
//! let client = Client::builder()
//!     .answers(Scripted::new().reply("confirm", Reply::accept(&Confirm { ok: true })))
//!     .connect_io(read, write)
//!     .await?;
//! let result = client.call_tool("deploy", serde_json::json!({})).await?;
//! assert_eq!(result.text(), "Deployed.");
//! # Ok(())
//! # }
//! ```

//! Guides: [Testing your server](guide::testing).

mod answers;
mod builder;
mod client;
mod error;
mod listen;
mod notification;
mod results;
mod transport;
mod wires;

pub use answers::{Answers, Asked, NoAnswers, Question, Reply, Scripted};
pub use builder::ClientBuilder;
pub use client::{Client, Era, EraChoice, LoadedSkill, MODERN, SESSION, ServerDescription};
pub use error::ClientError;
pub use listen::Subscription;
pub use notification::Notification;
pub use results::ToolResultExt;
pub use typemcp_core;
pub use wires::{BoxRead, BoxWrite, Run, Wires};

/// Guides.
pub mod guide {
    #[doc = include_str!("docs/testing.md")]
    pub mod testing {}
}
