//! Per-request `_meta`: the reserved keys and the typed view of what every request carries.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ClientCapabilities, Implementation, LoggingLevel};

/// A free-form `_meta` object.
pub type Meta = Map<String, Value>;

/// The reserved `_meta` keys of MCP 2026-07-28.
pub mod meta_keys {
    /// Protocol version of this request (required on every request).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's self-description (optional).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The client's capabilities for this request (required on every request).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Minimum level of log notifications wanted for this request (deprecated feature).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's self-description, on results.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The id of the `subscriptions/listen` request a notification belongs to.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// The progress token a request asks progress notifications for.
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// A progress token: a string or an integer chosen by the client.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

/// The typed `_meta` of a 2026-07-28 request.
///
/// ```
/// use typemcp_core::protocol::RequestMeta;
/// let meta: RequestMeta = serde_json::from_value(serde_json::json!({
///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
///     "progressToken": "p1"
/// })).unwrap();
/// assert_eq!(meta.protocol_version, "2026-07-28");
/// assert!(meta.client_capabilities.supports_elicitation_form());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion` (a known revision is kept without a copy,
    /// see [`ProtocolVersion::named`](super::ProtocolVersion::named); changed in 0.1: it was
    /// a `String`).
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: std::borrow::Cow<'static, str>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`.
    #[serde(
        rename = "io.modelcontextprotocol/clientInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`.
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
}
