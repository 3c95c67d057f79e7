//! Handlers are plain async functions whose parameters are extractors.
//!
//! A function `async fn(E1, …, En) -> R` is a [`Handler`] when every `Ei` implements
//! [`FromInvocation`] (arguments, the request context, shared state, …) and the output `R`
//! converts into the method's result ([`IntoToolResult`], [`IntoPromptResult`],
//! [`IntoResourceResult`]). Nothing is rewritten: the macros only add metadata, and every
//! handler can be registered by hand.
//!
//! ```
//! use typemcp_server::{Arguments, RequestContext, ToolRoute};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema, typemcp_server::ToolInput)]
//! struct Add { a: i64, b: i64 }
//!
//! let route = ToolRoute::new("add", |Arguments(Add { a, b }): Arguments<Add>, _ctx: RequestContext| async move {
//!     (a + b).to_string()
//! })
//! .description("Add two numbers.");
//! assert_eq!(route.tool().input_schema["required"], serde_json::json!(["a", "b"]));
//! ```

mod extract;
mod invocation;
mod multi_round;
mod output;
mod requirements;

use std::future::Future;

pub use crate::error::Rejection;
pub(crate) use extract::parse_argument;
pub use extract::{
    Arguments, FromInvocation, ResourceParam, State, ToolArgument, ToolInput, UriParams,
};
pub use invocation::Invocation;
pub use output::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json};
pub use requirements::Requirements;
pub(crate) use requirements::Unmet;

/// An async function usable as a tool, prompt or resource handler.
///
/// `M` is a marker that lets one function type implement `Handler` for its own parameter
/// list; you never name it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP handler",
    label = "not an async fn whose parameters are all extractors",
    note = "a handler is an `async fn` (or closure returning a future) whose parameters each implement `FromInvocation`: `Arguments<T>`, `RequestContext`, `State<T>`, `UriParams<T>`, `CancellationToken`",
    note = "the returned future must be `Send + 'static`, and its output must convert into the method's result",
    note = "`Arguments<T>` is an extractor only when `T` derives `ToolInput`"
)]
pub trait Handler<M>: Clone + Send + Sync + 'static {
    /// What the handler returns.
    type Output: Send + 'static;

    /// Extracts the parameters from the invocation and calls the function: its future, or
    /// why the parameters cannot be extracted (extraction never waits).
    fn call(
        &self,
        invocation: Invocation,
    ) -> Result<impl Future<Output = Self::Output> + Send + 'static + use<Self, M>, Rejection>;

    /// The JSON Schema of the arguments (an object), from the parameters that describe them.
    /// Definitions it refers to may stay in `generator`: the route moves them into `$defs`.
    fn argument_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>;

    /// What the handler needs from the server (registered `State<T>` types, a request-state
    /// signer), checked when the server is built.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }
}

macro_rules! impl_handler {
    ($($ty:ident),*) => {
        #[diagnostic::do_not_recommend]
        #[allow(non_snake_case, unused_variables, unused_mut)]
        impl<F, Fut, Out, $($ty,)*> Handler<($($ty,)*)> for F
        where
            F: Fn($($ty),*) -> Fut + Clone + Send + Sync + 'static,
            Fut: Future<Output = Out> + Send + 'static,
            Out: Send + 'static,
            $($ty: FromInvocation + Send + 'static,)*
        {
            type Output = Out;

            fn call(&self, invocation: Invocation) -> Result<impl Future<Output = Out> + Send + 'static + use<F, Fut, Out, $($ty,)*>, Rejection> {
                $(let $ty = $ty::from_invocation(&invocation)?;)*
                Ok(self($($ty),*))
            }

            fn argument_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
                None $(.or_else(|| $ty::argument_schema(generator)))*
            }

            fn requirements(requirements: &mut Requirements) {
                $(requirements.extractor::<$ty>();)*
            }
        }
    };
}

impl_handler!();
impl_handler!(T1);
impl_handler!(T1, T2);
impl_handler!(T1, T2, T3);
impl_handler!(T1, T2, T3, T4);
impl_handler!(T1, T2, T3, T4, T5);
impl_handler!(T1, T2, T3, T4, T5, T6);
impl_handler!(T1, T2, T3, T4, T5, T6, T7);
impl_handler!(T1, T2, T3, T4, T5, T6, T7, T8);
