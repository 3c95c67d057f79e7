//! The catalog: what the server offers (its registry of tools, prompts and resources), which
//! can change while it runs; the capabilities derived from it, computed once per change
//! rather than per request; and the hub that tells listeners (`subscriptions/listen`
//! streams, 2025-11-25 sessions) about every change.

use std::sync::{Arc, RwLock};

use serde_json::json;
use tokio::sync::broadcast;
use typemcp_core::protocol::{
    CompletionsCapability, LoggingCapability, PromptsCapability, ResourcesCapability,
    SKILLS_EXTENSION, ServerCapabilities, TASKS_EXTENSION, ToolsCapability,
};

use super::Change;
use super::config::Enabled;
use crate::registry::Registry;

/// How many changes a slow listener may fall behind before it is told to re-read everything.
const CHANGE_BACKLOG: usize = 256;

/// The registry as it stands, and the capabilities it implies.
#[derive(Debug)]
struct Offer {
    registry: Arc<Registry>,
    capabilities: Arc<ServerCapabilities>,
}

/// What the server offers now, and who hears when it changes.
#[derive(Debug)]
pub(crate) struct Catalog {
    current: RwLock<Offer>,
    changes: broadcast::Sender<Change>,
    /// Capabilities declared even with nothing of their kind registered.
    enabled: Enabled,
    logging: bool,
}

impl Catalog {
    pub(crate) fn new(registry: Registry, enabled: Enabled, logging: bool) -> Self {
        let (changes, _) = broadcast::channel(CHANGE_BACKLOG);
        let capabilities = Arc::new(derive_capabilities(&registry, &enabled, logging));
        Self {
            current: RwLock::new(Offer {
                registry: Arc::new(registry),
                capabilities,
            }),
            changes,
            enabled,
            logging,
        }
    }

    /// The registry as it stands; later changes do not affect the snapshot.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        let offer = self.current.read().unwrap_or_else(|p| p.into_inner());
        Arc::clone(&offer.registry)
    }

    /// The capabilities the registry implies now.
    pub(crate) fn capabilities(&self) -> Arc<ServerCapabilities> {
        let offer = self.current.read().unwrap_or_else(|p| p.into_inner());
        Arc::clone(&offer.capabilities)
    }

    /// Applies a copy-on-write change to the registry (and re-derives the capabilities).
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut Registry) -> R) -> R {
        let mut offer = self.current.write().unwrap_or_else(|p| p.into_inner());
        let mut next = Registry::clone(&offer.registry);
        let out = change(&mut next);
        offer.capabilities = Arc::new(derive_capabilities(&next, &self.enabled, self.logging));
        offer.registry = Arc::new(next);
        out
    }

    /// Tells every listener about `change`.
    pub(crate) fn notify(&self, change: Change) {
        // No receivers simply means nobody is listening.
        let _ = self.changes.send(change);
    }

    /// A new listener, hearing every change from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }
}

/// The capabilities of a server offering `registry` (and what the builder enabled).
fn derive_capabilities(
    registry: &Registry,
    enabled: &Enabled,
    logging: bool,
) -> ServerCapabilities {
    let has_resources = !registry.resources.is_empty()
        || !registry.templates.is_empty()
        || registry.skills.is_configured();
    let mut tools = ToolsCapability::default();
    tools.list_changed = Some(true);
    let mut prompts = PromptsCapability::default();
    prompts.list_changed = Some(true);
    let mut resources = ResourcesCapability::default();
    resources.subscribe = Some(true);
    resources.list_changed = Some(true);

    let mut capabilities = ServerCapabilities::default();
    capabilities.tools = (enabled.tools || !registry.tools.is_empty()).then_some(tools);
    capabilities.prompts = (enabled.prompts || !registry.prompts.is_empty()).then_some(prompts);
    capabilities.resources = (enabled.resources || has_resources).then_some(resources);
    capabilities.completions =
        (enabled.completions || registry.completes()).then(CompletionsCapability::default);
    capabilities.logging = logging.then(LoggingCapability::default);
    let tasks = registry
        .tools
        .values()
        .any(|t| t.task_support() != crate::tasks::TaskSupport::Never);
    let mut extensions = serde_json::Map::new();
    if tasks {
        extensions.insert(TASKS_EXTENSION.to_owned(), json!({}));
    }
    if registry.skills.is_configured() {
        // Every file is served individually, so every folder can be read.
        extensions.insert(SKILLS_EXTENSION.to_owned(), json!({"directoryRead": true}));
    }
    capabilities.extensions = (!extensions.is_empty()).then_some(extensions);
    capabilities
}
