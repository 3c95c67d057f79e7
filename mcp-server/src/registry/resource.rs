//! Resource and resource-template routes.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use typemcp_core::McpError;
use typemcp_core::protocol::{
    Outcome, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use typemcp_core::uri_template::{UriTemplate, UriTemplateError};

use super::{BoxFuture, CompletionRequest, Completions, IntoCompletion};
use crate::handler::{Handler, IntoResourceResult, Invocation, Rejection, Requirements};

type ReadFn =
    dyn Fn(Invocation) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> + Send + Sync;

/// Adapts a handler to the generated-call shape.
fn from_handler<H, M>(
    handler: H,
) -> impl Fn(Invocation) -> BoxFuture<Result<Result<Outcome<ReadResourceResult>, McpError>, Rejection>>
+ Send
+ Sync
+ 'static
where
    H: Handler<M>,
    H::Output: IntoResourceResult,
{
    move |invocation: Invocation| -> BoxFuture<_> {
        let uri = invocation.uri.clone().unwrap_or_default();
        let fut = handler.call(invocation);
        Box::pin(async move { fut.await.map(|output| output.into_resource_result(&uri)) })
    }
}

/// Erases a generated read call.
fn erase<F, Fut>(read: F) -> Arc<ReadFn>
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Result<Outcome<ReadResourceResult>, McpError>, Rejection>>
        + Send
        + 'static,
{
    Arc::new(move |invocation: Invocation| -> BoxFuture<_> {
        let fut = read(invocation);
        Box::pin(async move {
            match fut.await {
                Ok(result) => result,
                Err(Rejection::InvalidArguments(message)) => Err(McpError::invalid_params(message)),
                Err(Rejection::Error(err)) => Err(err),
                Err(Rejection::InputRequired(result)) => Ok(Outcome::InputRequired(*result)),
            }
        })
    })
}

/// The MIME type of text that names none, when the resource declares none either.
const DEFAULT_TEXT_MIME_TYPE: &str = "text/plain";

/// Gives each of `result`'s contents that names no MIME type the resource's declared one
/// (`declared`); text with neither is `text/plain`. Contents that name their own type keep it.
pub(crate) fn fill_mime_types(result: &mut ReadResourceResult, declared: Option<&str>) {
    for contents in &mut result.contents {
        let (mime_type, fallback) = match contents {
            ResourceContents::Text { mime_type, .. } => (mime_type, Some(DEFAULT_TEXT_MIME_TYPE)),
            ResourceContents::Blob { mime_type, .. } => (mime_type, None),
            _ => continue,
        };
        if mime_type.is_none() {
            *mime_type = declared.or(fallback).map(str::to_owned);
        }
    }
}

/// A resource with a fixed URI.
///
/// ```
/// use typemcp_server::ResourceRoute;
/// let route = ResourceRoute::new("memo://today", "today", || async { "Buy milk." })
///     .mime_type("text/plain");
/// assert_eq!(route.resource().uri, "memo://today");
/// ```
#[derive(Clone)]
pub struct ResourceRoute {
    resource: Resource,
    read: Arc<ReadFn>,
    requirements: Requirements,
}

impl fmt::Debug for ResourceRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceRoute")
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl ResourceRoute {
    /// A resource at `uri` named `name`, read by `handler`.
    pub fn new<H, M>(uri: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M>,
        H::Output: IntoResourceResult,
    {
        let mut route = Self::from_parts(Resource::new(uri, name), from_handler(handler));
        H::requirements(&mut route.requirements);
        route
    }

    /// What the handler needs from the server.
    pub(crate) fn requirements(&self) -> &Requirements {
        &self.requirements
    }

    /// A resource from its description and a read that extracts parameters and converts the
    /// handler's output (`from_handler`). Only [`new`](Self::new) calls it: the `#[resource]`
    /// macro builds its route with `new` too.
    pub(crate) fn from_parts<F, Fut>(resource: Resource, read: F) -> Self
    where
        F: Fn(Invocation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Result<Outcome<ReadResourceResult>, McpError>, Rejection>>
            + Send
            + 'static,
    {
        Self {
            resource,
            read: erase(read),
            requirements: Requirements::default(),
        }
    }

    /// The resource description as listed.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource.description = Some(description.into());
        self
    }

    /// Sets the display title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// Sets the MIME type: listed, and given to what the handler reads unless it names its
    /// own (a handler returning text is served with it).
    ///
    /// ```
    /// use typemcp_server::ResourceRoute;
    /// let route = ResourceRoute::new("rooms://all", "rooms", || async { r#"["blue"]"# })
    ///     .mime_type("application/json");
    /// assert_eq!(route.resource().mime_type.as_deref(), Some("application/json"));
    /// ```
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.resource.mime_type = Some(mime_type.into());
        self
    }

    pub(crate) fn read(
        &self,
        invocation: Invocation,
    ) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> {
        (self.read)(invocation)
    }
}

/// A family of resources matched by an RFC 6570 URI template; the matched variables reach
/// the handler through the `UriParams<T>` extractor.
///
/// ```
/// use typemcp_server::{ResourceTemplateRoute, UriParams};
///
/// #[derive(serde::Deserialize)]
/// struct Note { id: String }
///
/// let route = ResourceTemplateRoute::new("notes://{id}", "note", |UriParams(n): UriParams<Note>| async move {
///     format!("note {}", n.id)
/// });
/// assert_eq!(route.resource_template().uri_template, "notes://{id}");
///
/// // A malformed template is refused when the server is built.
/// let bad = ResourceTemplateRoute::new("notes://{id", "bad", || async { "" });
/// assert!(typemcp_server::Server::builder().resource(bad).build().is_err());
/// ```
#[derive(Clone)]
pub struct ResourceTemplateRoute {
    template: ResourceTemplate,
    parsed: Result<UriTemplate, UriTemplateError>,
    read: Arc<ReadFn>,
    completions: Completions,
    requirements: Requirements,
}

impl fmt::Debug for ResourceTemplateRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplateRoute")
            .field("template", &self.template)
            .finish_non_exhaustive()
    }
}

impl ResourceTemplateRoute {
    /// A template named `name`, read by `handler`. A malformed template is a
    /// [`BuildError`](crate::BuildError) when the route is registered.
    pub fn new<H, M>(template: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M>,
        H::Output: IntoResourceResult,
    {
        let template = ResourceTemplate::new(template, name);
        let mut route = Self::from_parts(template, from_handler(handler));
        H::requirements(&mut route.requirements);
        route
    }

    /// What the handler needs from the server.
    pub(crate) fn requirements(&self) -> &Requirements {
        &self.requirements
    }

    /// A template from its description and a read that extracts parameters and converts the
    /// handler's output (`from_handler`); a malformed template is refused when the route is
    /// registered. Only [`new`](Self::new) calls it: the `#[resource]` macro (which checks
    /// its template at compile time) builds its route with `new` too.
    pub(crate) fn from_parts<F, Fut>(template: ResourceTemplate, read: F) -> Self
    where
        F: Fn(Invocation) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Result<Outcome<ReadResourceResult>, McpError>, Rejection>>
            + Send
            + 'static,
    {
        Self {
            parsed: UriTemplate::parse(&template.uri_template),
            template,
            read: erase(read),
            completions: Completions::default(),
            requirements: Requirements::default(),
        }
    }

    /// The template description as listed.
    pub fn resource_template(&self) -> &ResourceTemplate {
        &self.template
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// Sets the display title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.template.title = Some(title.into());
        self
    }

    /// Sets the MIME type of matching resources: listed, and given to what the handler reads
    /// unless it names its own.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.template.mime_type = Some(mime_type.into());
        self
    }

    /// Suggests values for the template variable `variable` (`completion/complete` with a
    /// `ref/resource`).
    #[must_use]
    pub fn complete<F, Fut>(mut self, variable: impl Into<String>, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        self.completions.insert(variable, handler);
        self
    }

    pub(crate) fn completions(&self) -> &Completions {
        &self.completions
    }

    /// The parsed template; `None` for a malformed one (never registered).
    pub(crate) fn template(&self) -> Option<&UriTemplate> {
        self.parsed.as_ref().ok()
    }

    /// Fails for a malformed template.
    pub(crate) fn check(&self) -> Result<(), UriTemplateError> {
        self.parsed.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    pub(crate) fn read(
        &self,
        invocation: Invocation,
    ) -> BoxFuture<Result<Outcome<ReadResourceResult>, McpError>> {
        (self.read)(invocation)
    }
}
