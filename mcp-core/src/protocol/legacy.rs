//! The payloads of the 2025-11-25 era (and the earlier revisions it negotiates down to) that
//! 2026-07-28 removed: the `initialize` handshake, `logging/setLevel`, resource subscriptions,
//! and the `Mcp-Session-Id` of a Streamable HTTP session.
//!
//! Field names follow `schema/2025-11-25/schema.ts`. Results of that era carry no
//! `resultType`, `ttlMs` or `cacheScope`.

use serde::{Deserialize, Serialize};

use super::{ClientCapabilities, Implementation, LoggingLevel, Meta, ServerCapabilities};

/// The revisions of the `initialize` era a dual-era server negotiates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyVersion;

impl LegacyVersion {
    /// 2025-11-25, the last revision with `initialize`; offered when the client asks for a
    /// revision the server does not serve.
    pub const PREFERRED: &'static str = "2025-11-25";
    /// Every revision answered as asked, newest first.
    pub const SUPPORTED: &'static [&'static str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

    /// The revision to answer an `initialize` asking for `requested` with: the same one
    /// when it is served, else [`LegacyVersion::PREFERRED`].
    ///
    /// ```
    /// use typemcp_core::protocol::LegacyVersion;
    /// assert_eq!(LegacyVersion::negotiate("2025-06-18"), "2025-06-18");
    /// assert_eq!(LegacyVersion::negotiate("2024-11-05"), "2025-11-25");
    /// ```
    pub fn negotiate(requested: &str) -> &'static str {
        Self::SUPPORTED
            .iter()
            .find(|v| **v == requested)
            .copied()
            .unwrap_or(Self::PREFERRED)
    }

    /// Whether `version` names a revision of the `initialize` era (a `YYYY-MM-DD` date up
    /// to 2025-11-25), served here or not. Such dates sort as text.
    pub fn is_legacy(version: &str) -> bool {
        let is_date = version.len() == 10
            && version.bytes().enumerate().all(|(i, b)| match i {
                4 | 7 => b == b'-',
                _ => b.is_ascii_digit(),
            });
        is_date && version <= Self::PREFERRED
    }
}

/// The params of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The latest revision the client supports.
    pub protocol_version: String,
    /// What the client can do, for the whole session.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server will speak on this session.
    pub protocol_version: String,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// Instructions for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// The params of `logging/setLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetLevelParams {
    /// The lowest level the client wants to receive.
    pub level: LoggingLevel,
}

/// The params of `resources/subscribe` and `resources/unsubscribe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscribeParams {
    /// The resource to (stop) watch(ing).
    pub uri: String,
}

/// Method names of the `initialize` era.
pub mod legacy_methods {
    /// `initialize`.
    pub const INITIALIZE: &str = "initialize";
    /// `notifications/initialized`.
    pub const INITIALIZED: &str = "notifications/initialized";
    /// `ping`.
    pub const PING: &str = "ping";
    /// `logging/setLevel`.
    pub const SET_LEVEL: &str = "logging/setLevel";
    /// `resources/subscribe`.
    pub const SUBSCRIBE: &str = "resources/subscribe";
    /// `resources/unsubscribe`.
    pub const UNSUBSCRIBE: &str = "resources/unsubscribe";
}

/// A fresh Streamable HTTP session id: 32 bytes from the system random source, as 64
/// lowercase hex digits (visible ASCII, as the transport requires). `None` when the system
/// has no randomness to give.
pub fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn initialize_params_read_the_2025_shape() {
        let params: InitializeParams = serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(params.protocol_version, "2025-11-25");
        assert!(params.capabilities.sampling.is_some());
        assert_eq!(params.client_info.name, "c");
    }

    #[test]
    fn versions_negotiate_and_classify() {
        assert_eq!(LegacyVersion::negotiate("2025-03-26"), "2025-03-26");
        assert_eq!(LegacyVersion::negotiate("2026-07-28"), "2025-11-25");
        assert!(LegacyVersion::is_legacy("2024-11-05"));
        assert!(LegacyVersion::is_legacy("2025-11-25"));
        assert!(!LegacyVersion::is_legacy("2026-07-28"));
        assert!(!LegacyVersion::is_legacy("1.0"));
        assert!(!LegacyVersion::is_legacy("v999.0.0"));
    }

    #[test]
    fn session_ids_are_fresh_visible_ascii() {
        let (a, b) = (new_session_id(), new_session_id());
        assert!(
            a.as_ref()
                .is_some_and(|id| id.len() == 64 && id.bytes().all(|c| c.is_ascii_hexdigit()))
        );
        assert_ne!(a, b);
    }
}
