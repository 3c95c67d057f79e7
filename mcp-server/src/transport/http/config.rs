//! Settings of the HTTP transport.

use std::time::Duration;

use super::auth::{AuthLayer, AuthSettings, Authenticator, ProtectedResourceMetadata};

/// Which `Host` (and `Origin`) values are accepted: the DNS-rebinding defence.
///
/// Both headers are parsed strictly whatever the policy: a missing, repeated or malformed
/// `Host` (userinfo, a path, a bad port, `[::1].evil.com`, `127.1`) is 400, a host the policy
/// does not serve 403, and a repeated, malformed (a path, a fragment, userinfo) or foreign
/// `Origin` 403. A host is a DNS name, a strict dotted quad or a bracketed IPv6 literal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HostPolicy {
    /// Only `localhost`, `127.0.0.0/8` and `[::1]`, any port (the default).
    #[default]
    Loopback,
    /// Only these hosts (without port: names compared case-insensitively, or IP addresses
    /// such as `10.0.0.5` and `[2001:db8::1]`), plus loopback.
    AllowList(Vec<String>),
    /// Any host, and any `Origin`. Only behind a proxy that checks hosts itself; a repeated
    /// `Host` is still 400 (RFC 9112).
    Any,
}

/// Settings of the Streamable HTTP endpoint.
///
/// ```
/// use mcp_server::transport::http::{HttpConfig, HostPolicy};
/// let config = HttpConfig::default()
///     .hosts(HostPolicy::AllowList(vec!["mcp.example.com".into()]))
///     .allowed_origins(["https://app.example.com"])
///     .max_body_bytes(1 << 20);
/// # let _ = config;
/// ```
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub(crate) hosts: HostPolicy,
    pub(crate) origins: Vec<String>,
    pub(crate) max_body_bytes: usize,
    pub(crate) keep_alive: Duration,
    pub(crate) auth: Option<AuthSettings>,
    pub(crate) max_sessions: usize,
    pub(crate) session_idle: Duration,
    pub(crate) sse_retry: Option<Duration>,
    pub(crate) replay_bytes: usize,
    pub(crate) max_streams: usize,
    pub(crate) head_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) max_connections: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            hosts: HostPolicy::Loopback,
            origins: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
            auth: None,
            max_sessions: 1024,
            session_idle: Duration::from_secs(30 * 60),
            sse_retry: None,
            replay_bytes: 1024 * 1024,
            max_streams: 32,
            head_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_connections: 4096,
        }
    }
}

impl HttpConfig {
    /// Which hosts are accepted (default: loopback only).
    #[must_use]
    pub fn hosts(mut self, policy: HostPolicy) -> Self {
        self.hosts = policy;
        self
    }

    /// Browser origins accepted in addition to those whose host passes the host policy,
    /// such as `https://app.example.com`.
    #[must_use]
    pub fn allowed_origins<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        origins: I,
    ) -> Self {
        self.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest request body accepted, in bytes (default 4 MiB); larger ones get 413.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes.max(1);
        self
    }

    /// How often SSE streams send a keep-alive comment (default 15 s).
    #[must_use]
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every;
        self
    }

    /// How many 2025-11-25 sessions (opened by `initialize`) may be open at once (default
    /// 1024). When all are in use, `initialize` gets 503 until one ends or expires.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// How long a 2025-11-25 session may stay unused before it expires (default 30 min);
    /// its id then gets 404 and the client starts a new session.
    #[must_use]
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// The `retry` (how long to wait before reconnecting) sent in the priming event that
    /// starts each SSE stream of a 2025-11-25 session (default: none, and clients use their
    /// own). A handler that closes its stream mid-call
    /// ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)) has
    /// the client come back after this long.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_server::transport::http::HttpConfig;
    /// let config = HttpConfig::default().sse_retry(Duration::from_millis(500));
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn sse_retry(mut self, retry: Duration) -> Self {
        self.sse_retry = Some(retry);
        self
    }

    /// The most bytes of events each SSE stream of a 2025-11-25 session keeps so that a
    /// client can resume it with `Last-Event-ID` (default 1 MiB). Events the client has not
    /// been sent yet are never dropped: when they fill the buffer (nobody is reading), the
    /// handler's further notifications wait, as on a slow connection. Events already sent
    /// are dropped, oldest first, to make room; a resume from before them is refused (400).
    /// The GET stream of a session that nobody reads is given up when its buffer fills.
    ///
    /// ```
    /// use mcp_server::transport::http::HttpConfig;
    /// let config = HttpConfig::default().replay_buffer_bytes(256 * 1024);
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn replay_buffer_bytes(mut self, bytes: usize) -> Self {
        self.replay_bytes = bytes.max(1);
        self
    }

    /// How many resumable SSE streams one 2025-11-25 session keeps at once (default 32).
    /// A stream stays resumable until it is delivered to its end, so that a client that went
    /// away can come back for it (its request goes on meanwhile); beyond this many, the
    /// oldest stream no connection serves is given up: its request is cancelled, and a
    /// resume of it is refused (400).
    ///
    /// ```
    /// use mcp_server::transport::http::HttpConfig;
    /// let config = HttpConfig::default().max_streams_per_session(8);
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn max_streams_per_session(mut self, streams: usize) -> Self {
        self.max_streams = streams.max(1);
        self
    }

    /// How long a client has to send a request's head (request line and headers) once it
    /// starts one or once its connection is idle between requests (default 30 s); then the
    /// connection is closed. Applies to [`Server::serve_http_on`](crate::Server::serve_http_on)
    /// (in your own axum application, your server's settings apply).
    #[must_use]
    pub fn request_head_timeout(mut self, timeout: Duration) -> Self {
        self.head_timeout = timeout;
        self
    }

    /// How long a client has to send a request's whole body (default 30 s); a slower one
    /// gets 408 and the connection is closed.
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How many connections [`Server::serve_http_on`](crate::Server::serve_http_on) serves at
    /// once (default 4096); further ones wait in the listen queue until one closes.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Authenticates every request with `authenticator` before the MCP endpoint (see
    /// [`auth`](super::auth)): handlers read the caller with
    /// [`RequestContext::auth`](crate::RequestContext::auth), and request states are bound
    /// to its subject. A refused request gets 401 with a `WWW-Authenticate: Bearer` challenge
    /// naming `metadata`'s URL, which [`Server::serve_http_on`](crate::Server::serve_http_on)
    /// serves (with [`Server::http_service_with`](crate::Server::http_service_with), merge
    /// [`ProtectedResourceMetadata::router`] at the root of your application).
    #[must_use]
    pub fn authenticate(
        mut self,
        authenticator: impl Authenticator,
        metadata: ProtectedResourceMetadata,
    ) -> Self {
        let layer = AuthLayer::new(authenticator, &metadata);
        self.auth = Some(AuthSettings { layer, metadata });
        self
    }
}
