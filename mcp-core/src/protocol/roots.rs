//! Roots (`roots/list`), deprecated by SEP-2577.
//!
//! New servers should take directories through tool arguments or configuration. The types
//! exist so that 2026-07-28 input requests of this kind can be sent and answered.

use serde::{Deserialize, Serialize};

use super::Meta;

/// A directory or file the client exposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The client's answer to `roots/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}
