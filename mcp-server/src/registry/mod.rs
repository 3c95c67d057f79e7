//! What a server offers: routes for tools, prompts, resources and resource templates (with
//! their completions), and the registry that holds them while the server runs.
//!
//! A route pairs the protocol description of an item (name, schema, …) with a type-erased
//! handler. The macros build routes; so can you, by hand.

mod completion;
mod output_eras;
pub(crate) mod param_headers;
mod prompt;
mod resource;
pub(crate) mod schema;
mod tool;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use indexmap::IndexMap;
use typemcp_core::McpError;
use typemcp_core::protocol::Outcome;

use crate::handler::{Handler, Invocation, Rejection};

pub use completion::{CompletionRequest, IntoCompletion};
pub use prompt::PromptRoute;
pub use resource::{ResourceRoute, ResourceTemplateRoute};
pub use schema::STANDARD_FORMATS;
pub use tool::ToolRoute;

pub(crate) use completion::Completions;
pub(crate) use output_eras::OutputEra;
pub(crate) use resource::fill_mime_types;

/// A boxed, sendable future.
pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A route's erased handler: one run of it, to its outcome.
pub(crate) type RouteFn<R> =
    dyn Fn(Invocation) -> BoxFuture<Result<Outcome<R>, McpError>> + Send + Sync;

/// Erases `handler` into a route's call: the parameters extracted, the function's future run
/// and its output converted (`convert` is made from the invocation, before it is handed to
/// the handler). Arguments that do not fit are answered by `invalid_arguments`.
fn erase<H, M, R, C>(
    handler: H,
    invalid_arguments: fn(String) -> Result<Outcome<R>, McpError>,
    convert: impl Fn(&Invocation) -> C + Send + Sync + 'static,
) -> Arc<RouteFn<R>>
where
    H: Handler<M>,
    R: Send + 'static,
    C: FnOnce(H::Output) -> Result<Outcome<R>, McpError> + Send + 'static,
{
    Arc::new(move |invocation: Invocation| -> BoxFuture<_> {
        let convert = convert(&invocation);
        match handler.call(invocation) {
            Ok(run) => Box::pin(async move { convert(run.await) }),
            Err(rejection) => Box::pin(std::future::ready(match rejection {
                Rejection::InvalidArguments(message) => invalid_arguments(message),
                Rejection::Error(err) => Err(err),
                Rejection::InputRequired(result) => Ok(Outcome::InputRequired(*result)),
            })),
        }
    })
}

/// Converts a value into a [`ToolRoute`]. Implemented by routes, by the function a
/// `#[tool]` declaration leaves under its name (`.tool(add)`), and by any function without
/// parameters that returns something that converts (`fn() -> ToolRoute`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "expected a `ToolRoute` or a function annotated with `#[tool]`",
    note = "build one by hand with `ToolRoute::new(name, handler)`"
)]
pub trait IntoToolRoute {
    /// The route.
    fn into_tool_route(self) -> ToolRoute;
}

impl IntoToolRoute for ToolRoute {
    fn into_tool_route(self) -> ToolRoute {
        self
    }
}

/// The function a `#[tool]` declaration leaves under its name (`fn add() -> __mcp_tool_add`):
/// registered by name, so that the name stays a function the user's bindings may shadow.
#[diagnostic::do_not_recommend]
impl<F, R> IntoToolRoute for F
where
    F: FnOnce() -> R,
    R: IntoToolRoute,
{
    fn into_tool_route(self) -> ToolRoute {
        self().into_tool_route()
    }
}

/// Converts a value into a [`PromptRoute`]. Implemented by routes, by the function a
/// `#[prompt]` declaration leaves under its name (`.prompt(greet)`), and by any function
/// without parameters that returns something that converts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt",
    label = "expected a `PromptRoute` or a function annotated with `#[prompt]`",
    note = "build one by hand with `PromptRoute::new(name, handler)`"
)]
pub trait IntoPromptRoute {
    /// The route.
    fn into_prompt_route(self) -> PromptRoute;
}

impl IntoPromptRoute for PromptRoute {
    fn into_prompt_route(self) -> PromptRoute {
        self
    }
}

/// The function a `#[prompt]` declaration leaves under its name.
#[diagnostic::do_not_recommend]
impl<F, R> IntoPromptRoute for F
where
    F: FnOnce() -> R,
    R: IntoPromptRoute,
{
    fn into_prompt_route(self) -> PromptRoute {
        self().into_prompt_route()
    }
}

/// A resource or resource template route.
#[derive(Debug)]
pub enum AnyResourceRoute {
    /// A resource with a fixed URI.
    Static(ResourceRoute),
    /// A family of resources matched by a URI template.
    Template(ResourceTemplateRoute),
}

/// Converts a value into a resource route. Implemented by both route kinds, by the function
/// a `#[resource]` declaration leaves under its name (`.resource(room)`), and by any
/// function without parameters that returns something that converts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource",
    label = "expected a `ResourceRoute`, a `ResourceTemplateRoute` or a function annotated with `#[resource]`",
    note = "build one by hand with `ResourceRoute::new(uri, name, handler)` or `ResourceTemplateRoute::new(template, name, handler)`"
)]
pub trait IntoResourceRoute {
    /// The route.
    fn into_resource_route(self) -> AnyResourceRoute;
}

impl IntoResourceRoute for ResourceRoute {
    fn into_resource_route(self) -> AnyResourceRoute {
        AnyResourceRoute::Static(self)
    }
}

impl IntoResourceRoute for ResourceTemplateRoute {
    fn into_resource_route(self) -> AnyResourceRoute {
        AnyResourceRoute::Template(self)
    }
}

impl IntoResourceRoute for AnyResourceRoute {
    fn into_resource_route(self) -> AnyResourceRoute {
        self
    }
}

/// The function a `#[resource]` declaration leaves under its name.
#[diagnostic::do_not_recommend]
impl<F, R> IntoResourceRoute for F
where
    F: FnOnce() -> R,
    R: IntoResourceRoute,
{
    fn into_resource_route(self) -> AnyResourceRoute {
        self().into_resource_route()
    }
}

/// A template that matched a URI, with the variables it matched.
pub(crate) type TemplateMatch = (Arc<ResourceTemplateRoute>, Vec<(String, String)>);

/// The items a server offers at one moment. Replaced as a whole when something changes,
/// so a request always sees one consistent snapshot.
#[derive(Debug, Clone, Default)]
pub(crate) struct Registry {
    pub(crate) tools: IndexMap<String, Arc<ToolRoute>>,
    pub(crate) prompts: IndexMap<String, Arc<PromptRoute>>,
    pub(crate) resources: IndexMap<String, Arc<ResourceRoute>>,
    pub(crate) templates: Vec<Arc<ResourceTemplateRoute>>,
    /// The skills served (the skills extension), their files read through `resources/read`.
    pub(crate) skills: Arc<crate::skills::SkillSet>,
}

impl Registry {
    /// Whether any prompt or template completes its arguments.
    pub(crate) fn completes(&self) -> bool {
        self.prompts.values().any(|p| !p.completions().is_empty())
            || self.templates.iter().any(|t| !t.completions().is_empty())
    }

    /// Finds the template matching `uri`, with the variables it matched.
    pub(crate) fn match_template(&self, uri: &str) -> Option<TemplateMatch> {
        self.templates
            .iter()
            .find_map(|t| t.template()?.matches(uri).map(|vars| (Arc::clone(t), vars)))
    }
}
