//! `server/discover`: what the server supports, without a handshake.

use serde::{Deserialize, Serialize};

use super::{CacheScope, Meta, ResultType, ServerCapabilities};

/// The result of `server/discover`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// Protocol versions served.
    pub supported_versions: Vec<String>,
    /// Capabilities.
    pub capabilities: ServerCapabilities,
    /// How to use this server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub cache_scope: CacheScope,
    /// Metadata (carries `io.modelcontextprotocol/serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
