//! [`Client`]: one connection to a server, the era chosen when it opens, and the server's
//! methods as typed calls that run the `input_required` rounds themselves.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use typemcp_core::protocol::param_headers::{self, ParamHeader};
use typemcp_core::protocol::task_methods::{
    CANCEL as TASKS_CANCEL, GET as TASKS_GET, UPDATE as TASKS_UPDATE,
};
use typemcp_core::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CompletionReference, DiscoverResult,
    GetPromptResult, Implementation, InitializeResult, InputRequest, InputRequests, Outcome,
    Prompt, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities, SubscriptionFilter,
    TASKS_EXTENSION, Tool, methods,
};
use typemcp_core::{ErrorCode, McpError};

use crate::answers::{Answers, NoAnswers, Question};
use crate::error::ClientError;
use crate::listen::{Subscription, filter_params};
use crate::notification::Notification;
use crate::transport::http::HttpConnection;
use crate::transport::lines::Connection;
use crate::transport::{
    Inbound, LISTEN_BACKLOG, Listeners, MAX_LISTENS, Notifier, Outgoing, ServerNotifications,
    ServerRequests, Transport,
};

/// The revision of the 2026-07-28 wire.
pub const MODERN: &str = "2026-07-28";
/// The revision of the sessions a client opens with `initialize`.
pub const SESSION: &str = "2025-11-25";

/// The most pages a list is read in, whatever cursors the server hands out.
const MAX_PAGES: usize = 1_000;

/// The most tools whose mirrored arguments (`x-mcp-header`) are remembered.
const MAX_REMEMBERED_TOOLS: usize = 10_000;

/// Which era the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum EraChoice {
    /// `server/discover` first; `initialize` when the server does not answer it with a
    /// discover result (it does not know the method, or answers something else).
    #[default]
    Automatic,
    /// 2026-07-28 only: per-request `_meta`, `server/discover`.
    Modern,
    /// A 2025-11-25 session, opened with `initialize`.
    Session,
}

/// The era a connection speaks, once chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Era {
    /// 2026-07-28: stateless requests carrying `_meta`.
    Modern,
    /// A 2025-11-25 session.
    Session,
}

/// Builds a [`Client`]: how it answers the server's questions, which era it speaks, and
/// how many rounds a call may take.
#[derive(Clone)]
pub struct ClientBuilder {
    answers: Arc<dyn Answers>,
    era: EraChoice,
    info: Implementation,
    max_rounds: u32,
    probe_timeout: Duration,
    request_timeout: Option<Duration>,
    headers: http::HeaderMap,
    notifications: Option<ServerNotifications>,
    tasks: bool,
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
    /// [`ClientError::TimedOut`] and the server is sent `notifications/cancelled`. A
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
        Client::open(self, transport, None, listeners).await
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
        Client::open(self, Transport::Lines(connection), None, listeners).await
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
        Client::open(self, Transport::Lines(connection), Some(child), listeners).await
    }
}

impl ClientBuilder {
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

/// What a pushed request is answered with when the client's answers fail it.
fn refused(error: ClientError) -> McpError {
    tracing::warn!(%error, "a question of the server's was not answered");
    McpError::internal(error.to_string())
}

/// A connection to one MCP server.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use typemcp_client::Client;
/// use typemcp_server::{Server, tool};
///
/// /// Adds two numbers.
/// #[tool]
/// async fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let server = Server::builder().tool(add).build()?;
/// let (client_end, server_end) = tokio::io::duplex(64 * 1024);
/// let (read, write) = tokio::io::split(server_end);
/// tokio::spawn(server.serve_io(read, write));
/// let (read, write) = tokio::io::split(client_end);
/// let client = Client::builder().connect_io(read, write).await?;
/// let result = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await?;
/// assert_eq!(typemcp_client::ToolResultExt::text(&result), "5");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Client {
    connection: Transport,
    era: Era,
    capabilities: ClientCapabilities,
    info: Implementation,
    server: ServerDescription,
    answers: Arc<dyn Answers>,
    max_rounds: u32,
    request_timeout: Option<Duration>,
    /// Whether someone takes the server's notifications (and so progress is asked for).
    wants_progress: bool,
    next_id: AtomicU64,
    /// The mirrored arguments (`x-mcp-header`) of each tool listed, for HTTP calls.
    mirrored: Mutex<Option<HashMap<String, Vec<ParamHeader>>>>,
    /// The open listens' notification channels.
    listeners: Listeners,
    _child: Option<tokio::process::Child>,
}

/// What the server said about itself when the connection opened.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerDescription {
    /// The server's name and version, if it gave them.
    pub info: Option<Implementation>,
    /// What it offers.
    pub capabilities: ServerCapabilities,
    /// Its instructions for the model, if any.
    pub instructions: Option<String>,
    /// The revision spoken.
    pub version: String,
}

impl std::fmt::Debug for dyn Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Answers")
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    async fn open(
        builder: ClientBuilder,
        connection: Transport,
        child: Option<tokio::process::Child>,
        listeners: Listeners,
    ) -> Result<Self, ClientError> {
        let mut capabilities = builder.answers.capabilities();
        if builder.tasks {
            capabilities
                .extensions
                .get_or_insert_with(Map::new)
                .insert(TASKS_EXTENSION.to_owned(), json!({}));
        }
        let mut client = Self {
            connection,
            era: Era::Modern,
            capabilities,
            info: builder.info,
            server: ServerDescription {
                info: None,
                capabilities: ServerCapabilities::default(),
                instructions: None,
                version: MODERN.to_owned(),
            },
            answers: builder.answers,
            max_rounds: builder.max_rounds,
            request_timeout: builder.request_timeout,
            wants_progress: builder.notifications.is_some(),
            next_id: AtomicU64::new(1),
            mirrored: Mutex::new(None),
            listeners,
            _child: child,
        };
        if builder.era != EraChoice::Session {
            client.connection.speak(Some(MODERN));
            match client.discover(builder.probe_timeout).await {
                Ok(description) => {
                    client.server = description;
                    return Ok(client);
                }
                Err(error) if builder.era == EraChoice::Modern => return Err(error),
                Err(error) => {
                    tracing::debug!(%error, "no discover result: opening a 2025-11-25 session");
                }
            }
        }
        client.era = Era::Session;
        client.connection.speak(None);
        client.server = client.initialize().await?;
        Ok(client)
    }

    /// `server/discover`, within `timeout`: a discover result naming 2026-07-28. A server
    /// that refuses the revision (`-32022`) while listing 2026-07-28 among those it supports
    /// is asked once more.
    async fn discover(&self, timeout: Duration) -> Result<ServerDescription, ClientError> {
        match self.discover_once(timeout).await {
            Err(ClientError::Server(error))
                if error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                    && supports_modern(&error) =>
            {
                tracing::debug!("the server refused {MODERN} but lists it: asking again");
                self.discover_once(timeout).await
            }
            other => other,
        }
    }

    async fn discover_once(&self, timeout: Duration) -> Result<ServerDescription, ClientError> {
        let answer = tokio::time::timeout(timeout, self.send(methods::DISCOVER, Map::new()))
            .await
            .map_err(|_| ClientError::TimedOut {
                method: methods::DISCOVER.to_owned(),
                after: timeout,
            })??;
        let discovered: DiscoverResult = parse(methods::DISCOVER, answer)?;
        if !discovered.supported_versions.iter().any(|v| v == MODERN) {
            return Err(ClientError::Malformed {
                method: methods::DISCOVER.to_owned(),
                reason: format!(
                    "the server supports {:?}, not {MODERN}",
                    discovered.supported_versions
                ),
            });
        }
        Ok(ServerDescription {
            info: discovered
                .meta
                .as_ref()
                .and_then(|meta| meta.get("io.modelcontextprotocol/serverInfo"))
                .and_then(|info| serde_json::from_value(info.clone()).ok()),
            capabilities: discovered.capabilities,
            instructions: discovered.instructions,
            version: MODERN.to_owned(),
        })
    }

    /// `initialize`, then `notifications/initialized`.
    async fn initialize(&self) -> Result<ServerDescription, ClientError> {
        let params = json!({
            "protocolVersion": SESSION,
            "capabilities": self.capabilities,
            "clientInfo": self.info,
        });
        let request = Outgoing {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            method: "initialize",
            params,
            headers: Vec::new(),
        };
        let answer = self.connection.request(request).await?;
        let initialized: InitializeResult = parse("initialize", answer)?;
        self.connection.speak(Some(&initialized.protocol_version));
        self.connection
            .notify("notifications/initialized", json!({}))
            .await?;
        self.connection.listen();
        Ok(ServerDescription {
            info: Some(initialized.server_info),
            capabilities: initialized.capabilities,
            instructions: initialized.instructions,
            version: initialized.protocol_version,
        })
    }

    /// The era this connection speaks.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The `Mcp-Session-Id` of a 2025-11-25 session over HTTP, if the server handed one out.
    pub fn session_id(&self) -> Option<String> {
        self.connection.session_id()
    }

    /// What the server said about itself.
    pub fn server(&self) -> &ServerDescription {
        &self.server
    }

    /// The `_meta` every 2026-07-28 request carries.
    fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": self.info,
        })
    }

    /// Sends `method` with `params`, adding `_meta` on the 2026-07-28 wire.
    async fn send(&self, method: &str, params: Map<String, Value>) -> Result<Value, ClientError> {
        self.send_with(method, params, Vec::new()).await
    }

    /// Sends `method` with `params` and, over HTTP, the extra `headers`.
    async fn send_with(
        &self,
        method: &str,
        mut params: Map<String, Value>,
        headers: Vec<(String, String)>,
    ) -> Result<Value, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if self.era == Era::Modern {
            params.insert("_meta".to_owned(), self.meta());
        }
        let reports_progress = [
            methods::TOOLS_CALL,
            methods::PROMPTS_GET,
            methods::RESOURCES_READ,
        ];
        if self.wants_progress && reports_progress.contains(&method) {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Value::Object(meta) = meta {
                meta.insert("progressToken".to_owned(), json!(id));
            }
        }
        let request = Outgoing {
            id,
            method,
            params: Value::Object(params),
            headers,
        };
        let mut pending = Pending {
            cancel: Some((self.connection.notifier(), self.cancellation(id))),
        };
        let answer = match self.request_timeout {
            None => self.connection.request(request).await,
            Some(limit) => tokio::time::timeout(limit, self.connection.request(request))
                .await
                .unwrap_or_else(|_| {
                    Err(ClientError::TimedOut {
                        method: method.to_owned(),
                        after: limit,
                    })
                }),
        };
        if !matches!(answer, Err(ClientError::TimedOut { .. })) {
            pending.cancel = None;
        }
        answer
    }

    /// The params of `notifications/cancelled` for request `id`.
    fn cancellation(&self, id: u64) -> Value {
        let mut params = json!({"requestId": id, "reason": "the client stopped waiting"});
        if self.era == Era::Modern {
            params["_meta"] = self.meta();
        }
        params
    }

    /// Whether the server answers: `ping` in a 2025-11-25 session; `server/discover` on the
    /// 2026-07-28 wire, which has no `ping`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = match self.era {
            Era::Modern => methods::DISCOVER,
            Era::Session => "ping",
        };
        self.send(method, Map::new()).await.map(drop)
    }

    /// Every tool, all pages read. A tool whose `x-mcp-header` annotations break the rules of
    /// SEP-2243 is left out (clients must not call it), with a warning naming it.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut tools: Vec<Tool> = self.list_all(methods::TOOLS_LIST, "tools").await?;
        let mut mirrored = HashMap::new();
        tools.retain(|tool| match param_headers::scan(&tool.input_schema) {
            Ok(found) => {
                if mirrored.len() < MAX_REMEMBERED_TOOLS {
                    mirrored.insert(tool.name.clone(), found);
                }
                true
            }
            Err(invalid) => {
                tracing::warn!(tool = %tool.name, %invalid, "a tool with an invalid x-mcp-header left out");
                false
            }
        });
        *self.mirrored.lock().unwrap_or_else(PoisonError::into_inner) = Some(mirrored);
        Ok(tools)
    }

    /// The `Mcp-Param-*` headers of a call of `name` with `arguments`, over HTTP on the
    /// 2026-07-28 wire (the tools are listed first if they were not).
    async fn param_headers(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Result<Vec<(String, String)>, ClientError> {
        if self.era != Era::Modern || !self.connection.is_http() {
            return Ok(Vec::new());
        }
        let listed = self
            .mirrored
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        if !listed {
            self.list_tools().await?;
        }
        let mirrored = self.mirrored.lock().unwrap_or_else(PoisonError::into_inner);
        let found = mirrored.as_ref().and_then(|tools| tools.get(name));
        Ok(found
            .into_iter()
            .flatten()
            .filter_map(|param| {
                let value = param.value_in(arguments)?;
                Some((param.header_name(), param_headers::header_value(value)?))
            })
            .collect())
    }

    /// Every prompt, all pages read.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all(methods::PROMPTS_LIST, "prompts").await
    }

    /// Every resource, all pages read.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all(methods::RESOURCES_LIST, "resources").await
    }

    /// Every resource template, all pages read.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates")
            .await
    }

    async fn list_all<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".to_owned(), Value::String(cursor));
            }
            let mut page = self.send(method, params).await?;
            let listed = page.get_mut(field).map(Value::take).unwrap_or(Value::Null);
            items.extend(parse::<Vec<T>>(method, listed)?);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(items),
            }
        }
        Err(ClientError::Malformed {
            method: method.to_owned(),
            reason: format!("still a next page after {MAX_PAGES} pages"),
        })
    }

    /// Calls the tool `name` with `arguments`, answering whatever it asks on the way.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        let arguments = arguments_of(methods::TOOLS_CALL, arguments)?;
        let headers = self.param_headers(name, &arguments).await?;
        let mut params = Map::new();
        params.insert("name".to_owned(), json!(name));
        params.insert("arguments".to_owned(), arguments);
        self.rounds(methods::TOOLS_CALL, params, headers).await
    }

    /// Gets the prompt `name` with `arguments`, answering whatever it asks on the way.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<GetPromptResult, ClientError> {
        let mut params = Map::new();
        params.insert("name".to_owned(), json!(name));
        params.insert(
            "arguments".to_owned(),
            arguments_of(methods::PROMPTS_GET, arguments)?,
        );
        self.rounds(methods::PROMPTS_GET, params, Vec::new()).await
    }

    /// Reads the resource at `uri`, answering whatever it asks on the way.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let mut params = Map::new();
        params.insert("uri".to_owned(), json!(uri));
        self.rounds(methods::RESOURCES_READ, params, Vec::new())
            .await
    }

    /// Completes the argument `argument`, typed so far as `value`, of a prompt or resource
    /// template, with the `context` of arguments already chosen.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: Option<Map<String, Value>>,
    ) -> Result<CompleteResult, ClientError> {
        let mut params = Map::new();
        params.insert("ref".to_owned(), json!(reference));
        params.insert(
            "argument".to_owned(),
            json!({"name": argument, "value": value}),
        );
        if let Some(arguments) = context {
            params.insert("context".to_owned(), json!({"arguments": arguments}));
        }
        parse(
            methods::COMPLETION_COMPLETE,
            self.send(methods::COMPLETION_COMPLETE, params).await?,
        )
    }

    /// Opens a `subscriptions/listen` (2026-07-28) for what `filter` asks, and waits for the
    /// server's acknowledgement: the [`Subscription`] yields the notifications it carries
    /// until the server ends it, and ends the listen when dropped. A 2025-11-25 session has no
    /// listen: its notifications go to [`ClientBuilder::on_notification`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use typemcp_client::Client;
    /// use typemcp_client::typemcp_core::protocol::SubscriptionFilter;
    /// use typemcp_server::{RequestContext, Server, tool};
    ///
    /// /// Adds a tool, as far as clients can tell.
    /// #[tool]
    /// async fn grow(ctx: RequestContext) -> &'static str {
    ///     ctx.server().notify_tools_list_changed();
    ///     "grown"
    /// }
    ///
    /// let server = Server::builder().tool(grow).build()?;
    /// # let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    /// # let (read, write) = tokio::io::split(server_end);
    /// # tokio::spawn(server.serve_io(read, write));
    /// # let (read, write) = tokio::io::split(client_end);
    /// let client = Client::builder().connect_io(read, write).await?;
    /// let mut filter = SubscriptionFilter::default();
    /// filter.tools_list_changed = Some(true);
    /// let mut changes = client.listen(filter).await?;
    /// client.call_tool("grow", serde_json::json!({})).await?;
    /// let changed = changes.next().await.expect("a notification");
    /// assert_eq!(changed.method, "notifications/tools/list_changed");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let method = methods::SUBSCRIPTIONS_LISTEN;
        if self.era != Era::Modern {
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: "a 2025-11-25 session has no subscriptions/listen".to_owned(),
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, mut notifications) = tokio::sync::mpsc::channel(LISTEN_BACKLOG);
        {
            let mut listeners = self
                .listeners
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if listeners.len() >= MAX_LISTENS {
                return Err(ClientError::Malformed {
                    method: method.to_owned(),
                    reason: format!("already {MAX_LISTENS} listens open on this client"),
                });
            }
            listeners.insert(id, sender);
        }
        let forget = |listeners: &Listeners| {
            listeners
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
        };
        let mut params = filter_params(&filter);
        params["_meta"] = self.meta();
        let request = Outgoing {
            id,
            method,
            params,
            headers: Vec::new(),
        };
        let (mut done, running) = match self.connection.start(request).await {
            Ok(started) => started,
            Err(error) => {
                forget(&self.listeners);
                return Err(error);
            }
        };
        let acknowledged = tokio::select! {
            first = notifications.recv() => first,
            ended = &mut done => {
                forget(&self.listeners);
                return Err(match ended {
                    Ok(Err(error)) => error,
                    _ => ClientError::Malformed {
                        method: method.to_owned(),
                        reason: "the listen ended before it was acknowledged".to_owned(),
                    },
                });
            }
        };
        let honoured = acknowledged
            .filter(|first| first.method == methods::SUBSCRIPTIONS_ACKNOWLEDGED)
            .and_then(|ack| ack.params.get("notifications").cloned())
            .and_then(|honoured| serde_json::from_value(honoured).ok());
        let Some(honoured) = honoured else {
            forget(&self.listeners);
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: "the first message of the listen is not its acknowledgement".to_owned(),
            });
        };
        Ok(Subscription {
            id,
            honoured,
            notifications,
            done,
            ended: false,
            listeners: Arc::clone(&self.listeners),
            cancel: (!self.connection.is_http()).then(|| self.connection.notifier()),
            _request: running,
        })
    }

    /// Ends the connection: over HTTP, a 2025-11-25 session is deleted on the server (a
    /// client dropped without `close` leaves it to expire).
    pub async fn close(self) -> Result<(), ClientError> {
        self.connection.close().await
    }

    /// Sends `method` until it completes: on the 2026-07-28 wire each `input_required`
    /// result's questions are answered and the call retried with the newest answers and the
    /// echoed `requestState`, untouched; on a session the server pushes its questions while
    /// the one request waits, and they are answered as they come.
    async fn rounds<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Map<String, Value>,
        headers: Vec<(String, String)>,
    ) -> Result<T, ClientError> {
        if self.era == Era::Session {
            return parse(method, self.send_with(method, params, headers).await?);
        }
        let mut retry = params.clone();
        for round in 1..=self.max_rounds {
            let answer = self.send_with(method, retry, headers.clone()).await?;
            if answer.get("resultType").and_then(Value::as_str) == Some("task") {
                return self.follow_task(method, answer, round).await;
            }
            let asked = match parse::<Outcome<T>>(method, answer)? {
                Outcome::Complete(result) => return Ok(result),
                Outcome::InputRequired(asked) => asked,
            };
            retry = params.clone();
            let mut responses = Map::new();
            for (key, request) in asked.input_requests.iter().flatten() {
                let question = Question {
                    key: Some(key),
                    round: Some(round),
                    request,
                };
                let reply = self.answers.answer(question).await?;
                responses.insert(key.clone(), reply.respond(&question)?);
            }
            if !responses.is_empty() {
                retry.insert("inputResponses".to_owned(), Value::Object(responses));
            }
            if let Some(state) = asked.request_state {
                retry.insert("requestState".to_owned(), Value::String(state));
            }
        }
        Err(ClientError::TooManyRounds(self.max_rounds))
    }
}

impl Client {
    /// Follows the task `created` announced until it ends: its questions answered through
    /// `tasks/update` (rounds counted on from `round`), its result parsed as `T`.
    async fn follow_task<T: DeserializeOwned>(
        &self,
        method: &str,
        created: Value,
        mut round: u32,
    ) -> Result<T, ClientError> {
        // The task's fields are flat in the result.
        let task = &created;
        let Some(task_id) = task
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: "a task result without a task id".to_owned(),
            });
        };
        let mut interval = poll_interval(task);
        let mut watch = TaskWatch {
            cancel: Some((self.connection.notifier(), self.task_params(&task_id))),
        };
        let outcome = loop {
            tokio::time::sleep(interval).await;
            let mut polled = self.send(TASKS_GET, self.task_params_map(&task_id)).await?;
            interval = poll_interval(&polled);
            match polled.get("status").and_then(Value::as_str) {
                Some("working") => {}
                Some("input_required") => {
                    if round >= self.max_rounds {
                        break Err(ClientError::TooManyRounds(self.max_rounds));
                    }
                    round += 1;
                    let asked = polled.get_mut("inputRequests").map(Value::take);
                    let asked: InputRequests = parse(TASKS_GET, asked.unwrap_or(Value::Null))?;
                    let mut responses = Map::new();
                    for (key, request) in &asked {
                        let question = Question {
                            key: Some(key),
                            round: Some(round),
                            request,
                        };
                        let reply = self.answers.answer(question).await?;
                        responses.insert(key.clone(), reply.respond(&question)?);
                    }
                    let mut params = self.task_params_map(&task_id);
                    params.insert("inputResponses".to_owned(), Value::Object(responses));
                    self.send(TASKS_UPDATE, params).await?;
                }
                Some("completed") => {
                    let result = polled.get_mut("result").map(Value::take);
                    break parse(method, result.unwrap_or(Value::Null));
                }
                Some("failed") => {
                    let error = polled.get_mut("error").map(Value::take);
                    break Err(match error.and_then(|e| serde_json::from_value(e).ok()) {
                        Some(error) => ClientError::Server(error),
                        None => ClientError::Malformed {
                            method: TASKS_GET.to_owned(),
                            reason: "a failed task without its error".to_owned(),
                        },
                    });
                }
                Some("cancelled") => break Err(ClientError::TaskCancelled { task_id }),
                other => {
                    break Err(ClientError::Malformed {
                        method: TASKS_GET.to_owned(),
                        reason: format!("unknown task status {other:?}"),
                    });
                }
            }
        };
        watch.cancel = None;
        outcome
    }

    /// `{"taskId": …}`, with `_meta` on the 2026-07-28 wire, as a notification's params.
    fn task_params(&self, task_id: &str) -> Value {
        let mut params = self.task_params_map(task_id);
        if self.era == Era::Modern {
            params.insert("_meta".to_owned(), self.meta());
        }
        Value::Object(params)
    }

    fn task_params_map(&self, task_id: &str) -> Map<String, Value> {
        Map::from_iter([("taskId".to_owned(), json!(task_id))])
    }
}

/// How long to wait before polling a task again: the server's `pollIntervalMs` (in a task
/// or a `tasks/get` result), within 10 ms and 5 s; 500 ms when it gives none.
fn poll_interval(task: &Value) -> Duration {
    let millis = task
        .get("pollIntervalMs")
        .and_then(Value::as_u64)
        .unwrap_or(500);
    Duration::from_millis(millis.clamp(10, 5_000))
}

/// A task being followed: unless it ended, dropping it (the caller gave up) cancels the task
/// with `tasks/cancel`.
struct TaskWatch {
    cancel: Option<(Notifier, Value)>,
}

impl Drop for TaskWatch {
    fn drop(&mut self) {
        if let Some((notifier, params)) = self.cancel.take() {
            notifier.request_later(TASKS_CANCEL, params);
        }
    }
}

/// A request in flight: unless it was answered, dropping it (the caller gave up on the
/// future, or its time ran out) tells the server with `notifications/cancelled`.
struct Pending {
    cancel: Option<(Notifier, Value)>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some((notifier, params)) = self.cancel.take() {
            notifier.notify_later("notifications/cancelled", params);
        }
    }
}

/// Whether a `-32022` error lists 2026-07-28 among the revisions the server supports.
fn supports_modern(error: &McpError) -> bool {
    error
        .data
        .as_ref()
        .and_then(|data| data.get("supported"))
        .and_then(Value::as_array)
        .is_some_and(|supported| supported.iter().any(|v| v == MODERN))
}

/// `arguments` as a JSON object.
fn arguments_of(method: &str, arguments: impl Serialize) -> Result<Value, ClientError> {
    match serde_json::to_value(arguments) {
        Ok(Value::Null) => Ok(Value::Object(Map::new())),
        Ok(object @ Value::Object(_)) => Ok(object),
        Ok(_) => Err(ClientError::Malformed {
            method: method.to_owned(),
            reason: "the arguments are not an object".to_owned(),
        }),
        Err(error) => Err(ClientError::Malformed {
            method: method.to_owned(),
            reason: error.to_string(),
        }),
    }
}

/// The server's answer to `method` as `T`.
fn parse<T: DeserializeOwned>(method: &str, answer: Value) -> Result<T, ClientError> {
    serde_json::from_value(answer).map_err(|error| ClientError::Malformed {
        method: method.to_owned(),
        reason: error.to_string(),
    })
}
