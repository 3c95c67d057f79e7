//! The server, as a handle its transports and handlers share. It is put together from parts
//! with one job each:
//! - who it is (`info`, `instructions`), and the settings fixed when it is built (`config`);
//! - what it offers, which can change while it runs, with the capabilities derived from it
//!   and the hub announcing each change (`catalog`);
//! - the user's tower layers around the MCP service (built by `crate::builder`, typed by
//!   `crate::service`, both above this module: kept here as an opaque slot);
//! - its lifecycle: requests in flight, and the phases of a graceful shutdown (`shutdown`).
//!
//! Serving a request is not its job: that is the dispatcher's (`crate::dispatch`), reached
//! through the MCP service.

mod catalog;
mod changes;
mod checks;
mod config;
mod shutdown;

use std::any::Any;
use std::sync::Arc;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use typemcp_core::protocol::{Implementation, ServerCapabilities};

pub(crate) use shutdown::Lifecycle;
#[cfg(feature = "http")]
pub(crate) use shutdown::Serving;

use crate::registry::{
    AnyResourceRoute, IntoPromptRoute, IntoResourceRoute, IntoToolRoute, Registry,
};

pub use crate::build_error::BuildError;
pub(crate) use catalog::Catalog;
pub(crate) use changes::Change;
pub(crate) use checks::{Checks, warn_on_unusual_name};
pub use config::CachePolicy;
pub(crate) use config::ServerConfig;

/// A configured MCP server. Cheap to clone; every clone serves the same registry.
///
/// Serve it over stdio ([`Server::serve_stdio`]), over Streamable HTTP
/// ([`Server::serve_http`], or [`Server::http_service`] inside your own axum app), or call it
/// in-process ([`Server::handle_message`]).
///
/// ```
/// use typemcp_server::{Server, ToolRoute};
///
/// let server = Server::builder()
///     .name("clock")
///     .version("1.0.0")
///     .tool(ToolRoute::new("now", || async { "12:00" }).description("The time."))
///     .build()
///     .unwrap();
/// assert!(server.capabilities().tools.is_some());
/// assert!(server.capabilities().prompts.is_none());
/// ```
#[derive(Clone, Debug)]
pub struct Server {
    shared: Arc<Shared>,
}

/// A [`Server`] that does not keep it alive: what the innermost service of the server's own
/// stack holds, since the server holds the stack.
#[derive(Debug, Clone)]
pub(crate) struct WeakServer(std::sync::Weak<Shared>);

impl WeakServer {
    /// The server, unless every handle to it was dropped.
    pub(crate) fn upgrade(&self) -> Option<Server> {
        self.0.upgrade().map(|shared| Server { shared })
    }
}

#[derive(Debug)]
struct Shared {
    info: Implementation,
    /// `info`, serialized once for the `_meta` of every result.
    info_json: Option<Box<serde_json::value::RawValue>>,
    instructions: Option<String>,
    catalog: Catalog,
    state: http::Extensions,
    config: ServerConfig,
    /// Requests in flight, draining and stopping.
    lifecycle: Arc<Lifecycle>,
    /// The user's layers around the MCP service, boxed once; `None` without any. Opaque
    /// here: the service module, which types it, is above this one.
    layers: Option<Box<dyn Any + Send + Sync>>,
    /// Tasks (the tasks extension): the store, and those running here.
    tasks: crate::tasks::Tasks,
}

/// What a server is made of, as the builder checked it.
pub(crate) struct Parts {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) registry: Registry,
    pub(crate) state: http::Extensions,
    pub(crate) config: ServerConfig,
    pub(crate) tasks: crate::tasks::Tasks,
}

impl Server {
    /// Puts a server together from its parts and the stack of layers `layers` builds
    /// around the server's own service (which holds the server weakly: see [`WeakServer`]).
    pub(crate) fn assemble(
        parts: Parts,
        layers: impl FnOnce(WeakServer) -> Option<Box<dyn Any + Send + Sync>>,
    ) -> Self {
        // A self-description of strings always serializes; if it ever did not, results
        // would go out without it rather than the server failing to build.
        let info_json = serde_json::value::to_raw_value(&parts.info).ok();
        let shared = Arc::new_cyclic(|shared| Shared {
            info_json,
            catalog: Catalog::new(
                parts.registry,
                parts.config.enabled.clone(),
                parts.config.logging,
            ),
            info: parts.info,
            instructions: parts.instructions,
            state: parts.state,
            config: parts.config,
            lifecycle: Arc::new(Lifecycle::new()),
            layers: layers(WeakServer(shared.clone())),
            tasks: parts.tasks,
        });
        Self { shared }
    }

    /// The server's tasks.
    pub(crate) fn tasks(&self) -> &crate::tasks::Tasks {
        &self.shared.tasks
    }

    /// The user's layers around the MCP service, if any were registered (typed by the
    /// service module).
    pub(crate) fn layers_slot(&self) -> Option<&(dyn Any + Send + Sync)> {
        self.shared.layers.as_deref()
    }

    /// The server's self-description.
    pub fn info(&self) -> &Implementation {
        &self.shared.info
    }

    /// The server's instructions for the model.
    pub fn instructions(&self) -> Option<&str> {
        self.shared.instructions.as_deref()
    }

    /// Capabilities, derived from what is registered now (and what the builder enabled).
    pub fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::clone(&self.shared.catalog.capabilities())
    }

    /// The capabilities, shared rather than copied (the dispatcher's view).
    pub(crate) fn caps(&self) -> Arc<ServerCapabilities> {
        self.shared.catalog.capabilities()
    }

    /// Registers (or replaces) a tool while the server runs, and notifies listeners. Fails,
    /// leaving the server unchanged, on the same mistakes [`ServerBuilder::build`](crate::ServerBuilder::build) refuses.
    pub fn add_tool(&self, tool: impl IntoToolRoute) -> Result<(), BuildError> {
        let route = self.checks().tool(&tool.into_tool_route())?;
        self.update(|r| {
            r.tools.insert(route.tool().name.clone(), Arc::new(route));
        });
        self.notify(Change::ToolsListChanged);
        Ok(())
    }

    /// Removes a tool; returns whether it existed. Listeners are notified when it did.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = self.update(|r| r.tools.shift_remove(name).is_some());
        if removed {
            self.notify(Change::ToolsListChanged);
        }
        removed
    }

    /// Registers (or replaces) a prompt while the server runs, and notifies listeners.
    /// Fails, leaving the server unchanged, on the same mistakes [`ServerBuilder::build`](crate::ServerBuilder::build)
    /// refuses.
    pub fn add_prompt(&self, prompt: impl IntoPromptRoute) -> Result<(), BuildError> {
        let route = prompt.into_prompt_route();
        self.checks().prompt(&route)?;
        self.update(|r| {
            r.prompts
                .insert(route.prompt().name.clone(), Arc::new(route));
        });
        self.notify(Change::PromptsListChanged);
        Ok(())
    }

    /// Removes a prompt; returns whether it existed.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = self.update(|r| r.prompts.shift_remove(name).is_some());
        if removed {
            self.notify(Change::PromptsListChanged);
        }
        removed
    }

    /// Registers (or replaces) a resource or template while the server runs, and notifies
    /// listeners. Fails, leaving the server unchanged, on the same mistakes
    /// [`ServerBuilder::build`](crate::ServerBuilder::build) refuses (a malformed template among them).
    pub fn add_resource(&self, resource: impl IntoResourceRoute) -> Result<(), BuildError> {
        let resource = resource.into_resource_route();
        self.checks().resource(&resource)?;
        match resource {
            AnyResourceRoute::Static(route) => self.update(|r| {
                r.resources
                    .insert(route.resource().uri.clone(), Arc::new(route));
            }),
            AnyResourceRoute::Template(route) => self.update(|r| {
                let template = route.resource_template().uri_template.clone();
                r.templates
                    .retain(|t| t.resource_template().uri_template != template);
                r.templates.push(Arc::new(route));
            }),
        }
        self.notify(Change::ResourcesListChanged);
        Ok(())
    }

    /// What a route added while the server runs is checked against.
    fn checks(&self) -> Checks<'_> {
        Checks {
            states: &self.shared.state,
            has_signer: self.shared.config.state_signer.is_some(),
        }
    }

    /// Removes a resource by URI (or a template by its template text).
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = self.update(|r| {
            let before = r.templates.len();
            r.templates
                .retain(|t| t.resource_template().uri_template != uri);
            r.resources.shift_remove(uri).is_some() || r.templates.len() != before
        });
        if removed {
            self.notify(Change::ResourcesListChanged);
        }
        removed
    }

    /// Reads the skills again from where they came from (each
    /// [`skills_dir`](crate::ServerBuilder::skills_dir) folder, each
    /// [`skill`](crate::ServerBuilder::skill) built in code), recomputing every digest,
    /// and tells listeners the resource list changed. Fails, leaving the skills served as
    /// they were, when a skill is malformed now (the same [`BuildError`]s as at build).
    /// A request being served keeps the skills it started with. It reads files: from async
    /// code, call it on a blocking thread (`tokio::task::spawn_blocking`), as the watch does.
    ///
    /// ```
    /// use typemcp_server::{Server, SkillBundle};
    /// let skill = SkillBundle::new("a").file("SKILL.md", "---\nname: a\ndescription: b\n---\n");
    /// let server = Server::builder().skill(skill).build().unwrap();
    /// server.reload_skills().unwrap();
    /// ```
    pub fn reload_skills(&self) -> Result<(), BuildError> {
        let sources = self.snapshot().skills.sources().to_vec();
        let skills = Arc::new(crate::skills::SkillSet::load(sources)?);
        self.update(|r| r.skills = skills);
        self.notify(Change::ResourcesListChanged);
        Ok(())
    }

    /// Watches the skills folders: every `every`, looks at each file's length and
    /// modification time, and reloads the skills ([`Server::reload_skills`]) when they
    /// changed. A reload that fails is logged (the last good skills stay served) and tried
    /// again at the next change. The watch ends when the server stops or is dropped, or when
    /// the returned handle is aborted. Each look and reload runs on a blocking thread. `every`
    /// is at least 10 ms. Call it inside a Tokio runtime.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = typemcp_server::Server::builder().skills_dir("skills").build()?;
    /// let _watch = server.watch_skills(std::time::Duration::from_secs(2));
    /// server.serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    pub fn watch_skills(&self, every: std::time::Duration) -> tokio::task::JoinHandle<()> {
        // Held weakly: the watch does not keep a dropped server alive.
        let weak = WeakServer(Arc::downgrade(&self.shared));
        let stopped = self.shutdown_token().clone();
        let mut seen = self.snapshot().skills.fingerprint();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every.max(std::time::Duration::from_millis(10)));
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                tokio::select! {
                    () = stopped.cancelled() => return,
                    _ = ticks.tick() => {}
                }
                let Some(server) = weak.upgrade() else { return };
                let last = std::mem::take(&mut seen);
                let look = tokio::task::spawn_blocking(move || {
                    let now = server.snapshot().skills.fingerprint();
                    let reloaded = (now != last).then(|| server.reload_skills());
                    (now, reloaded)
                });
                let Ok((now, reloaded)) = look.await else {
                    return;
                };
                seen = now;
                match reloaded {
                    None => {}
                    Some(Ok(())) => tracing::info!("skills reloaded: a skills folder changed"),
                    Some(Err(error)) => {
                        tracing::warn!(%error, "a skills folder changed, but cannot be served; the last good skills stay");
                    }
                }
            }
        })
    }

    /// Tells listeners the tool list changed (for changes the registry cannot see, such as
    /// authorization-dependent lists).
    pub fn notify_tools_list_changed(&self) {
        self.notify(Change::ToolsListChanged);
    }

    /// Tells listeners the prompt list changed.
    pub fn notify_prompts_list_changed(&self) {
        self.notify(Change::PromptsListChanged);
    }

    /// Tells listeners the resource list changed.
    pub fn notify_resources_list_changed(&self) {
        self.notify(Change::ResourcesListChanged);
    }

    /// Tells listeners subscribed to `uri` (or a parent of it) that the resource changed.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        self.notify(Change::ResourceUpdated(uri.into()));
    }

    /// Shared state registered with [`ServerBuilder::state`](crate::ServerBuilder::state).
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.shared.state.get::<T>().cloned()
    }

    /// Stops the server at once, without a grace period (the last step of a graceful
    /// shutdown). New requests are refused and open `subscriptions/listen` streams end.
    /// Each request still served (by any transport, [`Server::handle_message`] included) is
    /// answered `-32603` `Internal error: the server shut down`: its handler's future is
    /// dropped where it waits. The handler's own [`cancellation`](crate::RequestContext::cancellation) token
    /// does not fire (every request has a fresh one), so work it spawned elsewhere keeps
    /// running. Tasks still running fail (`The server stopped before the task finished`),
    /// and 2025-11-25 sessions end. The stdio transport stops reading and returns once the
    /// requests left are answered; [`Server::serve_http_on`] answers 503 until its own
    /// signal resolves.
    ///
    /// [`Server::serve_stdio`] and [`Server::serve_http`] shut down gracefully on SIGTERM
    /// and Ctrl-C (and [`Server::serve_http_on`] when its signal resolves): new requests
    /// are refused, in-flight ones get [`ServerBuilder::shutdown_grace`](crate::ServerBuilder::shutdown_grace) to finish, and
    /// only then does this run (at once on a second signal).
    pub fn shutdown(&self) {
        self.shared.lifecycle.stop();
    }

    /// Cancelled when the server stops (the grace period over, or [`Server::shutdown`]).
    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        self.shared.lifecycle.stopped()
    }

    /// Cancelled when a graceful shutdown starts: new requests are refused, listens end.
    pub(crate) fn draining_token(&self) -> &CancellationToken {
        self.shared.lifecycle.draining()
    }

    /// Whether the server is shutting down and refuses new requests.
    #[cfg(any(feature = "stdio", feature = "http"))] // Read by the transports.
    pub(crate) fn is_draining(&self) -> bool {
        self.shared.lifecycle.draining().is_cancelled()
    }

    /// The server's lifecycle (requests in flight, draining, stopping).
    pub(crate) fn lifecycle(&self) -> &Arc<Lifecycle> {
        &self.shared.lifecycle
    }

    pub(crate) fn snapshot(&self) -> Arc<Registry> {
        self.shared.catalog.registry()
    }

    pub(crate) fn subscribe_changes(&self) -> broadcast::Receiver<Change> {
        self.shared.catalog.subscribe()
    }

    pub(crate) fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    pub(crate) fn info_json(&self) -> Option<&serde_json::value::RawValue> {
        self.shared.info_json.as_deref()
    }

    pub(crate) fn logging_enabled(&self) -> bool {
        self.shared.config.logging
    }

    fn update<R>(&self, change: impl FnOnce(&mut Registry) -> R) -> R {
        self.shared.catalog.update(change)
    }

    fn notify(&self, change: Change) {
        self.shared.catalog.notify(change);
    }
}
