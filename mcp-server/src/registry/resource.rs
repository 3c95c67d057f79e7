//! Resource and resource-template routes.

use std::sync::Arc;

use typemcp_core::McpError;
use typemcp_core::protocol::{
    Outcome, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use typemcp_core::uri_template::{UriTemplate, UriTemplateError};

use super::{BoxFuture, CompletionRequest, Completions, IntoCompletion, RouteFn, erase};
use crate::handler::{Handler, IntoResourceResult, Invocation, Requirements};

/// Erases a read handler: its output converted with the URI it reads.
fn erase_read<H, M>(handler: H) -> Arc<RouteFn<ReadResourceResult>>
where
    H: Handler<M>,
    H::Output: IntoResourceResult,
{
    erase(
        handler,
        |message| Err(McpError::invalid_params(message)),
        |invocation| {
            let uri = invocation.uri.clone().unwrap_or_default();
            move |output: H::Output| output.into_resource_result(&uri)
        },
    )
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
    read: Arc<RouteFn<ReadResourceResult>>,
    requirements: Requirements,
}

debug_fields!(ResourceRoute, resource);

impl ResourceRoute {
    /// A resource at `uri` named `name`, read by `handler`.
    pub fn new<H, M>(uri: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M>,
        H::Output: IntoResourceResult,
    {
        let mut route = Self {
            resource: Resource::new(uri, name),
            read: erase_read(handler),
            requirements: Requirements::default(),
        };
        H::requirements(&mut route.requirements);
        route
    }

    /// What the handler needs from the server.
    pub(crate) fn requirements(&self) -> &Requirements {
        &self.requirements
    }

    /// The resource description as listed.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }

    setters! {
        /// Sets the description.
        pub fn description(description: impl Into<String>) |b|
            b.resource.description = Some(description.into());

        /// Sets the display title.
        pub fn title(title: impl Into<String>) |b| b.resource.title = Some(title.into());

        /// Sets the MIME type: listed, and given to what the handler reads unless it names its
        /// own (a handler returning text is served with it).
        ///
        /// ```
        /// use typemcp_server::ResourceRoute;
        /// let route = ResourceRoute::new("rooms://all", "rooms", || async { r#"["blue"]"# })
        ///     .mime_type("application/json");
        /// assert_eq!(route.resource().mime_type.as_deref(), Some("application/json"));
        /// ```
        pub fn mime_type(mime_type: impl Into<String>) |b|
            b.resource.mime_type = Some(mime_type.into());
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
    read: Arc<RouteFn<ReadResourceResult>>,
    completions: Completions,
    requirements: Requirements,
}

debug_fields!(ResourceTemplateRoute, template);

impl ResourceTemplateRoute {
    /// A template named `name`, read by `handler`. A malformed template is a
    /// [`BuildError`](crate::BuildError) when the route is registered.
    pub fn new<H, M>(template: impl Into<String>, name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M>,
        H::Output: IntoResourceResult,
    {
        let template = ResourceTemplate::new(template, name);
        let mut route = Self {
            parsed: UriTemplate::parse(&template.uri_template),
            template,
            read: erase_read(handler),
            completions: Completions::default(),
            requirements: Requirements::default(),
        };
        H::requirements(&mut route.requirements);
        route
    }

    /// What the handler needs from the server.
    pub(crate) fn requirements(&self) -> &Requirements {
        &self.requirements
    }

    /// The template description as listed.
    pub fn resource_template(&self) -> &ResourceTemplate {
        &self.template
    }

    setters! {
        /// Sets the description.
        pub fn description(description: impl Into<String>) |b|
            b.template.description = Some(description.into());

        /// Sets the display title.
        pub fn title(title: impl Into<String>) |b| b.template.title = Some(title.into());

        /// Sets the MIME type of matching resources: listed, and given to what the handler reads
        /// unless it names its own.
        pub fn mime_type(mime_type: impl Into<String>) |b|
            b.template.mime_type = Some(mime_type.into());
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
