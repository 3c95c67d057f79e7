//! Completion handlers: suggestions for prompt arguments and template variables, attached
//! to the prompt or template they complete.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::Completion;

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

type CompleteFn =
    dyn Fn(CompletionRequest) -> BoxFuture<Result<Completion, McpError>> + Send + Sync;

/// Completion handlers of one prompt or template, by argument (or variable) name.
#[derive(Clone, Default)]
pub(crate) struct Completions {
    handlers: IndexMap<String, Arc<CompleteFn>>,
}

impl fmt::Debug for Completions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.handlers.keys()).finish()
    }
}

impl Completions {
    /// Adds (or replaces) the handler completing `argument`.
    pub(crate) fn insert<F, Fut>(&mut self, argument: impl Into<String>, handler: F)
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        let erased = Arc::new(move |request: CompletionRequest| -> BoxFuture<_> {
            let fut = handler(request);
            Box::pin(async move { fut.await.into_completion() })
        });
        self.handlers.insert(argument.into(), erased);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.handlers.is_empty()
    }

    /// Completes `request.argument`; an argument without a handler has no suggestions.
    pub(crate) fn complete(
        &self,
        request: CompletionRequest,
    ) -> BoxFuture<Result<Completion, McpError>> {
        match self.handlers.get(&request.argument) {
            Some(handler) => handler(request),
            None => Box::pin(async { Ok(Completion::default()) }),
        }
    }
}
