//! Wire types and pure protocol logic for the Model Context Protocol, revision 2026-07-28.
//!
//! This crate performs no I/O. It holds:
//! - [`jsonrpc`]: the JSON-RPC 2.0 envelope (ids, requests, notifications, responses, errors)
//!   and the parser that classifies malformed input with the right error code;
//! - [`protocol`]: every request, result and notification payload a 2026-07-28 server
//!   receives or sends, following `schema/2026-07-28/schema.ts` of the specification;
//! - [`form`]: elicitation forms from Rust types: the field vocabulary as traits, and typed,
//!   validated answers;
//! - [`state`]: signed (HMAC-SHA256) or sealed (XChaCha20-Poly1305) continuation tokens for
//!   `requestState` (expiry, key ring with ids, binding to the request that minted them);
//! - [`skills`]: the skills extension's shared logic (SKILL.md frontmatter, names, SHA-256
//!   digests, verifying a read against its entry);
//! - [`uri_template`]: matching of RFC 6570 level-1 URI templates used by resource templates.
//!
//! ```
//! use typemcp_core::protocol::{CallToolResult, ContentBlock};
//!
//! let result = CallToolResult::text("Hello");
//! let json = serde_json::to_value(&result).unwrap();
//! assert_eq!(json["resultType"], "complete");
//! assert_eq!(json["content"][0], serde_json::json!({"type": "text", "text": "Hello"}));
//! # let _ = ContentBlock::text("x");
//! ```

pub mod form;
pub mod jsonrpc;
pub mod protocol;
pub mod skills;
pub mod state;
pub use typemcp_uri_template as uri_template;

pub use jsonrpc::{ErrorCode, McpError, RequestId};

/// The `chrono` crate this one was built with (feature `chrono`), for date form fields.
#[cfg(feature = "chrono")]
pub use chrono;
/// The `url` crate this one was built with (feature `url`), for URL form fields.
#[cfg(feature = "url")]
pub use url;
