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
/// use typemcp_server::transport::http::{HttpConfig, HostPolicy};
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
    pub(crate) max_sessions_per_caller: usize,
    pub(crate) session_min_idle: Duration,
    pub(crate) max_in_flight_per_caller: usize,
    pub(crate) sse_retry: Option<Duration>,
    pub(crate) replay_bytes: usize,
    pub(crate) session_replay_bytes: usize,
    pub(crate) total_replay_bytes: usize,
    pub(crate) max_streams: usize,
    pub(crate) head_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) session_store: Option<std::sync::Arc<dyn super::session_store::SessionStore>>,
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
            max_sessions_per_caller: 128,
            session_min_idle: Duration::from_secs(60),
            max_in_flight_per_caller: 256,
            sse_retry: None,
            replay_bytes: 1024 * 1024,
            session_replay_bytes: 4 * 1024 * 1024,
            total_replay_bytes: 32 * 1024 * 1024,
            max_streams: 32,
            head_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_connections: 4096,
            session_store: None,
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

    setters! {
        /// The largest request body accepted, in bytes (default 4 MiB); larger ones get 413.
        pub fn max_body_bytes(bytes: usize) |b| b.max_body_bytes = bytes.max(1);

        /// How often SSE streams send a keep-alive comment (default 15 s).
        pub fn keep_alive(every: Duration) |b| b.keep_alive = every;

        /// How many 2025-11-25 sessions (opened by `initialize`) may be open at once (default
        /// 1024). When all are taken, an idle one gives way to the new one (see
        /// [`session_min_idle`](Self::session_min_idle)); when none can, `initialize` gets 503
        /// (`-32603`, "too many open sessions") until one ends, expires or can give way. This
        /// bounds what all 2025-11-25 clients together keep on the server.
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().max_sessions(256);
        /// # let _ = config;
        /// ```
        pub fn max_sessions(sessions: usize) |b| b.max_sessions = sessions;

        /// How many 2025-11-25 sessions one caller may hold at once (default 128, an eighth of
        /// the default [`max_sessions`](Self::max_sessions)): one client opening sessions in a
        /// loop takes this many, not the whole table, and every other client still gets one.
        ///
        /// The caller is the authenticated subject behind [`authenticate`](Self::authenticate),
        /// else the peer address (IPv6 by /64), else one anonymous caller for all (an endpoint
        /// served without the peer address: see `into_make_service_with_connect_info` and
        /// [`Server::serve_http_on`](crate::Server::serve_http_on), which records it). Clients
        /// behind one proxy share its address, and so one share: authenticate such an endpoint.
        ///
        /// A caller at its share gets a new session in place of its own session unused longest,
        /// when that one can give way (see [`session_min_idle`](Self::session_min_idle)); else
        /// `initialize` gets **429 Too Many Requests** (RFC 6585: a limit of this client, not of
        /// the server, which 503 reports) with a JSON-RPC error `-32600` saying "too many
        /// sessions for this caller (limit N)".
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().max_sessions(4096).max_sessions_per_caller(32);
        /// # let _ = config;
        /// ```
        pub fn max_sessions_per_caller(sessions: usize) |b|
            b.max_sessions_per_caller = sessions.max(1);

        /// How long a 2025-11-25 session must have been unused before it may give way to a new
        /// one (default 60 s). A session gives way only when nothing uses it (no request of it
        /// in flight, no open stream of it) and it has been unused this long: when its caller is
        /// at its share ([`max_sessions_per_caller`](Self::max_sessions_per_caller)), its own
        /// session unused longest goes; when the table is full
        /// ([`max_sessions`](Self::max_sessions)), the session unused longest of the caller
        /// holding the most sessions goes, so a client that opened many loses its own first. The
        /// one ended gets 404 and its client starts a new session.
        ///
        /// Why a minimum: without it, a client opening sessions in a loop would end every other
        /// client's session between two of its requests, and each would have to start again.
        /// With it, a session used within the last minute stays; the cost is that when every
        /// session is that fresh, a new client is refused until one is old enough (60 s at
        /// most, instead of the idle timeout).
        ///
        /// ```
        /// use std::time::Duration;
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().session_min_idle(Duration::from_secs(5 * 60));
        /// # let _ = config;
        /// ```
        pub fn session_min_idle(idle: Duration) |b| b.session_min_idle = idle;

        /// How long a 2025-11-25 session may stay unused before it expires (default 30 min);
        /// its id then gets 404 and the client starts a new session.
        pub fn session_idle_timeout(idle: Duration) |b| b.session_idle = idle;

        /// How many requests one caller may have in flight at once, over both eras (default
        /// 256): each POST, 2025-11-25 GET stream and DELETE holds a place from the moment its
        /// head is checked until its response body has ended and its handler has answered, so a
        /// long-lived stream (a 2026-07-28 `subscriptions/listen`, a 2025-11-25 GET or POST
        /// stream) holds one for as long as it is open. Beyond it, the caller gets **429 Too
        /// Many Requests** with `Retry-After: 1` and a JSON-RPC error `-32600` saying "too many
        /// requests in flight for this caller (limit N)"; every other caller is still served.
        /// This keeps one client from holding every connection's worth of handlers and streams.
        ///
        /// The caller is counted as for
        /// [`max_sessions_per_caller`](Self::max_sessions_per_caller). Keep it above the
        /// concurrency of your busiest legitimate client (a load generator with 64 connections
        /// from one address needs 64).
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().max_in_flight_per_caller(1024);
        /// # let _ = config;
        /// ```
        pub fn max_in_flight_per_caller(requests: usize) |b|
            b.max_in_flight_per_caller = requests.max(1);

        /// The `retry` (how long to wait before reconnecting) sent in the priming event that
        /// starts each SSE stream of a 2025-11-25 session (default: none, and clients use their
        /// own). A handler that closes its stream mid-call
        /// ([`RequestContext::close_sse_stream`](crate::RequestContext::close_sse_stream)) has
        /// the client come back after this long.
        ///
        /// ```
        /// use std::time::Duration;
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().sse_retry(Duration::from_millis(500));
        /// # let _ = config;
        /// ```
        pub fn sse_retry(retry: Duration) |b| b.sse_retry = Some(retry);

        /// The most bytes of events each SSE stream of a 2025-11-25 session keeps so that a
        /// client can resume it with `Last-Event-ID` (default 1 MiB). Events the client has not
        /// been sent yet are never dropped for room: when they fill the buffer (nobody is
        /// reading), the handler's further notifications wait, as on a slow connection. Events
        /// already sent are dropped, oldest first, to make room; a resume from before them is
        /// refused (400). The GET stream of a session that nobody reads is given up when its
        /// buffer fills.
        ///
        /// An event larger than this (a large tool result, or an answer echoing a large request)
        /// is never kept: it is sent to the connection serving the stream, if there is one, and a
        /// resume that would need it is refused (400). This protects against a client that makes
        /// the server keep what it sends back (96 abandoned streams of 3.5 MB answers held 450 MB
        /// before this bound applied to every event). Together with
        /// [`replay_bytes_per_session`](Self::replay_bytes_per_session) and
        /// [`replay_bytes_total`](Self::replay_bytes_total), which bound what all streams keep.
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().replay_buffer_bytes(256 * 1024);
        /// # let _ = config;
        /// ```
        pub fn replay_buffer_bytes(bytes: usize) |b| b.replay_bytes = bytes.max(1);

        /// The most bytes of events the SSE streams of one 2025-11-25 session keep for replay
        /// together (default 4 MiB, four streams' worth at the default
        /// [`replay_buffer_bytes`](Self::replay_buffer_bytes)).
        ///
        /// This is each session's share of [`replay_bytes_total`](Self::replay_bytes_total): one
        /// client's streams cannot keep more, however many it opens. When the session's streams
        /// need more, those of its streams that no connection serves (the client went away, or
        /// the handler closed the stream to be polled) are released, oldest first: their events
        /// are dropped and no longer kept, a resume of them is refused (400), and their requests
        /// go on (a client going away cancels nothing). Without such a stream, a new event is sent
        /// to its connection but not kept, or, with none, not kept at all.
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().replay_bytes_per_session(2 * 1024 * 1024);
        /// # let _ = config;
        /// ```
        pub fn replay_bytes_per_session(bytes: usize) |b| b.session_replay_bytes = bytes.max(1);

        /// The most bytes of events every 2025-11-25 session of the endpoint keeps for replay,
        /// together (default 32 MiB). This is the worst case of the replay buffers: at the
        /// defaults, whatever the number of sessions (up to
        /// [`max_sessions`](Self::max_sessions)) and of streams, the events kept for replay
        /// never exceed 32 MiB in all (without this bound: 1 MiB × 32 streams × 1024 sessions,
        /// 32 GiB, for the 30-minute idle time). Beyond that come only the events on their way to
        /// a connection that is reading (at most one not kept per stream served).
        ///
        /// When the endpoint needs more, the streams that no connection serves, of any session,
        /// are released, oldest first, as with
        /// [`replay_bytes_per_session`](Self::replay_bytes_per_session): what clients left behind
        /// gives way to what clients are reading.
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().replay_bytes_total(16 * 1024 * 1024);
        /// # let _ = config;
        /// ```
        pub fn replay_bytes_total(bytes: usize) |b| b.total_replay_bytes = bytes.max(1);

        /// How many resumable SSE streams one 2025-11-25 session keeps at once (default 32).
        /// A stream stays resumable until it is delivered to its end, so that a client that went
        /// away can come back for it (its request goes on meanwhile); beyond this many, the
        /// oldest stream no connection serves is given up: its request is cancelled, and a
        /// resume of it is refused (400).
        ///
        /// ```
        /// use typemcp_server::transport::http::HttpConfig;
        /// let config = HttpConfig::default().max_streams_per_session(8);
        /// # let _ = config;
        /// ```
        pub fn max_streams_per_session(streams: usize) |b| b.max_streams = streams.max(1);

        /// How long a client has to send a request's head (request line and headers) once it
        /// starts one or once its connection is idle between requests (default 30 s); then the
        /// connection is closed. Applies to [`Server::serve_http_on`](crate::Server::serve_http_on)
        /// (in your own axum application, your server's settings apply).
        pub fn request_head_timeout(timeout: Duration) |b| b.head_timeout = timeout;

        /// How long a client has to send a request's whole body (default 30 s); a slower one
        /// gets 408 and the connection is closed.
        pub fn body_timeout(timeout: Duration) |b| b.body_timeout = timeout;

        /// How many connections [`Server::serve_http_on`](crate::Server::serve_http_on) serves at
        /// once (default 4096); further ones wait in the listen queue until one closes.
        pub fn max_connections(connections: usize) |b| b.max_connections = connections.max(1);
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

    /// Keeps the 2025-11-25 sessions in `store`, so that every instance sharing it serves
    /// them: behind a load balancer without affinity, `initialize` may land on one instance
    /// and the session's other requests on any (see
    /// [`session_store`](super::session_store) for what is shared and what stays with one
    /// instance). Without it, sessions live in this endpoint's memory.
    ///
    /// ```
    /// use typemcp_server::transport::http::HttpConfig;
    /// use typemcp_server::transport::http::session_store::MemorySessionStore;
    /// let config = HttpConfig::default().session_store(MemorySessionStore::new());
    /// # let _ = config;
    /// ```
    #[must_use]
    pub fn session_store(mut self, store: impl super::session_store::SessionStore) -> Self {
        self.session_store = Some(std::sync::Arc::new(store));
        self
    }
}
