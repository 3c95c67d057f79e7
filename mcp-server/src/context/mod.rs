//! The request context handed to handlers: who is asking, with which capabilities, and
//! the channels a handler uses while it works (progress, logs, cancellation).

mod polling;
mod transport;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock, PoisonError};

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use typemcp_core::protocol::{
    ClientCapabilities, Implementation, LoggingLevel, LoggingMessageParams, ProgressParams,
    ProgressToken, RequestMeta, methods,
};
use typemcp_core::{McpError, RequestId};

use crate::Server;
use crate::outbound::Outbound;
#[cfg(sessions)]
use crate::session::Session;

#[cfg(feature = "http")] // The HTTP transport makes them.
pub(crate) use polling::SseControl;
pub use transport::{AuthIdentity, TransportInfo, TransportKind};

/// Everything a handler may want to know about the request it is serving.
///
/// Cheap to clone. Handlers receive it as an extractor (`ctx: RequestContext`).
///
/// ```
/// use typemcp_server::RequestContext;
///
/// async fn slow(ctx: RequestContext) -> String {
///     for step in 0..=2u32 {
///         if ctx.is_cancelled() {
///             return "stopped".into();
///         }
///         ctx.report_progress(f64::from(step) * 50.0, Some(100.0), None).await;
///     }
///     format!("done for {}", ctx.client_info().map_or("someone", |c| c.name.as_str()))
/// }
/// # let _ = slow;
/// ```
#[derive(Clone, Debug)]
pub struct RequestContext {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    id: RequestId,
    /// The method: one of the names below without a copy, else the client's.
    method: Cow<'static, str>,
    meta: RequestMeta,
    cancellation: CancellationToken,
    outbound: Outbound,
    transport: TransportInfo,
    server: Server,
    logging_enabled: bool,
    /// The `initialize`d session the request belongs to (2025-11-25 era), if any.
    #[cfg(sessions)]
    session: Option<Arc<Session>>,
    /// The task the handler runs as, once the call has become one.
    task: OnceLock<String>,
    /// For a call that may become a task: the status reported before it became one (it
    /// becomes the task's first status message). `None` for any other call.
    early_status: Option<std::sync::Mutex<Option<String>>>,
}

impl RequestContext {
    pub(crate) fn new(
        id: RequestId,
        method: &str,
        meta: RequestMeta,
        cancellation: CancellationToken,
        outbound: Outbound,
        transport: TransportInfo,
        server: Server,
    ) -> Self {
        let logging_enabled = server.logging_enabled();
        Self {
            inner: Arc::new(Inner {
                id,
                method: method_name(method),
                meta,
                cancellation,
                outbound,
                transport,
                server,
                logging_enabled,
                #[cfg(sessions)]
                session: None,
                task: OnceLock::new(),
                early_status: None,
            }),
        }
    }

    /// The same request, with a cancellation of its own: for a call that may outlive its
    /// request as a task.
    pub(crate) fn for_task(&self, cancellation: CancellationToken) -> Self {
        let inner = &self.inner;
        Self {
            inner: Arc::new(Inner {
                id: inner.id.clone(),
                method: inner.method.clone(),
                meta: inner.meta.clone(),
                cancellation,
                outbound: inner.outbound.clone(),
                transport: inner.transport.clone(),
                server: inner.server.clone(),
                logging_enabled: inner.logging_enabled,
                #[cfg(sessions)]
                session: inner.session.clone(),
                task: OnceLock::new(),
                early_status: Some(std::sync::Mutex::new(None)),
            }),
        }
    }

    /// From now on the handler runs as task `id`: its progress and status go into the task.
    pub(crate) fn attach_task(&self, id: &str) {
        let _ = self.inner.task.set(id.to_owned());
    }

    /// The status the handler reported before its call became a task.
    pub(crate) fn take_early_status(&self) -> Option<String> {
        let early = self.inner.early_status.as_ref()?;
        early.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// The id of the task this handler runs as, once the call has become one (the tasks
    /// extension: see [`TaskSupport`](crate::tasks::TaskSupport)).
    pub fn task_id(&self) -> Option<&str> {
        self.inner.task.get().map(String::as_str)
    }

    /// Tells the client what the handler is doing, in a task: the task's `statusMessage`
    /// (what `tasks/get` shows from now on). In a call that may still become a task, it is
    /// kept as the task's first status (and lost if the call finishes first). Any other call
    /// has nowhere to put it: returns `false`. [`report_progress`](Self::report_progress)
    /// reaches both kinds of client.
    ///
    /// ```
    /// use typemcp_server::RequestContext;
    ///
    /// async fn export(ctx: RequestContext) -> &'static str {
    ///     ctx.report_status("Exporting the first half").await;
    ///     "done"
    /// }
    /// # let _ = export;
    /// ```
    pub async fn report_status(&self, message: impl Into<String>) -> bool {
        let Some(id) = self.task_id() else {
            let Some(early) = &self.inner.early_status else {
                return false;
            };
            *early.lock().unwrap_or_else(PoisonError::into_inner) = Some(message.into());
            return true;
        };
        let owner = self.auth().map(AuthIdentity::subject);
        self.inner
            .server
            .set_task_status(id, owner, message.into())
            .await
    }

    /// Ties a freshly made context to an `initialize`d session (2025-11-25 era): its log
    /// level becomes the session's.
    #[cfg(sessions)]
    pub(crate) fn with_session(mut self, session: Arc<Session>) -> Self {
        // Freshly made, the context is not shared yet.
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.session = Some(session);
        }
        self
    }

    /// Whether the request belongs to an `initialize`d session of the 2025-11-25 era
    /// (or earlier) rather than to the stateless 2026-07-28 wire.
    pub fn is_legacy_session(&self) -> bool {
        #[cfg(sessions)]
        return self.inner.session.is_some();
        #[cfg(not(sessions))]
        false
    }

    /// The JSON-RPC id of this request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.id
    }

    /// The method being served, such as `tools/call`.
    pub fn method(&self) -> &str {
        &self.inner.method
    }

    /// The protocol version the request was sent under.
    pub fn protocol_version(&self) -> &str {
        &self.inner.meta.protocol_version
    }

    /// The capabilities the client declared on this very request (on a 2025-11-25 session:
    /// in `initialize`).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.meta.client_capabilities
    }

    /// The client's self-description, if it sent one. Self-reported: for display and logs
    /// only, never for security decisions.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.meta.client_info.as_ref()
    }

    /// The minimum log level the client asked for on this request, if any (on a 2025-11-25
    /// session: the level its last `logging/setLevel` chose).
    pub fn log_level(&self) -> Option<LoggingLevel> {
        #[cfg(sessions)]
        if let Some(session) = &self.inner.session {
            return session.log_level();
        }
        self.inner.meta.log_level
    }

    /// The progress token of this request, if the client wants progress.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.inner.meta.progress_token.as_ref()
    }

    /// The whole typed `_meta` of the request.
    pub fn meta(&self) -> &RequestMeta {
        &self.inner.meta
    }

    /// Fires when the client cancels the request (closes the HTTP stream, or sends
    /// `notifications/cancelled` over stdio) or the server shuts down.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// Whether the request has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// What the transport knows: HTTP request parts, the authenticated identity.
    pub fn transport(&self) -> &TransportInfo {
        &self.inner.transport
    }

    /// The authenticated caller, when an authentication layer put one on the request.
    pub fn auth(&self) -> Option<&AuthIdentity> {
        self.inner.transport.auth()
    }

    /// The server serving this request (to change its tools, prompts or resources, or
    /// to notify listeners).
    pub fn server(&self) -> &Server {
        &self.inner.server
    }

    /// Sends `notifications/progress` if the client asked for progress on this request.
    /// `progress` should increase from one call to the next. Returns whether it was sent.
    /// In a task (which has no progress notifications), it becomes the task's status
    /// message: the message, with `progress/total`; in a call that may still become a task,
    /// both (the status kept for the task, the notification sent if asked for).
    pub async fn report_progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> bool {
        let may_be_task = self.inner.early_status.is_some();
        if may_be_task {
            let done = match total {
                Some(total) => format!("{progress}/{total}"),
                None => format!("{progress}"),
            };
            let status = match &message {
                Some(message) => format!("{message} ({done})"),
                None => done,
            };
            let kept = self.report_status(status).await;
            if self.task_id().is_some() {
                return kept;
            }
        }
        let Some(token) = self.progress_token() else {
            return may_be_task;
        };
        let params = ProgressParams {
            progress_token: token.clone(),
            progress,
            total,
            message,
            meta: None,
        };
        self.inner.outbound.notify(methods::PROGRESS, &params).await
    }

    /// Sends `notifications/message` when the request set a log level at or below `level`.
    /// Logging is deprecated by SEP-2577; without a level on the request nothing is sent.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        // Tasks carry no log messages (the tasks extension).
        let wanted = match self.log_level() {
            Some(_) if self.task_id().is_some() => false,
            Some(min) if self.inner.logging_enabled => level >= min,
            _ => false,
        };
        if !wanted {
            return false;
        }
        let params = LoggingMessageParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        self.inner.outbound.notify(methods::MESSAGE, &params).await
    }

    /// Sends `ping` to the client and waits for its answer (at most the server's
    /// [`pushed_answer_timeout`](crate::ServerBuilder::pushed_answer_timeout), and no longer
    /// than this request lives). Only a client of a 2025-11-25 session can be pinged: the
    /// request goes out on this request's stream (stdout, or the POST's SSE stream), and a
    /// 2026-07-28 request is refused with `-32600`.
    pub async fn ping_client(&self) -> Result<(), McpError> {
        #[cfg(sessions)]
        if let Some(session) = &self.inner.session {
            let timeout = self.inner.server.config().pushed_answer_timeout;
            return session
                .request(
                    &self.inner.outbound,
                    typemcp_core::protocol::legacy_methods::PING,
                    &Value::Object(serde_json::Map::new()),
                    timeout,
                    &self.inner.cancellation,
                )
                .await
                .map(drop)
                .map_err(|why| why.into_error(typemcp_core::protocol::legacy_methods::PING));
        }
        Err(McpError::invalid_request(
            "The server can only ping the client of a 2025-11-25 session",
        ))
    }

    /// Closes the connection carrying this request's SSE stream without ending the stream
    /// (2025-11-25 polling, SEP-1699): the handler goes on, what it sends from now on is
    /// kept, and the client reconnects with GET and `Last-Event-ID` to get it, response
    /// included, after the `retry` the stream was primed with
    /// ([`HttpConfig::sse_retry`](crate::transport::http::HttpConfig::sse_retry)). Use it to
    /// free the connection during a long call.
    ///
    /// What the handler sent before the call is delivered on the connection first. Returns
    /// whether a connection was closed (or, before anything was sent, will be once the stream
    /// is primed). Only a request of a 2025-11-25 session over HTTP whose client
    /// accepts an event stream has one: over stdio, on the 2026-07-28 wire (whose streams are
    /// not resumable), on sessions of older revisions, and when the connection is already
    /// closed, this does nothing and returns `false`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use typemcp_server::RequestContext;
    ///
    /// async fn long_job(ctx: RequestContext) -> &'static str {
    ///     // Nothing to report for a while: let the client poll instead of holding a
    ///     // connection open.
    ///     ctx.close_sse_stream().await;
    ///     tokio::time::sleep(Duration::from_millis(10)).await;
    ///     "done"
    /// }
    /// # let _ = long_job;
    /// ```
    pub async fn close_sse_stream(&self) -> bool {
        match self.inner.transport.sse_control() {
            Some(control) if self.is_legacy_session() => control.close().await,
            _ => false,
        }
    }

    pub(crate) fn outbound(&self) -> &Outbound {
        &self.inner.outbound
    }
}

/// The methods a request may name that the server serves, kept by name without a copy.
const SERVED: &[&str] = &[
    methods::TOOLS_CALL,
    methods::PROMPTS_GET,
    methods::RESOURCES_READ,
    methods::TOOLS_LIST,
    methods::PROMPTS_LIST,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::COMPLETION_COMPLETE,
    methods::SUBSCRIPTIONS_LISTEN,
    methods::DISCOVER,
];

/// `method` as a context keeps it: a served method's static name, else a copy.
fn method_name(method: &str) -> Cow<'static, str> {
    SERVED.iter().find(|served| **served == method).map_or_else(
        || Cow::Owned(method.to_owned()),
        |served| Cow::Borrowed(*served),
    )
}
