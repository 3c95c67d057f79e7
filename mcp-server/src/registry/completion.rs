//! Completion routes: suggestions for prompt arguments and template variables.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_core::McpError;
use mcp_core::protocol::{Completion, CompletionReference};
use serde_json::{Map, Value};

use super::BoxFuture;
use crate::RequestContext;

/// What a completion handler is asked.
#[derive(Debug, Clone)]
pub struct CompletionRequest {
    /// The request context.
    pub context: RequestContext,
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Values of the other arguments already chosen.
    pub arguments: Map<String, Value>,
}

/// What a completion handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completion handler",
    note = "return `Vec<String>`, `Completion`, or `Result<_, McpError>` of those"
)]
pub trait IntoCompletion {
    /// Converts into completion values.
    fn into_completion(self) -> Result<Completion, McpError>;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Result<Completion, McpError> {
        Ok(self)
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, McpError> {
        Ok(Completion::from_values(self))
    }
}

impl<T: IntoCompletion> IntoCompletion for Result<T, McpError> {
    fn into_completion(self) -> Result<Completion, McpError> {
        self.and_then(IntoCompletion::into_completion)
    }
}

/// Which prompt or template a completion route serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum CompletionKey {
    Prompt(String),
    Template(String),
}

impl CompletionKey {
    pub(crate) fn of(reference: &CompletionReference) -> Self {
        match reference {
            CompletionReference::Prompt { name, .. } => Self::Prompt(name.clone()),
            CompletionReference::Resource { uri } => Self::Template(uri.clone()),
        }
    }
}

type CompleteFn =
    dyn Fn(CompletionRequest) -> BoxFuture<Result<Completion, McpError>> + Send + Sync;

/// Completes the arguments of one prompt or the variables of one resource template.
///
/// ```
/// use mcp_server::CompletionRoute;
/// let route = CompletionRoute::prompt("review", |req| async move {
///     ["rust", "python"].iter().filter(|l| l.starts_with(&req.value)).map(|l| l.to_string()).collect::<Vec<_>>()
/// });
/// # let _ = route;
/// ```
#[derive(Clone)]
pub struct CompletionRoute {
    key: CompletionKey,
    complete: Arc<CompleteFn>,
}

impl fmt::Debug for CompletionRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionRoute")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl CompletionRoute {
    /// Completes the arguments of the prompt `name`.
    pub fn prompt<F, Fut>(name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        Self::build(CompletionKey::Prompt(name.into()), handler)
    }

    /// Completes the variables of the resource template `uri_template`.
    pub fn resource_template<F, Fut>(uri_template: impl Into<String>, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        Self::build(CompletionKey::Template(uri_template.into()), handler)
    }

    fn build<F, Fut>(key: CompletionKey, handler: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        let complete = Arc::new(move |request: CompletionRequest| -> BoxFuture<_> {
            let fut = handler(request);
            Box::pin(async move { fut.await.into_completion() })
        });
        Self { key, complete }
    }

    pub(crate) fn key(&self) -> &CompletionKey {
        &self.key
    }

    pub(crate) fn complete(
        &self,
        request: CompletionRequest,
    ) -> BoxFuture<Result<Completion, McpError>> {
        (self.complete)(request)
    }
}
