//! A session of the `initialize` era (2025-11-25 and earlier): what `initialize` negotiated
//! (the revision, the client's capabilities and self-description), the log level
//! `logging/setLevel` chose, the resources `resources/subscribe` watches, and where
//! notifications that belong to no request go (stdout on stdio, the GET stream over HTTP).
//!
//! The session also keeps the server's requests to the client awaiting an answer
//! ([`outgoing`]) and the client's requests being served (so that a
//! `notifications/cancelled` POSTed over HTTP reaches them). The dispatcher opens it and
//! forwards the server's changes to it while it lives.
//!
//! What another instance needs to serve the session ([`Record`]: the revision, the client's
//! capabilities and self-description, the subject that opened it, the log level) can be
//! written to a shared store and a session restored from it elsewhere; a [`Persist`] hook
//! tells the store when the log level changes. The streams, the waits for pushed answers and
//! the subscriptions stay with the instance that holds them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
#[cfg(feature = "http")]
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use typemcp_core::jsonrpc::Notification;
use typemcp_core::protocol::{
    ClientCapabilities, Implementation, InitializeParams, LegacyVersion, LoggingLevel,
};
use typemcp_core::{McpError, RequestId};

mod outgoing;

pub(crate) use outgoing::PushError;
#[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
pub(crate) use outgoing::instance_of_answer;

use outgoing::Outgoing;

use crate::outbound::Outbound;
use crate::subscription::{MAX_SUBSCRIPTION_URI_BYTES, covers};

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The most bytes of JSON a session keeps of the client's `capabilities` and `clientInfo`
/// (together) for its life: a larger `initialize` is refused with `-32602`.
pub(crate) const MAX_CLIENT_DESCRIPTION_BYTES: usize = 64 * 1024;

/// The most resources one session subscribes to at once (`resources/subscribe`).
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// Refuses `initialize` params whose capabilities and self-description are larger than a
/// session keeps ([`MAX_CLIENT_DESCRIPTION_BYTES`]).
pub(crate) fn check_client_description(params: &InitializeParams) -> Result<(), McpError> {
    let bytes = serde_json::to_vec(&params.capabilities)
        .map_or(usize::MAX, |v| v.len())
        .saturating_add(serde_json::to_vec(&params.client_info).map_or(usize::MAX, |v| v.len()));
    if bytes > MAX_CLIENT_DESCRIPTION_BYTES {
        return Err(McpError::invalid_params(format!(
            "Invalid params: the client's capabilities and clientInfo take at most \
             {MAX_CLIENT_DESCRIPTION_BYTES} bytes of JSON together"
        )));
    }
    Ok(())
}

/// What any instance needs to serve a session, as a shared store keeps it.
#[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The negotiated revision.
    pub(crate) version: String,
    /// The capabilities the client declared.
    pub(crate) capabilities: ClientCapabilities,
    /// The client's self-description.
    pub(crate) client_info: Implementation,
    /// The authenticated subject that opened the session, which alone may use it.
    pub(crate) owner: Option<String>,
    /// The level `logging/setLevel` chose.
    pub(crate) level: Option<LoggingLevel>,
}

/// Told when what a [`Record`] holds changes (the log level), so that a shared store keeps
/// up.
pub(crate) trait Persist: Send + Sync + std::fmt::Debug {
    /// The session's record changed.
    fn changed(&self, session: &Session);

    /// What completes once the store holds what [`changed`](Self::changed) last reported;
    /// `None` when no write is under way.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    fn settled(&self) -> Option<futures_util::future::BoxFuture<'static, ()>>;
}

/// One `initialize`d session.
#[derive(Debug)]
pub(crate) struct Session {
    version: &'static str,
    client_capabilities: ClientCapabilities,
    client_info: Implementation,
    level: Mutex<Option<LoggingLevel>>,
    subscriptions: Mutex<HashSet<String>>,
    /// Where notifications outside any request go; `None` while nobody listens.
    sink: Mutex<Option<mpsc::Sender<Bytes>>>,
    last_used: Mutex<Instant>,
    /// Fires when the session ends (DELETE, expiry, end of input).
    closed: CancellationToken,
    /// The server's requests to the client awaiting an answer.
    outgoing: Arc<Outgoing>,
    /// The client's requests being served, by id (for `notifications/cancelled` over HTTP).
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Told when the record changes (set when a shared store keeps the session).
    persist: std::sync::OnceLock<Arc<dyn Persist>>,
}

impl Session {
    /// A session for these `initialize` params, whose notifications outside any request go
    /// to `sink` (until a GET stream takes its place, over HTTP).
    pub(crate) fn new(params: InitializeParams, sink: Option<mpsc::Sender<Bytes>>) -> Arc<Self> {
        Self::with(
            LegacyVersion::negotiate(&params.protocol_version),
            params.capabilities,
            params.client_info,
            None,
            sink,
        )
    }

    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    /// The session a shared store's record describes, opened on another instance (its
    /// notifications go nowhere until a GET stream is opened here).
    pub(crate) fn restore(record: Record) -> Arc<Self> {
        Self::with(
            LegacyVersion::negotiate(&record.version),
            record.capabilities,
            record.client_info,
            record.level,
            None,
        )
    }

    fn with(
        version: &'static str,
        client_capabilities: ClientCapabilities,
        client_info: Implementation,
        level: Option<LoggingLevel>,
        sink: Option<mpsc::Sender<Bytes>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            version,
            client_capabilities,
            client_info,
            level: Mutex::new(level),
            subscriptions: Mutex::default(),
            sink: Mutex::new(sink),
            last_used: Mutex::new(Instant::now()),
            closed: CancellationToken::new(),
            outgoing: Arc::default(),
            in_flight: Mutex::default(),
            persist: std::sync::OnceLock::new(),
        })
    }

    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    /// What a shared store keeps of the session, opened by `owner`.
    pub(crate) fn record(&self, owner: Option<&str>) -> Record {
        Record {
            version: self.version.to_owned(),
            capabilities: self.client_capabilities.clone(),
            client_info: self.client_info.clone(),
            owner: owner.map(str::to_owned),
            level: self.log_level(),
        }
    }

    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    /// Shares the session across instances: the server's requests to the client get ids
    /// naming `instance` (so that an answer landing on another instance is forwarded here),
    /// and `persist` is told when the record changes. Once; later calls change nothing.
    pub(crate) fn share(&self, instance: &str, persist: Arc<dyn Persist>) {
        self.outgoing.name_instance(instance);
        let _ = self.persist.set(persist);
    }

    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    /// Completes once a shared store holds the session's latest record (at once when none
    /// keeps it): a change is stored before the request that made it is answered.
    pub(crate) async fn settled(&self) {
        if let Some(settled) = self.persist.get().and_then(|persist| persist.settled()) {
            settled.await;
        }
    }

    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    /// Takes the log level a shared store's record holds (chosen on another instance).
    pub(crate) fn refresh(&self, record: &Record) {
        *lock(&self.level) = record.level;
    }

    /// The negotiated revision.
    pub(crate) fn version(&self) -> &'static str {
        self.version
    }

    /// The capabilities the client declared in `initialize`.
    pub(crate) fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client_capabilities
    }

    /// The client's self-description from `initialize`.
    pub(crate) fn client_info(&self) -> &Implementation {
        &self.client_info
    }

    /// The level `logging/setLevel` chose; `None` (nothing is sent) until it is called.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.level)
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.level) = Some(level);
        if let Some(persist) = self.persist.get() {
            persist.changed(self);
        }
    }

    /// Watches `uri` (and, for a parent, what it covers), within the session's bounds.
    pub(crate) fn subscribe(&self, uri: String) -> Result<(), McpError> {
        if uri.len() > MAX_SUBSCRIPTION_URI_BYTES {
            return Err(McpError::invalid_params(format!(
                "Invalid params: a subscribed URI is at most {MAX_SUBSCRIPTION_URI_BYTES} bytes long"
            )));
        }
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.len() >= MAX_SUBSCRIPTIONS && !subscriptions.contains(&uri) {
            return Err(McpError::invalid_params(format!(
                "Invalid params: a session subscribes to at most {MAX_SUBSCRIPTIONS} resources; \
                 unsubscribe from one first"
            )));
        }
        subscriptions.insert(uri);
        Ok(())
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).iter().any(|sub| covers(sub, uri))
    }

    /// Routes notifications outside any request to `sink` from now on (a new GET stream
    /// replaces the previous one).
    #[cfg(feature = "http")] // Used by the HTTP transport.
    pub(crate) fn set_sink(&self, sink: mpsc::Sender<Bytes>) {
        *lock(&self.sink) = Some(sink);
    }

    /// Marks the session as used now (idle expiry counts from here).
    pub(crate) fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    /// When the session was last used.
    #[cfg(feature = "http")] // Used by the HTTP transport.
    pub(crate) fn last_used(&self) -> Instant {
        *lock(&self.last_used)
    }

    /// Ends the session: its forwarding task stops, and every wait for an answer from the
    /// client ends.
    pub(crate) fn close(&self) {
        self.closed.cancel();
        lock(&self.sink).take();
        self.outgoing.close();
    }

    /// Sends a request to the client on `outbound` (the stream of the client request being
    /// served) and waits for its answer, at most `timeout`, and no longer than `cancellation`
    /// (the originating request) and the session live.
    pub(crate) async fn request(
        &self,
        outbound: &Outbound,
        method: &str,
        params: &serde_json::Value,
        timeout: Duration,
        cancellation: &CancellationToken,
    ) -> Result<serde_json::Value, PushError> {
        // The answer comes in on the transport's input: the request's place in the
        // transport's budget is given back while it waits (see `crate::budget`).
        crate::budget::waiting_for_client(self.outgoing.request(
            outbound,
            method,
            params,
            timeout,
            cancellation,
            &self.closed,
        ))
        .await
    }

    /// A fresh id for a URL elicitation's `elicitationId`.
    pub(crate) fn mint_id(&self) -> String {
        self.outgoing.mint()
    }

    /// Routes a response the client sent on the session (raw JSON-RPC) to the request
    /// waiting for it; unknown or late ids are logged and dropped.
    pub(crate) fn answer(&self, message: &[u8]) -> bool {
        self.outgoing.answer(message)
    }

    /// Records a client request being served, until the returned guard drops.
    pub(crate) fn track(self: &Arc<Self>, id: RequestId, token: CancellationToken) -> Tracked {
        lock(&self.in_flight).insert(id.clone(), token);
        Tracked {
            session: Arc::clone(self),
            id,
        }
    }

    /// `notifications/cancelled` from the client: cancels the request it names, if it is
    /// still being served. Returns whether one was.
    #[cfg(feature = "http")] // Used by the HTTP transport.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let token = lock(&self.in_flight).remove(id);
        token.map(|token| token.cancel()).is_some()
    }

    /// Fires when the session ends.
    pub(crate) fn closed(&self) -> &CancellationToken {
        &self.closed
    }

    /// Sends a notification outside any request, if someone listens.
    pub(crate) async fn notify(&self, method: &str, params: serde_json::Value) {
        let sink = lock(&self.sink).clone();
        let Some(sink) = sink else { return };
        match serde_json::to_vec(&Notification::new(method, &params)) {
            Ok(bytes) => {
                if sink.send(Bytes::from(bytes)).await.is_err() {
                    // The stream went away: forget it, unless a new one replaced it.
                    let mut current = lock(&self.sink);
                    if current.as_ref().is_some_and(|s| s.same_channel(&sink)) {
                        current.take();
                    }
                }
            }
            Err(err) => {
                tracing::error!(%method, error = %err, "could not serialize a notification")
            }
        }
    }
}

/// Forgets a tracked client request when its service ends.
pub(crate) struct Tracked {
    session: Arc<Session>,
    id: RequestId,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        lock(&self.session.in_flight).remove(&self.id);
    }
}
