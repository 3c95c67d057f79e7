//! Protocol revisions this crate knows.

/// Protocol revision identifiers.
///
/// ```
/// use typemcp_core::protocol::ProtocolVersion;
/// assert!(ProtocolVersion::is_supported("2026-07-28"));
/// assert!(!ProtocolVersion::is_supported("v999.0.0"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolVersion;

impl ProtocolVersion {
    /// The stateless revision this SDK implements.
    pub const V2026_07_28: &'static str = "2026-07-28";
    /// The last stateful (`initialize`-based) revision.
    pub const V2025_11_25: &'static str = "2025-11-25";
    /// The newest revision.
    pub const LATEST: &'static str = Self::V2026_07_28;
    /// Revisions a server built with this SDK answers with per-request `_meta`.
    pub const SUPPORTED: &'static [&'static str] = &[Self::V2026_07_28];

    /// Whether `version` is served.
    pub fn is_supported(version: &str) -> bool {
        Self::SUPPORTED.contains(&version)
    }
}
