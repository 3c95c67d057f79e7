//! Runtime helpers for the code `typemcp-macros` generates. Not a public API: reached only
//! through `typemcp_server::__private_v0_1` (a name carrying the version shared with
//! `typemcp-macros`), so generated code never depends on a user's imports.

use std::future::Future;
use std::marker::PhantomData;

pub use typemcp_core;
pub use typemcp_core::protocol::{
    PrimitiveSchemaDefinition, RequestedSchema, StringFormat, ToolAnnotations,
};

/// Form support: the vocabulary traits, and compile-time assertions the form derive emits.
pub mod form {
    pub use typemcp_core::form::*;

    /// `min_length`, `max_length` and `format` apply to the field's type.
    pub fn assert_length<T: typemcp_core::form::LengthField>() {}
    /// `min_items` and `max_items` apply to the field's type.
    pub fn assert_items<T: typemcp_core::form::ItemsField>() {}
    /// `legacy_enum_names` applies to the field's type (a single choice).
    pub fn assert_choice<T: LegacyChoice>() {}

    /// A single-choice field, the only kind `legacy_enum_names` applies to.
    #[diagnostic::on_unimplemented(
        message = "`legacy_enum_names` applies to single-choice fields, and `{Self}` is not one",
        label = "not an enum deriving `FormChoice`"
    )]
    pub trait LegacyChoice {}

    impl<T: typemcp_core::form::FormChoice> LegacyChoice for T {}
}
pub use schemars;
pub use serde;
pub use serde_json;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use typemcp_core::McpError;

use crate::handler::{
    Arguments, FromInvocation, IntoPromptResult, IntoResourceResult, IntoToolResult, Invocation,
    Rejection, Requirements, ToolArgument, ToolInput,
};
use crate::registry::schema;

/// Selects, by trait, how a handler parameter of type `T` is filled: the whole arguments
/// object for `Arguments<T>`, an extractor when `T: FromInvocation`, otherwise a named
/// argument (`T: ToolArgument`). Generated code calls
/// `(&&&ParamProbe::<T>::new()).extract(..)`; method resolution tries `&&ParamProbe<T>`
/// ([`ViaArguments`]), then `&ParamProbe<T>` ([`ViaExtractor`]), then `ParamProbe<T>`
/// ([`ViaArgument`]).
#[derive(Debug)]
pub struct ParamProbe<T>(PhantomData<fn() -> T>);

impl<T> ParamProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for ParamProbe<T> {
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
    /// `Arguments<T>` needs nothing from the server.
    fn require(&self, _requirements: &mut Requirements) {}
}

impl<T> ViaArguments<T> for &&ParamProbe<Arguments<T>> {
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
    /// What the extractor needs from the server.
    fn require(&self, requirements: &mut Requirements);
}

impl<T: FromInvocation> ViaExtractor<T> for &ParamProbe<T> {
    fn extract(&self, invocation: &Invocation, _name: &'static str) -> Result<T, Rejection> {
        T::from_invocation(invocation)
    }

    fn describe(&self, generator: &mut schemars::SchemaGenerator) -> Option<ParamSchema> {
        extractor_schema::<T>(generator)
    }

    fn require(&self, requirements: &mut Requirements) {
        requirements.extractor::<T>();
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
    /// Arguments need nothing from the server.
    fn require(&self, _requirements: &mut Requirements) {}
}

impl<T> ViaArgument<T> for ParamProbe<T> {
    fn extract(&self, invocation: &Invocation, name: &'static str) -> Result<T, Rejection>
    where
        T: ToolArgument,
    {
        crate::handler::parse_argument(name, invocation.arguments.member(name))
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

/// The marker of handlers the declaration macros implement [`Handler`](crate::Handler) for
/// (closures use the tuple of their parameter types).
#[derive(Debug, Clone, Copy)]
pub enum Declared {}

/// A described object schema as a [`schemars::Schema`].
pub fn schema_of(object: Map<String, Value>) -> schemars::Schema {
    schemars::Schema::from(object)
}

/// Asserts a tool's return type converts into a tool result (errors point at it).
pub fn assert_tool_output<R: IntoToolResult>() {}

/// Asserts a prompt's return type converts into a prompt result.
pub fn assert_prompt_output<R: IntoPromptResult>() {}

/// Asserts a resource's return type converts into a resource result.
pub fn assert_resource_output<R: IntoResourceResult>() {}

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
        return Err(Rejection::Error(internal_error!(
            variable = name,
            "a resource template handler reads a variable its URI template does not have"
        )));
    };
    T::deserialize(Value::String(raw.clone()))
        .or_else(|_| serde_json::from_str::<T>(raw))
        .map_err(|err| {
            Rejection::Error(McpError::invalid_params(format!(
                "Invalid URI variable `{name}`: {err}"
            )))
        })
}

/// One described parameter: its name, its doc comment, the header it is mirrored into
/// (`#[arg(header = "..")]`) and its schema (`None` for an extractor that describes nothing).
pub type Described = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<ParamSchema>,
);

/// The input schema of individual argument parameters: an object with one property each.
/// Every definition the parameters' types refer to (`$ref`) lands in the root's `$defs`.
pub fn object_schema(
    generator: &mut schemars::SchemaGenerator,
    params: Vec<Described>,
) -> Map<String, Value> {
    let (wholes, params): (Vec<_>, Vec<_>) = params
        .into_iter()
        .partition(|(_, _, _, p)| p.as_ref().is_some_and(|p| p.whole));
    // An `Arguments<T>` parameter describes the whole object; named parameters add to it.
    let mut schema = wholes
        .into_iter()
        .find_map(|(_, _, _, p)| p)
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
    for (name, doc, header, param) in params {
        let Some(param) = param else { continue };
        let mut value = param.schema.to_value();
        if let (Some(doc), Value::Object(map)) = (doc, &mut value) {
            map.insert("description".into(), Value::from(doc));
        }
        if let Some(header) = header {
            mirror(&mut value, header);
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
    schema::move_definitions(generator, &mut schema);
    schema
}

/// Marks a property as mirrored into `Mcp-Param-{header}` (`x-mcp-header`). An optional
/// argument (`"type": ["string", "null"]`) is listed with its one type, since clients leave
/// out a `None` rather than send `null`, and an annotated property has a single type. The
/// registration checks the rest (the type, where the property is).
fn mirror(property: &mut Value, header: &'static str) {
    if let Value::Bool(true) = property {
        *property = Value::Object(Map::new());
    }
    let Value::Object(map) = property else { return };
    if let Some(Value::Array(types)) = map.get("type") {
        let mut set: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if set.len() == 1 && set.len() < types.len() {
            let single = set.remove(0).clone();
            map.insert("type".into(), single);
        }
    }
    map.insert(
        crate::registry::param_headers::ANNOTATION.into(),
        Value::from(header),
    );
}

/// A parameter mirrored into a header (`#[arg(header = "..")]`) is a named argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mirrored into a header",
    label = "`#[arg(header)]` needs a named argument (`Deserialize + JsonSchema`), not an extractor",
    note = "a header mirrors one argument of type `String`, an integer or `bool` (checked when the tool is registered)"
)]
pub trait HeaderArgument {}

#[diagnostic::do_not_recommend]
impl<T: ToolArgument> HeaderArgument for T {}

/// Asserts a mirrored parameter is an argument (errors point at its type).
pub fn header_argument<T: HeaderArgument>() {}
