//! Prompt routes.

use std::sync::Arc;

use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::protocol::{GetPromptResult, Meta, Outcome, Prompt, PromptArgument};

use super::schema;
use super::{BoxFuture, CompletionRequest, Completions, IntoCompletion, RouteFn, erase};
use crate::handler::{Handler, IntoPromptResult, Invocation, Requirements};

/// A prompt: its description and its handler.
///
/// ```
/// use typemcp_server::{Arguments, PromptRoute};
/// use typemcp_core::protocol::PromptMessage;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, typemcp_server::ToolInput)]
/// struct Review {
///     /// The code to review.
///     code: String,
/// }
///
/// let route = PromptRoute::new("review", |Arguments(r): Arguments<Review>| async move {
///     vec![PromptMessage::user(format!("Review this:\n{}", r.code))]
/// })
/// .description("Review code.");
/// let args = route.prompt().arguments.clone().unwrap_or_default();
/// assert_eq!(args[0].name, "code");
/// assert_eq!(args[0].required, Some(true));
/// assert_eq!(args[0].description.as_deref(), Some("The code to review."));
/// ```
#[derive(Clone)]
pub struct PromptRoute {
    prompt: Prompt,
    get: Arc<RouteFn<GetPromptResult>>,
    completions: Completions,
    requirements: Requirements,
}

debug_fields!(PromptRoute, prompt);

impl PromptRoute {
    /// A prompt named `name` served by `handler`. Its arguments are the properties of the
    /// handler's `Arguments<T>` type (required unless optional), with their doc comments.
    pub fn new<H, M>(name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M>,
        H::Output: IntoPromptResult,
    {
        let mut generator = schema::generator();
        let arguments =
            H::argument_schema(&mut generator).map(|s| prompt_arguments(&schema::to_object(s)));
        let mut prompt = Prompt::new(name);
        prompt.arguments = arguments.filter(|a| !a.is_empty());
        let mut route = Self {
            prompt,
            get: erase(
                handler,
                |message| Err(McpError::invalid_params(message)),
                |_| IntoPromptResult::into_prompt_result,
            ),
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

    /// The prompt description as listed.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    setters! {
        /// Sets the description.
        pub fn description(description: impl Into<String>) |b|
            b.prompt.description = Some(description.into());

        /// Sets the display title.
        pub fn title(title: impl Into<String>) |b| b.prompt.title = Some(title.into());

        /// Replaces the argument list.
        pub fn arguments(arguments: Vec<PromptArgument>) |b| b.prompt.arguments = Some(arguments);
    }

    /// Suggests values for `argument` (`completion/complete` with a `ref/prompt`).
    ///
    /// ```
    /// use typemcp_server::PromptRoute;
    /// let route = PromptRoute::new("greet", || async { "Hello" })
    ///     .complete("language", |req| async move {
    ///         ["en", "fr"].iter().filter(|l| l.starts_with(&req.value)).map(|l| l.to_string()).collect::<Vec<_>>()
    ///     });
    /// # let _ = route;
    /// ```
    #[must_use]
    pub fn complete<F, Fut>(mut self, argument: impl Into<String>, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        self.completions.insert(argument, handler);
        self
    }

    pub(crate) fn completions(&self) -> &Completions {
        &self.completions
    }

    /// Sets the prompt's `_meta`.
    #[must_use]
    pub fn meta(mut self, meta: Meta) -> Self {
        self.prompt.meta = Some(meta);
        self
    }

    pub(crate) fn get(
        &self,
        invocation: Invocation,
    ) -> BoxFuture<Result<Outcome<GetPromptResult>, McpError>> {
        (self.get)(invocation)
    }
}

/// Reads prompt arguments from an object schema's properties.
pub(crate) fn prompt_arguments(schema: &serde_json::Map<String, Value>) -> Vec<PromptArgument> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| {
                    let text = |key: &str| prop.get(key).and_then(Value::as_str).map(str::to_owned);
                    let mut argument = PromptArgument::default();
                    argument.name = name.clone();
                    argument.title = text("title");
                    argument.description = text("description");
                    argument.required = Some(required.contains(&name.as_str()));
                    argument
                })
                .collect()
        })
        .unwrap_or_default()
}
