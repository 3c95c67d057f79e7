//! What handlers may return, and how each return type becomes a result on the wire.
//!
//! Errors: a handler returning `Result<T, E>` reports `Err(McpError)` as a JSON-RPC error
//! (the error type is recognised by its type, so aliases work). Any other error type becomes
//! a tool execution error (`isError: true`, message from `Display`, for the model to read) for
//! tools. For prompts and resources it becomes a generic `-32603 Internal error`: the error's
//! text goes to the log (`tracing`), never to the client.

use std::any::Any;
use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;
use typemcp_core::McpError;
use typemcp_core::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, InputRequiredResult, Outcome, PromptMessage,
    ReadResourceResult, ResourceContents,
};

/// Structured output: serialized into `structuredContent` (and a text block), with the
/// type's JSON Schema as the tool's `outputSchema`.
///
/// Any type may be structured output for 2026-07-28 clients (a `Vec<T>`, a number, …). A
/// 2025-11-25 client may only be given objects: for a type whose schema is not an object,
/// that era lists the tool without `outputSchema` and gets the JSON as text content only
/// (see the tool guide, "Structured output in each era").
///
/// ```
/// use typemcp_server::{IntoToolResult, Json};
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Forecast { celsius: f64 }
///
/// let out = Json(Forecast { celsius: 21.5 }).into_tool_result().unwrap();
/// # let _ = out;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// Turns an error into a JSON-RPC error when it is an [`McpError`], by type.
fn as_protocol_error<E: Any>(err: &E) -> Option<McpError> {
    (err as &dyn Any).downcast_ref::<McpError>().cloned()
}

/// The error a prompt or resource handler returned, as answered: an [`McpError`] as it is,
/// anything else logged and answered with a fixed internal error.
fn handler_error<E: Display + Any>(kind: &'static str, err: E) -> McpError {
    as_protocol_error(&err)
        .unwrap_or_else(|| internal_error!(handler = kind, error = %err, "a handler failed"))
}

/// A value a tool handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not a tool result",
    note = "a tool may return text (`String`, `&'static str`, numbers, `bool`), `ContentBlock`, `Vec<ContentBlock>`, `CallToolResult`, `Json<T>` for structured output, `InputRequiredResult`/`Outcome<CallToolResult>`, or `Result<T, E>` of those (`E: Display`)"
)]
pub trait IntoToolResult {
    /// Converts into a complete or input-required tool result.
    fn into_tool_result(self) -> Result<Outcome<CallToolResult>, McpError>;

    /// The `outputSchema` this return type promises, if any.
    fn output_schema(_generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        None
    }
}

/// Defines `$trait::$method` for each type as the given closure: `|value| result` (with
/// `uri` for resources).
macro_rules! results {
    ($trait:ident::$method:ident -> $out:ty;
        $($ty:ty => |$value:ident $(, $uri:ident)?| $body:expr;)*) => {$(
        impl $trait for $ty {
            fn $method(self $(, $uri: &str)?) -> Result<Outcome<$out>, McpError> {
                let $value = self;
                $body
            }
        }
    )*};
}

results! { IntoToolResult::into_tool_result -> CallToolResult;
    CallToolResult => |value| Ok(Outcome::Complete(value));
    Outcome<CallToolResult> => |value| Ok(value);
    InputRequiredResult => |value| Ok(Outcome::InputRequired(value));
    ContentBlock => |value| Ok(Outcome::Complete(CallToolResult::success(vec![value])));
    Vec<ContentBlock> => |value| Ok(Outcome::Complete(CallToolResult::success(value)));
    () => |_unit| Ok(Outcome::Complete(CallToolResult::success(Vec::new())));
    // The handler's `String` becomes the text as it is (no copy).
    String => |value| Ok(Outcome::Complete(CallToolResult::text(value)));
}

macro_rules! text_results {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> Result<Outcome<CallToolResult>, McpError> {
                Ok(Outcome::Complete(CallToolResult::text(self.to_string())))
            }
        }
    )*};
}

text_results! {
    &'static str, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<Outcome<CallToolResult>, McpError> {
        let value = serde_json::to_value(&self.0).map_err(
            |err| internal_error!(error = %err, "structured tool output could not be serialized"),
        )?;
        Ok(Outcome::Complete(CallToolResult::structured(value)))
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        Some(generator.root_schema_for::<T>())
    }
}

impl<T: IntoToolResult, E: Display + Any> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<Outcome<CallToolResult>, McpError> {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(err) => match as_protocol_error(&err) {
                Some(protocol) => Err(protocol),
                None => Ok(Outcome::Complete(CallToolResult::error(err.to_string()))),
            },
        }
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        T::output_schema(generator)
    }
}

/// A value a prompt handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a prompt",
    label = "not a prompt result",
    note = "a prompt may return `GetPromptResult`, `Vec<PromptMessage>`, `PromptMessage`, text (one user message), `InputRequiredResult`/`Outcome<GetPromptResult>`, or `Result<T, E>` of those (`E: Display`)"
)]
pub trait IntoPromptResult {
    /// Converts into a complete or input-required prompt result.
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, McpError>;
}

results! { IntoPromptResult::into_prompt_result -> GetPromptResult;
    GetPromptResult => |value| Ok(Outcome::Complete(value));
    Outcome<GetPromptResult> => |value| Ok(value);
    InputRequiredResult => |value| Ok(Outcome::InputRequired(value));
    Vec<PromptMessage> => |value| Ok(Outcome::Complete(GetPromptResult::new(value)));
    PromptMessage => |value| Ok(Outcome::Complete(GetPromptResult::new(vec![value])));
    String => |value| PromptMessage::user(value).into_prompt_result();
    &'static str => |value| PromptMessage::user(value).into_prompt_result();
}

impl<T: IntoPromptResult, E: Display + Any> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, McpError> {
        match self {
            Ok(value) => value.into_prompt_result(),
            Err(err) => Err(handler_error("prompt", err)),
        }
    }
}

/// A value a resource handler may return. Text and contents are tagged with the URI read;
/// contents that name no MIME type are given the resource's declared `mime_type` when read.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "not a resource result",
    note = "a resource may return `ReadResourceResult`, `ResourceContents`, `Vec<ResourceContents>`, text (served with the resource's declared `mime_type`, else text/plain), `InputRequiredResult`/`Outcome<ReadResourceResult>`, or `Result<T, E>` of those (`E: Display`)"
)]
pub trait IntoResourceResult {
    /// Converts into a complete or input-required read result for `uri`.
    fn into_resource_result(self, uri: &str) -> Result<Outcome<ReadResourceResult>, McpError>;
}

results! { IntoResourceResult::into_resource_result -> ReadResourceResult;
    ReadResourceResult => |value, _uri| Ok(Outcome::Complete(value));
    Outcome<ReadResourceResult> => |value, _uri| Ok(value);
    InputRequiredResult => |value, _uri| Ok(Outcome::InputRequired(value));
    ResourceContents => |value, _uri| Ok(Outcome::Complete(ReadResourceResult::new(vec![value])));
    Vec<ResourceContents> => |value, _uri| Ok(Outcome::Complete(ReadResourceResult::new(value)));
    // Text names no MIME type: the resource's declared `mime_type` is filled in when it is
    // read (`text/plain` when it declares none).
    String => |value, uri| ResourceContents::Text {
        uri: uri.to_owned(),
        mime_type: None,
        text: value,
        meta: None,
    }
    .into_resource_result(uri);
    &'static str => |value, uri| value.to_owned().into_resource_result(uri);
}

impl<T: IntoResourceResult, E: Display + Any> IntoResourceResult for Result<T, E> {
    fn into_resource_result(self, uri: &str) -> Result<Outcome<ReadResourceResult>, McpError> {
        match self {
            Ok(value) => value.into_resource_result(uri),
            Err(err) => Err(handler_error("resource", err)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_errors_are_protocol_errors_and_others_are_tool_errors() {
        let protocol: Result<String, McpError> = Err(McpError::invalid_params("bad"));
        assert_eq!(
            protocol.into_tool_result(),
            Err(McpError::invalid_params("bad"))
        );

        let tool: Result<String, std::io::Error> = Err(std::io::Error::other("disk full"));
        match tool.into_tool_result() {
            Ok(Outcome::Complete(result)) => {
                assert_eq!(result.is_error, Some(true));
                assert_eq!(result.content[0].as_text(), Some("disk full"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn prompt_and_resource_errors_never_reach_the_client() {
        let secret = || std::io::Error::other("connection to db://admin:hunter2 failed");
        let prompt: Result<String, std::io::Error> = Err(secret());
        let err = prompt.into_prompt_result().unwrap_err();
        assert_eq!(err, McpError::internal("Internal error"));

        let resource: Result<String, std::io::Error> = Err(secret());
        let err = resource.into_resource_result("memo://x").unwrap_err();
        assert_eq!(err, McpError::internal("Internal error"));

        // An `McpError` is the handler's chosen answer and goes through unchanged.
        let chosen: Result<String, McpError> = Err(McpError::invalid_params("no such note"));
        assert_eq!(
            chosen.into_resource_result("memo://x").unwrap_err(),
            McpError::invalid_params("no such note")
        );
    }

    #[test]
    fn numbers_become_text() {
        match 42i64.into_tool_result() {
            Ok(Outcome::Complete(result)) => assert_eq!(result.content[0].as_text(), Some("42")),
            other => panic!("unexpected {other:?}"),
        }
    }
}
