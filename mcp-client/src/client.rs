//! [`Client`]: one connection to a server, the era chosen when it opens, and the server's
//! methods as typed calls that run the `input_required` rounds themselves.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use typemcp_core::protocol::param_headers;
use typemcp_core::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CompletionReference, DiscoverResult,
    GetPromptResult, Implementation, InitializeResult, Outcome, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, ServerCapabilities, TASKS_EXTENSION, Tool, methods,
};
use typemcp_core::{ErrorCode, McpError};

use crate::answers::{Answers, Question};
use crate::error::ClientError;
use crate::transport::{Listeners, Notifier, Outgoing, Transport};

/// The mirrored arguments of the tools listed: what a call's headers are.
mod headers;
mod skills;
/// Following a call that became a task: part of a call, so a part of the client.
mod tasks;

use headers::{HeaderTable, Lookup};
pub use skills::LoadedSkill;

/// The revision of the 2026-07-28 wire.
pub const MODERN: &str = "2026-07-28";
/// The revision of the sessions a client opens with `initialize`.
pub const SESSION: &str = "2025-11-25";

/// The session revisions a server may answer `initialize` with: [`SESSION`], and the earlier
/// ones whose messages this client reads the same way.
const SESSION_REVISIONS: [&str; 3] = [SESSION, "2025-06-18", "2025-03-26"];

/// The most pages a list is read in, whatever cursors the server hands out.
const MAX_PAGES: usize = 1_000;

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
    pub(crate) connection: Transport,
    pub(crate) era: Era,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) info: Implementation,
    pub(crate) server: ServerDescription,
    pub(crate) answers: Arc<dyn Answers>,
    pub(crate) max_rounds: u32,
    pub(crate) request_timeout: Option<Duration>,
    /// How long opening the connection (and a listen's acknowledgement) may take.
    pub(crate) probe_timeout: Duration,
    /// Whether someone takes the server's notifications (and so progress is asked for).
    pub(crate) wants_progress: bool,
    pub(crate) next_id: AtomicU64,
    /// The mirrored arguments (`x-mcp-header`) of the tools listed, for HTTP calls.
    pub(crate) mirrored: Mutex<Option<HeaderTable>>,
    /// The open listens' notification channels.
    pub(crate) listeners: Listeners,
    /// Held while the tools are listed again for a call (one listing for concurrent calls).
    pub(crate) listing: tokio::sync::Mutex<()>,
    /// Held while a 2025-11-25 session the server ended is opened anew.
    pub(crate) reopening: tokio::sync::Mutex<()>,
    /// Set when the server ended the session, until a new one is open: a request sent
    /// meanwhile (or after a failed attempt) opens it first.
    pub(crate) session_owed: std::sync::atomic::AtomicBool,
    pub(crate) _child: Option<tokio::process::Child>,
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

/// What a client is opened with: the settings of a [`crate::ClientBuilder`] that outlive
/// the connection.
pub(crate) struct Settings {
    pub(crate) answers: Arc<dyn Answers>,
    pub(crate) era: EraChoice,
    pub(crate) info: Implementation,
    pub(crate) max_rounds: u32,
    pub(crate) probe_timeout: Duration,
    pub(crate) request_timeout: Option<Duration>,
    pub(crate) wants_progress: bool,
    pub(crate) tasks: bool,
}

impl Client {
    /// Opens a client on `connection` with `settings`: `server/discover` first (unless
    /// `settings.era` asks for a session), `initialize` when the server does not know it.
    pub(crate) async fn open(
        settings: Settings,
        connection: Transport,
        child: Option<tokio::process::Child>,
        listeners: Listeners,
    ) -> Result<Self, ClientError> {
        let mut capabilities = settings.answers.capabilities();
        if settings.tasks {
            capabilities
                .extensions
                .get_or_insert_with(Map::new)
                .insert(TASKS_EXTENSION.to_owned(), json!({}));
        }
        let mut client = Self {
            connection,
            era: Era::Modern,
            capabilities,
            info: settings.info,
            server: ServerDescription {
                info: None,
                capabilities: ServerCapabilities::default(),
                instructions: None,
                version: MODERN.to_owned(),
            },
            answers: settings.answers,
            max_rounds: settings.max_rounds,
            request_timeout: settings.request_timeout,
            probe_timeout: settings.probe_timeout,
            wants_progress: settings.wants_progress,
            next_id: AtomicU64::new(1),
            mirrored: Mutex::new(None),
            listeners,
            listing: tokio::sync::Mutex::new(()),
            reopening: tokio::sync::Mutex::new(()),
            session_owed: std::sync::atomic::AtomicBool::new(false),
            _child: child,
        };
        if settings.era != EraChoice::Session {
            client.connection.speak(Some(MODERN));
            match client.discover(settings.probe_timeout).await {
                Ok(description) => {
                    client.server = description;
                    return Ok(client);
                }
                Err(error) if settings.era == EraChoice::Modern => return Err(error),
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
        let wait = self.probe_timeout;
        let answer = tokio::time::timeout(wait, self.connection.request(request))
            .await
            .map_err(|_| ClientError::TimedOut {
                method: "initialize".to_owned(),
                after: wait,
            })??;
        let initialized: InitializeResult = parse("initialize", answer)?;
        // A server may answer with an older revision it prefers; one the client cannot speak
        // ends the handshake here, not at the first request it would misread.
        if !SESSION_REVISIONS.contains(&initialized.protocol_version.as_str()) {
            // Nor is the session it opened kept (it is deleted on the server, where it can be).
            if let Err(error) = self.connection.close().await {
                tracing::debug!(%error, "the refused session could not be deleted");
            }
            return Err(ClientError::Malformed {
                method: "initialize".to_owned(),
                reason: format!(
                    "the server answered with protocol version {:?}; this client speaks {}",
                    initialized.protocol_version,
                    SESSION_REVISIONS.join(", ")
                ),
            });
        }
        self.connection.speak(Some(&initialized.protocol_version));
        self.connection
            .notify("notifications/initialized", json!({}))
            .await?;
        self.connection.listen(self.probe_timeout).await;
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
    pub(crate) fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": self.info,
        })
    }

    /// Sends `method` with `params`, adding `_meta` on the 2026-07-28 wire.
    pub(crate) async fn send(
        &self,
        method: &str,
        params: Map<String, Value>,
    ) -> Result<Value, ClientError> {
        self.send_with(method, params, Vec::new()).await
    }

    /// Sends `method` with `params` and, over HTTP, the extra `headers`. When the server
    /// ended the 2025-11-25 session (404), the client starts a new one, as the transport
    /// specification asks, and sends the request once more (the server did not run it).
    pub(crate) async fn send_with(
        &self,
        method: &str,
        params: Map<String, Value>,
        headers: Vec<(String, String)>,
    ) -> Result<Value, ClientError> {
        let in_session = self.era == Era::Session && self.connection.is_http();
        if in_session && self.session_owed.load(Ordering::SeqCst) {
            self.reopen_session().await?;
        }
        let again = in_session.then(|| (params.clone(), headers.clone()));
        match (self.send_once(method, params, headers).await, again) {
            (Err(ClientError::SessionEnded), Some((params, headers))) => {
                self.session_owed.store(true, Ordering::SeqCst);
                self.reopen_session().await?;
                self.send_once(method, params, headers).await
            }
            (answer, _) => answer,
        }
    }

    /// Starts a new 2025-11-25 session in place of the one the server ended, unless another
    /// request already did.
    async fn reopen_session(&self) -> Result<(), ClientError> {
        let _alone = self.reopening.lock().await;
        if self.connection.session_id().is_none() {
            tracing::info!("the server ended the session: starting a new one");
            self.initialize().await?;
        }
        self.session_owed.store(false, Ordering::SeqCst);
        Ok(())
    }

    async fn send_once(
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
        // Given up, the request is cancelled: by closing its stream over 2026-07-28 HTTP
        // (dropping it does), else by `notifications/cancelled`.
        let notify = !self.connection.cancels_by_closing();
        let mut pending = Pending {
            cancel: notify.then(|| (self.connection.notifier(), self.cancellation(id))),
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
        let table = HeaderTable::of(&mut tools);
        *self.mirrored.lock().unwrap_or_else(PoisonError::into_inner) = Some(table);
        Ok(tools)
    }

    /// The `Mcp-Param-*` headers of a call of `name` with `arguments`, over HTTP on the
    /// 2026-07-28 wire. A tool the last listing does not hold (added since, or unknown) has
    /// the tools listed again, once; one listed with annotations that break SEP-2243 is not
    /// called.
    async fn param_headers(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Result<Vec<(String, String)>, ClientError> {
        if self.era != Era::Modern || !self.connection.is_http() {
            return Ok(Vec::new());
        }
        let lookup = |client: &Self| {
            let table = client
                .mirrored
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            table
                .as_ref()
                .map_or(Lookup::Unseen, |table| table.lookup(name))
        };
        let mut found = lookup(self);
        if found == Lookup::Unseen {
            // One listing at a time: a call that waited finds what the other one listed.
            let _alone = self.listing.lock().await;
            found = lookup(self);
            if found == Lookup::Unseen {
                self.list_tools().await?;
                found = lookup(self);
                if found == Lookup::Unseen
                    && let Some(table) = self
                        .mirrored
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .as_mut()
                {
                    table.not_listed(name);
                }
            }
        }
        match found {
            Lookup::Listed(mirrored) => Ok(mirrored
                .iter()
                .filter_map(|param| {
                    let value = param.value_in(arguments)?;
                    Some((param.header_name(), param_headers::header_value(value)?))
                })
                .collect()),
            Lookup::Refused => Err(ClientError::Malformed {
                method: methods::TOOLS_CALL.to_owned(),
                reason: format!(
                    "the server lists {name:?} with x-mcp-header annotations that break SEP-2243: clients must not call it"
                ),
            }),
            Lookup::Unseen | Lookup::Unknown => Ok(Vec::new()),
        }
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
        self.list_all_of(method, field, Map::new()).await
    }

    /// Every item under `field` of every page of `method` called with `base` params (and
    /// each page's cursor).
    async fn list_all_of<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
        base: Map<String, Value>,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = base.clone();
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

    /// Calls the tool `name` with `arguments`, answering whatever it asks on the way. Over
    /// 2026-07-28 HTTP its mirrored arguments go as `Mcp-Param-*` headers (the tools are
    /// listed first when the client does not know the tool yet, and again when the server
    /// refuses the headers, `-32020`); a tool the server lists with `x-mcp-header`
    /// annotations that break SEP-2243 is not called.
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

    /// Sends one round of `method`; a `tools/call` whose mirrored headers the server refuses
    /// (`-32020`: its tool changed since it was listed) is sent once more, with the headers
    /// a fresh listing gives, in the same round (its answers and state kept).
    async fn send_round(
        &self,
        method: &str,
        params: Map<String, Value>,
        headers: &mut Vec<(String, String)>,
        relisted: &mut bool,
    ) -> Result<Value, ClientError> {
        let mirrors = method == methods::TOOLS_CALL
            && self.era == Era::Modern
            && self.connection.is_http()
            && !*relisted;
        let again = mirrors.then(|| params.clone());
        match (self.send_with(method, params, headers.clone()).await, again) {
            (Err(ClientError::Server(error)), Some(params))
                if error.code == ErrorCode::HEADER_MISMATCH =>
            {
                tracing::debug!("mirrored headers refused: listing the tools again");
                *relisted = true;
                self.list_tools().await?;
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
                *headers = self.param_headers(name, &arguments).await?;
                self.send_with(method, params, headers.clone()).await
            }
            (answer, _) => answer,
        }
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
        mut headers: Vec<(String, String)>,
    ) -> Result<T, ClientError> {
        if self.era == Era::Session {
            return parse(method, self.send_with(method, params, headers).await?);
        }
        let mut retry = params.clone();
        let mut relisted = false;
        for round in 1..=self.max_rounds {
            let sent = self.send_round(method, retry, &mut headers, &mut relisted);
            let answer = sent.await?;
            if answer.get("resultType").and_then(Value::as_str) == Some("task") {
                return self.follow_task(method, answer, round).await;
            }
            let asked = match parse::<Outcome<T>>(method, answer)? {
                Outcome::Complete(result) => return Ok(result),
                Outcome::InputRequired(asked) => asked,
            };
            retry = params.clone();
            let questions = asked.input_requests.iter().flatten();
            let responses = self.answer_all(questions, round).await?;
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
    /// The answers to the `questions` of round `round`, by key, each checked against its
    /// question.
    pub(crate) async fn answer_all<'q>(
        &self,
        questions: impl IntoIterator<Item = (&'q String, &'q typemcp_core::protocol::InputRequest)>,
        round: u32,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut responses = Map::new();
        for (key, request) in questions {
            let question = Question {
                key: Some(key),
                round: Some(round),
                request,
            };
            let reply = self.answers.answer(question).await?;
            responses.insert(key.clone(), reply.respond(&question)?);
        }
        Ok(responses)
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
pub(crate) fn parse<T: DeserializeOwned>(method: &str, answer: Value) -> Result<T, ClientError> {
    serde_json::from_value(answer).map_err(|error| ClientError::Malformed {
        method: method.to_owned(),
        reason: error.to_string(),
    })
}
