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

    /// `version` without a copy when it is one of the revisions above, else copied.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use typemcp_core::protocol::ProtocolVersion;
    /// assert!(matches!(ProtocolVersion::named("2026-07-28"), Cow::Borrowed("2026-07-28")));
    /// assert!(matches!(ProtocolVersion::named("v999"), Cow::Owned(_)));
    /// ```
    pub fn named(version: &str) -> std::borrow::Cow<'static, str> {
        [Self::V2026_07_28, Self::V2025_11_25]
            .into_iter()
            .find(|known| *known == version)
            .map_or_else(
                || std::borrow::Cow::Owned(version.to_owned()),
                std::borrow::Cow::Borrowed,
            )
    }
}
