//! Server-wide settings, fixed when the server is built: caching hints, pagination, logging,
//! what results carry, limits (message size, requests in flight, rounds), the request-state
//! signer, task settings and the shutdown grace period.

use std::time::Duration;

use typemcp_core::protocol::CacheScope;

/// The caching hints (`ttlMs`, `cacheScope`) put on a kind of result.
///
/// ```
/// use std::time::Duration;
/// use typemcp_server::CachePolicy;
/// use typemcp_core::protocol::CacheScope;
/// let p = CachePolicy::new(Duration::from_secs(60), CacheScope::Public);
/// assert_eq!(p.ttl_ms(), 60_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    ttl: Duration,
    scope: CacheScope,
}

impl CachePolicy {
    /// A policy with a freshness duration and a scope.
    pub fn new(ttl: Duration, scope: CacheScope) -> Self {
        Self { ttl, scope }
    }

    /// Freshness in whole milliseconds.
    pub fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// Who may reuse the result.
    pub fn scope(&self) -> CacheScope {
        self.scope
    }
}

/// Capabilities declared even when nothing of that kind is registered yet.
#[derive(Debug, Clone, Default)]
pub(crate) struct Enabled {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) completions: bool,
}

/// How long in-flight requests may take to finish once a graceful shutdown starts.
pub(crate) const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Settings fixed when the server is built.
#[derive(Debug, Clone)]
pub(crate) struct ServerConfig {
    /// Hints for `server/discover` and the `*/list` results.
    pub(crate) list_cache: CachePolicy,
    /// Hints for `resources/read` results.
    pub(crate) read_cache: CachePolicy,
    /// Items per page of list results; `None` returns everything at once.
    pub(crate) page_size: Option<usize>,
    /// Declare `logging` and send `notifications/message`.
    pub(crate) logging: bool,
    /// Put `io.modelcontextprotocol/serverInfo` in every result's `_meta`.
    pub(crate) server_info_in_results: bool,
    /// The largest message accepted on stdio (HTTP has its own body limit).
    pub(crate) max_message_bytes: usize,
    /// How many stdio requests are served at once; reading waits for a free place.
    pub(crate) max_in_flight: usize,
    /// The most rounds one multi-round request may take.
    pub(crate) max_rounds: u32,
    /// The most times a handler runs for one request of a 2025-11-25 session whose input
    /// requests are pushed to the client.
    pub(crate) pushed_rounds: u32,
    /// How long the server waits for the client's answer to one pushed request.
    pub(crate) pushed_answer_timeout: Duration,
    /// Signs and verifies `requestState`; `None` only when the builder opted out.
    pub(crate) state_signer: Option<std::sync::Arc<crate::state::RequestStateSigner>>,
    pub(crate) enabled: Enabled,
    /// Task timing (the tasks extension).
    pub(crate) tasks: crate::tasks::TaskSettings,
    /// How long in-flight requests may take to finish once a graceful shutdown starts.
    pub(crate) shutdown_grace: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            list_cache: CachePolicy::new(Duration::from_secs(60), CacheScope::Public),
            read_cache: CachePolicy::new(Duration::ZERO, CacheScope::Private),
            page_size: None,
            logging: true,
            server_info_in_results: true,
            max_message_bytes: crate::budget::DEFAULT_MAX_MESSAGE_BYTES,
            max_in_flight: crate::budget::DEFAULT_MAX_IN_FLIGHT,
            max_rounds: 16,
            pushed_rounds: 8,
            pushed_answer_timeout: Duration::from_secs(300),
            state_signer: None,
            enabled: Enabled::default(),
            tasks: crate::tasks::TaskSettings::default(),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}
