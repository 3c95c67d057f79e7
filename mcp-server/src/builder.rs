//! Building a server: identity, what it offers, settings, and the user's tower layers,
//! put together once around the server's own service (the composition root: it sits above
//! the service it assembles).

use std::sync::Arc;
use std::time::Duration;

use tower::{Layer, Service};
use typemcp_core::protocol::{CacheScope, Implementation};

use crate::registry::{
    AnyResourceRoute, IntoPromptRoute, IntoResourceRoute, IntoToolRoute, Registry,
};
use crate::server::{BuildError, CachePolicy, Checks, Parts, Server, ServerConfig};
use crate::service::{BoxError, BoxMcpService, McpRequest, McpResponse, McpService};

/// Builds a [`Server`].
///
/// ```
/// use std::time::Duration;
/// use typemcp_server::{Server, ToolRoute, ResourceRoute};
/// use typemcp_core::protocol::CacheScope;
///
/// let server = Server::builder()
///     .name("notes")
///     .version("0.3.0")
///     .instructions("Use `search` before `read`.")
///     .tool(ToolRoute::new("search", || async { "[]" }).description("Search notes."))
///     .resource(ResourceRoute::new("notes://index", "index", || async { "…" }))
///     .list_cache(Duration::from_secs(300), CacheScope::Public)
///     .build()
///     .unwrap();
/// assert_eq!(server.info().name, "notes");
/// ```
#[derive(Debug, Default)]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<crate::ToolRoute>,
    prompts: Vec<crate::PromptRoute>,
    resources: Vec<AnyResourceRoute>,
    skills: Vec<crate::skills::SkillSource>,
    state: http::Extensions,
    config: ServerConfig,
    unsigned_state: bool,
    layers: Layers,
    task_store: Option<TaskStoreSlot>,
}

/// The user's layers, innermost first, each waiting for the service it wraps: applied once,
/// when the server is built, around the server's own service.
#[derive(Default)]
struct Layers(Vec<Box<dyn FnOnce(BoxMcpService) -> BoxMcpService + Send>>);

impl std::fmt::Debug for Layers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} layers", self.0.len())
    }
}

/// The task store chosen on the builder.
struct TaskStoreSlot(Arc<dyn crate::tasks::TaskStore>);

impl std::fmt::Debug for TaskStoreSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TaskStore")
    }
}

impl Server {
    /// Starts building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::new()
    }
}

impl ServerBuilder {
    pub(crate) fn new() -> Self {
        Self {
            info: Implementation::new("mcp-server", env!("CARGO_PKG_VERSION")),
            ..Self::default()
        }
    }

    setters! {
        /// The server's programmatic name.
        pub fn name(name: impl Into<String>) |b| b.info.name = name.into();

        /// The server's version.
        pub fn version(version: impl Into<String>) |b| b.info.version = version.into();

        /// The server's display name.
        pub fn title(title: impl Into<String>) |b| b.info.title = Some(title.into());

        /// A description of the server.
        pub fn description(description: impl Into<String>) |b|
            b.info.description = Some(description.into());

        /// Instructions for the model, returned by `server/discover`.
        pub fn instructions(instructions: impl Into<String>) |b|
            b.instructions = Some(instructions.into());

        /// Adds a tool: a function declared with `#[tool]`, by its name (`.tool(add)`), or a
        /// [`ToolRoute`](crate::ToolRoute) built by hand.
        pub fn tool(tool: impl IntoToolRoute) |b| b.tools.push(tool.into_tool_route());

        /// Adds a prompt: a function declared with `#[prompt]`, by its name (`.prompt(greet)`),
        /// or a [`PromptRoute`](crate::PromptRoute) built by hand.
        pub fn prompt(prompt: impl IntoPromptRoute) |b| b.prompts.push(prompt.into_prompt_route());

        /// Adds a resource or resource template: a function declared with `#[resource]`, by its
        /// name (`.resource(room)`), or a [`ResourceRoute`](crate::ResourceRoute) or
        /// [`ResourceTemplateRoute`](crate::ResourceTemplateRoute) built by hand.
        pub fn resource(resource: impl IntoResourceRoute) |b|
            b.resources.push(resource.into_resource_route());

        /// Serves the skills of a folder tree (the skills extension, SEP-2640): each folder
        /// below `path` holding a `SKILL.md` is a skill at `skill://<its path>/`, and every
        /// file below it is one of its files. The folder is read when the server is built
        /// (and by [`Server::reload_skills`](crate::Server::reload_skills)); a malformed
        /// skill fails [`build`](Self::build) with [`BuildError::InvalidSkill`] naming the
        /// file.
        ///
        /// ```no_run
        /// let server = typemcp_server::Server::builder().skills_dir("skills").build()?;
        /// # Ok::<(), typemcp_server::BuildError>(())
        /// ```
        pub fn skills_dir(path: impl Into<std::path::PathBuf>) |b|
            b.skills.push(crate::skills::SkillSource::Folder(path.into()));

        /// Serves one skill built in code (see [`SkillBundle`](crate::SkillBundle)).
        pub fn skill(skill: crate::SkillBundle) |b|
            b.skills.push(crate::skills::SkillSource::Bundle(skill));
    }

    /// Registers shared state, read by handlers through the `State<T>` extractor.
    #[must_use]
    pub fn state<T: Clone + Send + Sync + 'static>(mut self, state: T) -> Self {
        self.state.insert(state);
        self
    }

    setters! {
        /// Caching hints for `server/discover` and list results (default: 60 s, public).
        pub fn list_cache(ttl: Duration, scope: CacheScope) |b|
            b.config.list_cache = CachePolicy::new(ttl, scope);

        /// Caching hints for `resources/read` results (default: 0 s, private).
        pub fn read_cache(ttl: Duration, scope: CacheScope) |b|
            b.config.read_cache = CachePolicy::new(ttl, scope);

        /// Splits list results into pages of `size` items (default: one page).
        pub fn page_size(size: usize) |b| b.config.page_size = Some(size.max(1));

        /// Whether to declare the (deprecated) `logging` capability and forward handler logs
        /// to clients that ask for them (default: true).
        pub fn logging(enabled: bool) |b| b.config.logging = enabled;

        /// Whether every result carries `_meta["io.modelcontextprotocol/serverInfo"]`
        /// (default: true, as the specification recommends).
        pub fn server_info_in_results(enabled: bool) |b| b.config.server_info_in_results = enabled;

        /// The largest stdio message accepted, in bytes (default
        /// [`DEFAULT_MAX_MESSAGE_BYTES`](crate::transport::DEFAULT_MAX_MESSAGE_BYTES), 4 MiB).
        /// Longer lines are answered `-32600` and skipped.
        pub fn max_message_bytes(bytes: usize) |b| b.config.max_message_bytes = bytes.max(1);

        /// How long in-flight requests may take to finish once a graceful shutdown starts
        /// (default 10 s): on SIGTERM or Ctrl-C ([`Server::serve_stdio`], [`Server::serve_http`])
        /// or when the signal of [`Server::serve_http_on`] resolves. Meanwhile new requests are
        /// refused (HTTP: 503; stdio: a JSON-RPC error), listens end, and calls in flight go on,
        /// pushed rounds of 2025-11-25 sessions included; after it, the server stops
        /// ([`Server::shutdown`]: what is left is answered with an error and its handler dropped)
        /// and the transport returns `Ok`.
        ///
        /// ```
        /// use std::time::Duration;
        /// let server = typemcp_server::Server::builder()
        ///     .shutdown_grace(Duration::from_secs(30))
        ///     .build()
        ///     .unwrap();
        /// # let _ = server;
        /// ```
        pub fn shutdown_grace(grace: Duration) |b| b.config.shutdown_grace = grace;

        /// How many stdio requests are served at once (default
        /// [`DEFAULT_MAX_IN_FLIGHT`](crate::transport::DEFAULT_MAX_IN_FLIGHT), 1024). With every
        /// place taken, the server stops reading until one is free, so a client that writes
        /// without reading holds back its own writes instead of growing the server. A request waiting for the
        /// client's answer to a pushed request gives its place back while it waits. Over HTTP,
        /// bound concurrency with a layer ([`ServerBuilder::layer`] and
        /// `tower::limit::ConcurrencyLimitLayer`).
        ///
        /// ```
        /// let server = typemcp_server::Server::builder().max_in_flight(64).build().unwrap();
        /// # let _ = server;
        /// ```
        pub fn max_in_flight(requests: usize) |b| b.config.max_in_flight = requests.max(1);

        /// Signs and verifies `requestState` with this signer (a key from configuration, so
        /// states survive restarts and verify on every instance). Without this call the server
        /// generates a key for its own lifetime.
        pub fn request_state_signer(signer: crate::state::RequestStateSigner) |b|
            { b.config.state_signer = Some(std::sync::Arc::new(signer)); b.unsigned_state = false };

        /// Turns request-state signing off: handlers get the raw, attacker-controlled
        /// `requestState` string and must protect it themselves. `Round<S>` then refuses to work.
        pub fn without_request_state_signer() |b|
            { b.config.state_signer = None; b.unsigned_state = true };

        /// The most rounds one multi-round request may take (default 16).
        pub fn max_rounds(rounds: u32) |b| b.config.max_rounds = rounds.max(1);

        /// On a 2025-11-25 session, where the server pushes a handler's input requests to the
        /// client and runs the handler again with the answers: the most times the handler runs
        /// for one request (default 8). A handler still asking after that fails the request.
        pub fn pushed_rounds(rounds: u32) |b| b.config.pushed_rounds = rounds.max(1);

        /// On a 2025-11-25 session: how long the server waits for the client's answer to one
        /// pushed request (`elicitation/create`, `sampling/createMessage`, `roots/list`, `ping`)
        /// before the request fails (default 5 minutes).
        pub fn pushed_answer_timeout(timeout: Duration) |b|
            b.config.pushed_answer_timeout = timeout;

        /// Where tasks are kept (the tasks extension; see [`tasks`](crate::tasks)): in memory by
        /// default ([`MemoryTaskStore`](crate::tasks::MemoryTaskStore)); a shared store such as
        /// `RedisTaskStore` (feature `redis`) lets every instance behind a load balancer answer
        /// for every task.
        pub fn task_store(store: impl crate::tasks::TaskStore) |b|
            b.task_store = Some(TaskStoreSlot(Arc::new(store)));

        /// How long a task is kept after it was created (its `ttlMs`; default one hour, at
        /// least one second). Past it, `tasks/get` finds nothing.
        pub fn task_ttl(ttl: Duration) |b| b.config.tasks.ttl = ttl.max(Duration::from_secs(1));

        /// How often clients should poll a task (its `pollIntervalMs`; default 500 ms, at least
        /// 10 ms). A running task also checks this often whether it was cancelled elsewhere.
        pub fn task_poll_interval(interval: Duration) |b|
            b.config.tasks.poll_interval = interval.max(Duration::from_millis(10));

        /// How long a call of a task tool may run before it becomes a task (default zero: as
        /// soon as the handler would wait). A handler done within it answers with its result,
        /// the shortcut the tasks extension allows.
        pub fn task_grace(grace: Duration) |b| b.config.tasks.grace = grace;

        /// The most bytes a task keeps of its call: the arguments the tool declares (members of
        /// its input schema's `properties`; others are never kept) and the request's `_meta`, as
        /// JSON; the same bound holds the answers of one open input round (default 64 KiB).
        ///
        /// Protects the task store from calls that park client-sized data for the task's life.
        /// A call over it is not refused: it runs as a plain call, answered in the request (the
        /// tasks extension lets any call answer directly). Answers over it get `-32602`.
        ///
        /// ```
        /// let server = typemcp_server::Server::builder().max_task_call_bytes(256 * 1024).build().unwrap();
        /// # let _ = server;
        /// ```
        pub fn max_task_call_bytes(bytes: usize) |b| b.config.tasks.max_call_bytes = bytes.max(1);

        /// The most bytes of a task's result, as JSON (default 1 MiB). A result over it fails the
        /// task with `-32603` and a message saying so (never a truncated result): protects the
        /// task store, which keeps results for the task's `ttlMs`, from tools whose output
        /// grows with their input.
        ///
        /// ```
        /// let server = typemcp_server::Server::builder().max_task_result_bytes(8 * 1024 * 1024).build().unwrap();
        /// # let _ = server;
        /// ```
        pub fn max_task_result_bytes(bytes: usize) |b|
            b.config.tasks.max_result_bytes = bytes.max(1);

        /// The most live tasks (working or `input_required`) one caller may have at once
        /// (default 100, at least one). The caller is the authenticated subject, else the peer
        /// address (IPv6 by /64), else anonymous (stdio, in-process): see
        /// [`context`](crate::context). Keeps one caller from filling the task store that every
        /// caller shares: a creation beyond it gets
        /// [`TASK_QUOTA_EXCEEDED`](crate::tasks::TASK_QUOTA_EXCEEDED) (`-32029`), naming the
        /// limit, while other callers still get tasks; a task that settles (completes, fails, is
        /// cancelled) frees its slot at once. The stores that come with the SDK count it
        /// atomically, `RedisTaskStore` across every instance sharing it.
        ///
        /// ```
        /// let server = typemcp_server::Server::builder().max_live_tasks_per_caller(20).build().unwrap();
        /// # let _ = server;
        /// ```
        pub fn max_live_tasks_per_caller(tasks: usize) |b|
            b.config.tasks.max_live_per_caller = tasks.max(1);

        /// The most `taskIds` one `subscriptions/listen` may name (default 256). A request
        /// naming more is refused with `-32602` before any task is looked up: bounds the work
        /// (and the store reads, one batch per poll interval) one listen request costs.
        ///
        /// ```
        /// let server = typemcp_server::Server::builder().max_listen_task_ids(64).build().unwrap();
        /// # let _ = server;
        /// ```
        pub fn max_listen_task_ids(ids: usize) |b| b.config.tasks.max_listen_task_ids = ids;

        /// Declares the tools capability even with no tool registered yet (for tools added
        /// while the server runs).
        pub fn enable_tools() |b| b.config.enabled.tools = true;

        /// Declares the prompts capability even with no prompt registered yet.
        pub fn enable_prompts() |b| b.config.enabled.prompts = true;

        /// Declares the resources capability even with no resource registered yet.
        pub fn enable_resources() |b| b.config.enabled.resources = true;

        /// Declares the completions capability even when no prompt or template completes.
        pub fn enable_completions() |b| b.config.enabled.completions = true;
    }

    /// Wraps the MCP service in a tower layer, for every transport: a timeout, a concurrency
    /// limit, tracing, metrics, your own authorization. Each call wraps the layers added
    /// before it, so the last one added sees a request first. A layer's error is answered as
    /// a JSON-RPC error `-32603` naming it (see [`service`](crate::service)).
    ///
    /// ```
    /// use std::time::Duration;
    /// use typemcp_server::{Server, ToolRoute};
    ///
    /// let server = Server::builder()
    ///     .tool(ToolRoute::new("hi", || async { "hello" }).description("Greets."))
    ///     .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(30)))
    ///     .layer(tower::limit::ConcurrencyLimitLayer::new(64))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<BoxMcpService> + Send + 'static,
        L::Service: Service<McpRequest, Response = McpResponse> + Clone + Send + Sync + 'static,
        <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
        <L::Service as Service<McpRequest>>::Future: Send + 'static,
    {
        self.layers.0.push(Box::new(move |inner| {
            BoxMcpService::new(layer.layer(inner))
        }));
        self
    }

    /// Checks the registrations and builds the server.
    pub fn build(mut self) -> Result<Server, BuildError> {
        if self.config.state_signer.is_none() && !self.unsigned_state {
            let signer = crate::state::RequestStateSigner::generate()?;
            self.config.state_signer = Some(std::sync::Arc::new(signer));
        }
        let registry = self.registry()?;
        let task_store = match self.task_store {
            Some(TaskStoreSlot(store)) => store,
            None => Arc::new(crate::tasks::MemoryTaskStore::new()),
        };
        let tasks = crate::tasks::Tasks::new(task_store, self.config.tasks);
        let parts = Parts {
            info: self.info,
            instructions: self.instructions,
            registry,
            state: self.state,
            config: self.config,
            tasks,
        };
        let Layers(layers) = self.layers;
        Ok(Server::assemble(parts, |server| {
            if layers.is_empty() {
                return None;
            }
            let innermost = BoxMcpService::new(McpService::innermost(server));
            let stack = layers
                .into_iter()
                .fold(innermost, |inner, wrap| wrap(inner));
            Some(Box::new(stack))
        }))
    }

    fn registry(&self) -> Result<Registry, BuildError> {
        let mut registry = Registry {
            skills: Arc::new(crate::skills::SkillSet::load(self.skills.clone())?),
            ..Registry::default()
        };
        let checks = Checks {
            states: &self.state,
            has_signer: self.config.state_signer.is_some(),
        };
        for tool in &self.tools {
            let name = &tool.tool().name;
            if registry.tools.contains_key(name) {
                return Err(BuildError::DuplicateTool(name.clone()));
            }
            let tool = checks.tool(tool)?;
            crate::server::warn_on_unusual_name(name);
            registry.tools.insert(name.clone(), Arc::new(tool));
        }
        for prompt in &self.prompts {
            let name = &prompt.prompt().name;
            if registry.prompts.contains_key(name) {
                return Err(BuildError::DuplicatePrompt(name.clone()));
            }
            checks.prompt(prompt)?;
            registry
                .prompts
                .insert(name.clone(), Arc::new(prompt.clone()));
        }
        for resource in &self.resources {
            checks.resource(resource)?;
            match resource {
                AnyResourceRoute::Static(route) => {
                    let uri = &route.resource().uri;
                    if registry.resources.contains_key(uri) {
                        return Err(BuildError::DuplicateResource(uri.clone()));
                    }
                    registry
                        .resources
                        .insert(uri.clone(), Arc::new(route.clone()));
                }
                AnyResourceRoute::Template(route) => {
                    let template = &route.resource_template().uri_template;
                    if registry
                        .templates
                        .iter()
                        .any(|t| &t.resource_template().uri_template == template)
                    {
                        return Err(BuildError::DuplicateResource(template.clone()));
                    }
                    registry.templates.push(Arc::new(route.clone()));
                }
            }
        }
        Ok(registry)
    }
}
