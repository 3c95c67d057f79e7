//! The HTTP headers MCP defines, as `HeaderName`s made once: a lookup by a `&str` name
//! parses (and, for a mixed-case spelling, lowercases) the name again on every request.

use http::HeaderName;

/// `Mcp-Session-Id`: the 2025-11-25 session a request belongs to.
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// `Last-Event-ID`: where a resumed SSE stream picks up.
#[cfg(feature = "http")]
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// A header the 2026-07-28 wire mirrors from the body, with the spelling messages use.
#[cfg(feature = "http")]
pub(crate) struct Mirrored {
    /// The name, as `HeaderMap` keys it.
    pub(crate) key: HeaderName,
    /// The name as the specification spells it, for messages.
    pub(crate) label: &'static str,
}

/// `MCP-Protocol-Version`.
#[cfg(feature = "http")]
pub(crate) const PROTOCOL_VERSION: Mirrored = Mirrored {
    key: HeaderName::from_static("mcp-protocol-version"),
    label: "MCP-Protocol-Version",
};

/// `Mcp-Method`.
#[cfg(feature = "http")]
pub(crate) const METHOD: Mirrored = Mirrored {
    key: HeaderName::from_static("mcp-method"),
    label: "Mcp-Method",
};

/// `Mcp-Name`.
#[cfg(feature = "http")]
pub(crate) const NAME: Mirrored = Mirrored {
    key: HeaderName::from_static("mcp-name"),
    label: "Mcp-Name",
};
