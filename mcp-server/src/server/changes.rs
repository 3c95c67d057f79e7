//! Change events, broadcast to `subscriptions/listen` streams and to 2025-11-25 sessions.

/// Something listeners may want to hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// One resource changed.
    ResourceUpdated(String),
}

impl Change {
    /// Every list change: what a listener that missed some is told.
    pub(crate) const LISTS: [Change; 3] = [
        Self::ToolsListChanged,
        Self::PromptsListChanged,
        Self::ResourcesListChanged,
    ];
}
