//! What a resource subscription covers, and how long the URI it names may be: the same rule
//! for a `subscriptions/listen` stream and a 2025-11-25 session's `resources/subscribe`.

/// The longest resource URI a subscription names (a listen's, or a 2025-11-25 session's
/// `resources/subscribe`).
pub(crate) const MAX_SUBSCRIPTION_URI_BYTES: usize = 2048;

/// Whether a subscription to `sub` covers a change to `uri`: the same URI, or `sub` is a
/// parent of it.
pub(crate) fn covers(sub: &str, uri: &str) -> bool {
    uri == sub
        || (uri.starts_with(sub) && (sub.ends_with('/') || uri[sub.len()..].starts_with('/')))
}
