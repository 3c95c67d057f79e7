//! [`ClientBuilder`]: how a client answers the server's questions, which era it speaks, its
//! limits, and the transport it connects over (a child's stdio, Streamable HTTP, any byte
//! stream).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use typemcp_core::McpError;
use typemcp_core::protocol::{Implementation, InputRequest};

use crate::answers::{Answers, NoAnswers, Question};
use crate::client::{Client, EraChoice, Settings};
use crate::error::ClientError;
use crate::notification::Notification;
use crate::transport::http::HttpConnection;
use crate::transport::lines::Connection;
use crate::transport::{Inbound, Listeners, ServerNotifications, ServerRequests, Transport};

/// Builds a [`Client`]: how it answers the server's questions, which era it speaks, and
/// how many rounds a call may take.
#[derive(Clone)]
pub struct ClientBuilder {
    pub(crate) answers: Arc<dyn Answers>,
    pub(crate) era: EraChoice,
    pub(crate) info: Implementation,
    pub(crate) max_rounds: u32,
    pub(crate) probe_timeout: Duration,
    pub(crate) request_timeout: Option<Duration>,
    pub(crate) headers: http::HeaderMap,
    pub(crate) notifications: Option<ServerNotifications>,
    pub(crate) tasks: bool,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("era", &self.era)
            .field("info", &self.info)
            .field("max_rounds", &self.max_rounds)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            answers: Arc::new(NoAnswers),
            era: EraChoice::Automatic,
            info: Implementation::new("typemcp-client", env!("CARGO_PKG_VERSION")),
            max_rounds: 16,
            probe_timeout: Duration::from_secs(10),
            request_timeout: None,
            headers: http::HeaderMap::new(),
            notifications: None,
            tasks: false,
        }
    }
}

impl Client {
    /// A builder.
    #[must_use]
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }
}

impl ClientBuilder {
    /// Answers the server's questions with `answers` (by default, none are answered).
    #[must_use]
    pub fn answers(mut self, answers: impl Answers) -> Self {
        self.answers = Arc::new(answers);
        self
    }

    /// Speaks `era` (by default, chosen automatically).
    #[must_use]
    pub fn era(mut self, era: EraChoice) -> Self {
        self.era = era;
        self
    }

    /// Names the client to the server.
    #[must_use]
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// Gives up on a call still asking for input after `rounds` rounds (16 by default).
    #[must_use]
    pub fn max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Gives up on a request the server has not answered within `timeout` (by default the
    /// client waits as long as the connection lives): the call fails with
    /// [`ClientError::TimedOut`] and the request is cancelled on the server (its stream closed
    /// over 2026-07-28 HTTP, `notifications/cancelled` otherwise). A
    /// multi-round call counts each round on its own; a 2025-11-25 call counts the questions
    /// the server pushes, and the time the answers take, in its one request.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = Some(timeout);
        self
    }

    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a call the
    /// server turns into a task is followed to its end (`tasks/get` at the server's
    /// `pollIntervalMs`), the questions it parks on answered by the same [`Answers`] through
    /// `tasks/update`, and its result returned as any call's; a call whose future is dropped
    /// cancels its task (`tasks/cancel`).
    #[must_use]
    pub fn tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// Hands every notification of the server's to `take` (progress, log messages, lists that
    /// changed), called on the connection's reading task: keep it short. Each tool call,
    /// prompt and resource read then asks for progress (`_meta.progressToken`, the request's
    /// id).
    #[must_use]
    pub fn on_notification(mut self, take: impl Fn(Notification) + Send + Sync + 'static) -> Self {
        self.notifications = Some(Arc::new(take));
        self
    }

    /// Sends the header `name: value` with every HTTP request (`Authorization: Bearer …`);
    /// a name or value that is not a valid header is left out, with a warning.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (
            http::HeaderName::try_from(name),
            http::HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(mut value)) => {
                value.set_sensitive(true);
                self.headers.append(name, value);
            }
            _ => tracing::warn!(header = name, "not a valid HTTP header: left out"),
        }
        self
    }

    /// Connects to the Streamable HTTP endpoint at `url` (`http://host:port/mcp`), choosing
    /// the era.
    pub async fn connect_http(self, url: &str) -> Result<Client, ClientError> {
        let headers = self.headers.clone();
        let inbound = self.inbound();
        let listeners = inbound.listeners.clone();
        let http = HttpConnection::new(url, headers, inbound)?;
        let transport = Transport::Http(http, Default::default());
        Client::open(self.settings(), transport, None, listeners).await
    }

    /// Connects over newline-delimited JSON-RPC on `reader` and `writer` (a server's
    /// `serve_io` on an in-memory duplex, a child's stdio), choosing the era.
    pub async fn connect_io<R, W>(self, reader: R, writer: W) -> Result<Client, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let inbound = self.inbound();
        let listeners = inbound.listeners.clone();
        let connection = Connection::open(reader, writer, inbound);
        Client::open(
            self.settings(),
            Transport::Lines(connection),
            None,
            listeners,
        )
        .await
    }

    /// Starts `command` and connects over its stdin and stdout (its stderr is inherited);
    /// the child is killed when the client is dropped.
    pub async fn spawn(self, mut command: tokio::process::Command) -> Result<Client, ClientError> {
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Closed);
        };
        let inbound = self.inbound();
        let listeners = inbound.listeners.clone();
        let connection = Connection::open(stdout, stdin, inbound);
        Client::open(
            self.settings(),
            Transport::Lines(connection),
            Some(child),
            listeners,
        )
        .await
    }
}

impl ClientBuilder {
    /// What the client keeps of this builder.
    fn settings(self) -> Settings {
        Settings {
            wants_progress: self.notifications.is_some(),
            answers: self.answers,
            era: self.era,
            info: self.info,
            max_rounds: self.max_rounds,
            probe_timeout: self.probe_timeout,
            request_timeout: self.request_timeout,
            tasks: self.tasks,
        }
    }

    /// Where the server's own requests and notifications go.
    fn inbound(&self) -> Inbound {
        Inbound {
            requests: pushed(Arc::clone(&self.answers)),
            notifications: self.notifications.clone(),
            listeners: Listeners::default(),
        }
    }
}

/// The server's pushed requests (a 2025-11-25 session), answered by `answers`.
fn pushed(answers: Arc<dyn Answers>) -> ServerRequests {
    Arc::new(move |method: String, params: Value| {
        let answers = Arc::clone(&answers);
        Box::pin(async move {
            if method == "ping" {
                return Ok(json!({}));
            }
            let request: InputRequest =
                serde_json::from_value(json!({"method": method, "params": params}))
                    .map_err(|_| McpError::method_not_found(&method))?;
            let question = Question {
                key: None,
                round: None,
                request: &request,
            };
            let reply = answers.answer(question).await.map_err(refused)?;
            reply.respond(&question).map_err(refused)
        })
    })
}

/// What a pushed request is answered with when the client's answers fail it: the reason, so
/// that the call the server fails with it says which question went unanswered and why (the
/// only way it reaches the caller of a 2025-11-25 call).
fn refused(error: ClientError) -> McpError {
    tracing::warn!(%error, "a question of the server's was not answered");
    McpError::internal(error.to_string())
}
