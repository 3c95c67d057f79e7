//! Runtime helpers for the code `mcp-macros` generates. Not a public API: reached only
//! through `mcp_server::__private`, so generated code never depends on a user's imports.

use std::future::Future;
use std::marker::PhantomData;

pub use indexmap::IndexMap;
pub use mcp_core;
pub use mcp_core::protocol::{
    PrimitiveSchemaDefinition, Prompt, PromptArgument, RequestedSchema, Resource, ResourceTemplate,
    StringFormat, Tool, ToolAnnotations,
};

/// Form support: the vocabulary traits, and compile-time assertions the form derive emits.
pub mod form {
    pub use mcp_core::form::*;

    /// The field's type is in the form vocabulary.
    pub fn assert_field<T: mcp_core::form::FormField>() {}
    /// `min_length`, `max_length` and `format` apply to the field's type.
    pub fn assert_length<T: mcp_core::form::LengthField>() {}
    /// `min_items` and `max_items` apply to the field's type.
    pub fn assert_items<T: mcp_core::form::ItemsField>() {}
    /// `legacy_enum_names` applies to the field's type (a single choice).
    pub fn assert_choice<T: LegacyChoice>() {}

    /// A single-choice field, the only kind `legacy_enum_names` applies to.
    #[diagnostic::on_unimplemented(
        message = "`legacy_enum_names` applies to single-choice fields, and `{Self}` is not one",
        label = "not an enum deriving `FormChoice`"
    )]
    pub trait LegacyChoice {}

    impl<T: mcp_core::form::FormChoice> LegacyChoice for T {}
}
pub use schemars;
pub use serde;
pub use serde_json;

use mcp_core::McpError;
use mcp_core::protocol::{CallToolResult, GetPromptResult, Outcome, ReadResourceResult};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::handler::{
    Arguments, FromInvocation, IntoPromptResult, IntoResourceResult, IntoToolResult, Invocation,
    Rejection, ToolArgument, ToolInput,
};
use crate::registry::{PromptRoute, ResourceRoute, ResourceTemplateRoute, ToolRoute, schema};

/// Selects, by trait, how a handler parameter of type `T` is filled: the whole arguments
/// object for `Arguments<T>`, an extractor when `T: FromInvocation`, otherwise a named
/// argument (`T: ToolArgument`). Generated code calls `(&&&Probe::<T>::new()).extract(..)`;
/// method resolution tries `&&Probe<T>` ([`ViaArguments`]), then `&Probe<T>`
/// ([`ViaExtractor`]), then `Probe<T>` ([`ViaArgument`]).
#[derive(Debug)]
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The schema of one named argument.
#[derive(Debug)]
pub struct ParamSchema {
    schema: schemars::Schema,
    required: bool,
    /// The schema of the whole arguments object (from `Arguments<T>`), not of one property.
    whole: bool,
}

/// `Arguments<T>` parameters: tried first, so a `T` without `ToolInput` is reported as such.
pub trait ViaArguments<T> {
    /// Builds the parameter.
    fn extract(
        &self,
        invocation: &Invocation,
        name: &'static str,
    ) -> Result<Arguments<T>, Rejection>
    where
        T: ToolInput;
    /// The whole arguments object's schema.
    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema>
    where
        T: ToolInput;
}

impl<T> ViaArguments<T> for &&Probe<Arguments<T>> {
    fn extract(
        &self,
        invocation: &Invocation,
        _name: &'static str,
    ) -> Result<Arguments<T>, Rejection>
    where
        T: ToolInput,
    {
        Arguments::<T>::from_invocation(invocation)
    }

    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema>
    where
        T: ToolInput,
    {
        extractor_schema::<Arguments<T>>(generator)
    }
}

/// Parameters that are extractors.
pub trait ViaExtractor<T> {
    /// Builds the parameter.
    fn extract(&self, invocation: &Invocation, name: &'static str) -> Result<T, Rejection>;
    /// Extractors are not arguments.
    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema>;
}

impl<T: FromInvocation> ViaExtractor<T> for &Probe<T> {
    fn extract(&self, invocation: &Invocation, _name: &'static str) -> Result<T, Rejection> {
        T::from_invocation(invocation)
    }

    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema> {
        extractor_schema::<T>(generator)
    }
}

/// Parameters that are named arguments.
pub trait ViaArgument<T> {
    /// Reads the argument `name`.
    fn extract(&self, invocation: &Invocation, name: &'static str) -> Result<T, Rejection>
    where
        T: ToolArgument;
    /// The argument's schema, and whether it is required.
    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema>
    where
        T: ToolArgument;
}

impl<T> ViaArgument<T> for Probe<T> {
    fn extract(&self, invocation: &Invocation, name: &'static str) -> Result<T, Rejection>
    where
        T: ToolArgument,
    {
        let value = invocation.arguments.get(name).unwrap_or(&Value::Null);
        T::deserialize(value).map_err(|err| match value {
            Value::Null => {
                Rejection::InvalidArguments(format!("Missing required argument `{name}`"))
            }
            _ => Rejection::InvalidArguments(format!("Invalid argument `{name}`: {err}")),
        })
    }

    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema>
    where
        T: ToolArgument,
    {
        Some(ParamSchema {
            schema: generator.subschema_for::<T>(),
            // Not required when an absent value reads fine (`Option<T>`, `()`).
            required: T::deserialize(&Value::Null).is_err(),
            whole: false,
        })
    }
}

/// A parameter in a position that only extractors may take.
pub fn extractor<T: FromInvocation>(invocation: &Invocation) -> Result<T, Rejection> {
    T::from_invocation(invocation)
}

/// The arguments schema an extractor describes (`Arguments<T>`: the whole object).
pub fn extractor_schema<T: FromInvocation>(
    generator: &mut schemars::SchemaGenerator,
) -> Option<ParamSchema> {
    T::argument_schema(generator).map(|schema| ParamSchema {
        schema,
        required: true,
        whole: true,
    })
}

/// A parameter of a resource: an extractor (template variables are filled separately).
pub fn resource_extractor<T: crate::handler::ResourceParam>(
    invocation: &Invocation,
) -> Result<T, Rejection> {
    T::from_invocation(invocation)
}

/// Asserts the handler's future can move between threads (errors point at the function).
pub fn send_future<F: Future + Send>(future: F) -> F {
    future
}

/// A resource-template variable, read from the URI. Text is tried first, then JSON (so
/// `{id}` fills a `u32` or a `bool` as well as a `String`).
pub fn uri_variable<T: DeserializeOwned>(
    invocation: &Invocation,
    name: &'static str,
) -> Result<T, Rejection> {
    let Some((_, raw)) = invocation.uri_params.iter().find(|(k, _)| k == name) else {
        return Err(Rejection::Error(McpError::internal("Internal error")));
    };
    T::deserialize(Value::String(raw.clone()))
        .or_else(|_| serde_json::from_str::<T>(raw))
        .map_err(|err| {
            Rejection::Error(McpError::invalid_params(format!(
                "Invalid URI variable `{name}`: {err}"
            )))
        })
}

/// A schema generator (JSON Schema 2020-12).
pub fn schema_generator() -> schemars::SchemaGenerator {
    schema::generator()
}

/// The input schema of individual argument parameters: an object with one property each.
pub fn object_schema(
    params: Vec<(&'static str, Option<&'static str>, Option<ParamSchema>)>,
) -> Map<String, Value> {
    let (wholes, params): (Vec<_>, Vec<_>) = params
        .into_iter()
        .partition(|(_, _, p)| p.as_ref().is_some_and(|p| p.whole));
    // An `Arguments<T>` parameter describes the whole object; named parameters add to it.
    let mut schema = wholes
        .into_iter()
        .find_map(|(_, _, p)| p)
        .map(|p| schema::to_object(p.schema))
        .unwrap_or_default();
    let mut properties = match schema.shift_remove("properties") {
        Some(Value::Object(properties)) => properties,
        _ => Map::new(),
    };
    let mut required = match schema.shift_remove("required") {
        Some(Value::Array(required)) => required,
        _ => Vec::new(),
    };
    for (name, doc, param) in params {
        let Some(param) = param else { continue };
        let mut value = param.schema.to_value();
        if let (Some(doc), Value::Object(map)) = (doc, &mut value) {
            map.insert("description".into(), Value::from(doc));
        }
        properties.insert(name.into(), value);
        if param.required {
            required.push(Value::from(name));
        }
    }
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema
}

/// Prompt arguments from the parameters: the properties of the arguments object.
pub fn prompt_arguments(
    params: Vec<(&'static str, Option<&'static str>, Option<ParamSchema>)>,
) -> Option<Vec<PromptArgument>> {
    let arguments = crate::registry::prompt_arguments(&object_schema(params));
    (!arguments.is_empty()).then_some(arguments)
}

/// The `outputSchema` a tool's return type promises.
pub fn output_schema<R: IntoToolResult>(
    generator: &mut schemars::SchemaGenerator,
) -> Option<Map<String, Value>> {
    R::output_schema(generator).map(schema::to_object)
}

/// Converts a tool's return value (the span of this call points at the return type).
pub fn tool_output<R: IntoToolResult>(value: R) -> Result<Outcome<CallToolResult>, McpError> {
    value.into_tool_result()
}

/// Converts a prompt's return value.
pub fn prompt_output<R: IntoPromptResult>(value: R) -> Result<Outcome<GetPromptResult>, McpError> {
    value.into_prompt_result()
}

/// Converts a resource's return value.
pub fn resource_output<R: IntoResourceResult>(
    value: R,
    uri: &str,
) -> Result<Outcome<ReadResourceResult>, McpError> {
    value.into_resource_result(uri)
}

/// A tool route from a described tool and a generated call.
pub fn tool_route<F, Fut>(tool: Tool, call: F) -> ToolRoute
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Result<Outcome<CallToolResult>, McpError>, Rejection>>
        + Send
        + 'static,
{
    ToolRoute::from_parts(tool, call)
}

/// A prompt route from a described prompt and a generated call.
pub fn prompt_route<F, Fut>(prompt: Prompt, get: F) -> PromptRoute
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Result<Outcome<GetPromptResult>, McpError>, Rejection>>
        + Send
        + 'static,
{
    PromptRoute::from_parts(prompt, get)
}

/// A resource route from a described resource and a generated read.
pub fn resource_route<F, Fut>(resource: Resource, read: F) -> ResourceRoute
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Result<Outcome<ReadResourceResult>, McpError>, Rejection>>
        + Send
        + 'static,
{
    ResourceRoute::from_parts(resource, read)
}

/// A template route from a described template (checked by the macro) and a generated read.
pub fn template_route<F, Fut>(template: ResourceTemplate, read: F) -> ResourceTemplateRoute
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Result<Outcome<ReadResourceResult>, McpError>, Rejection>>
        + Send
        + 'static,
{
    ResourceTemplateRoute::from_parts(template, read)
}
