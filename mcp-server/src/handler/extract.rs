//! Extractors: the types a handler may take as parameters.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use super::Invocation;
use crate::RequestContext;
use crate::error::Rejection;

/// A value a handler can take as a parameter, built from the [`Invocation`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a handler parameter",
    label = "not an extractor",
    note = "handler parameters must be extractors: `Arguments<T>`, `RequestContext`, `State<T>`, `UriParams<T>`, `CancellationToken`, `Round<S>`, `InputResponses`, `RawInputResponses` or `RequestState`",
    note = "to receive the tool's arguments, wrap your struct: `Arguments<{Self}>` (it must derive `Deserialize` and `JsonSchema`)"
)]
pub trait FromInvocation: Sized {
    /// Builds the value.
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection>;

    /// The JSON Schema of the arguments, for the one extractor that reads them.
    fn argument_schema(_generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        None
    }

    /// What this extractor needs from the server, checked when the server is built
    /// (see [`Requirements`](super::Requirements)).
    fn requirements(requirements: &mut super::Requirements) {
        let _ = requirements;
    }
}

/// A type that can be one named argument of a `#[tool]` or `#[prompt]` function: anything
/// serde can read and schemars can describe. Implemented for every such type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a tool argument nor an extractor",
    label = "this parameter is not an argument (`Deserialize + JsonSchema`) nor an extractor (`FromInvocation`)",
    note = "an argument type implements `serde::Deserialize` and `schemars::JsonSchema`",
    note = "an extractor implements `FromInvocation`: `RequestContext`, `State<T>`, `CancellationToken`, `Round<S>`, `InputResponses`, `RawInputResponses`, `RequestState`, or `Arguments<T>` for a `T` that derives `ToolInput`",
    note = "for shared application state, take `State<{Self}>` and register it with `ServerBuilder::state`"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {}

/// A type that can be a parameter of a `#[resource]` function other than a template
/// variable: an extractor.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a resource",
    label = "not a template variable nor an extractor",
    note = "a resource parameter is either a template variable (named like a `{{var}}` of `template = \"...\"`) or an extractor (`RequestContext`, `State<T>`, `CancellationToken`, `Round<S>`, `InputResponses`, `RequestState`)"
)]
pub trait ResourceParam: FromInvocation {}

#[diagnostic::do_not_recommend]
impl<T: FromInvocation> ResourceParam for T {}

/// A type whose JSON Schema is an object, so it can be a tool's whole `arguments`.
///
/// Derive it (`#[derive(Deserialize, JsonSchema, ToolInput)]`) on a struct with named fields;
/// the derive refuses anything else at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the arguments object of a tool",
    label = "its JSON Schema root is not known to be an object",
    note = "derive it on a struct with named fields: `#[derive(Deserialize, JsonSchema, ToolInput)]`"
)]
pub trait ToolInput: DeserializeOwned + JsonSchema {}

impl ToolInput for serde_json::Map<String, serde_json::Value> {}

impl<V: DeserializeOwned + JsonSchema> ToolInput for std::collections::HashMap<String, V> {}

impl<V: DeserializeOwned + JsonSchema> ToolInput for std::collections::BTreeMap<String, V> {}

/// The tool's or prompt's whole `arguments` object, deserialized into `T`. Its JSON Schema
/// becomes the tool's `inputSchema`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arguments<T>(pub T);

impl<T: ToolInput> FromInvocation for Arguments<T> {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        read(invocation.arguments.text())
            .map(Arguments)
            .map_err(|err| invalid_arguments(None, &err))
    }

    fn argument_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        Some(generator.root_schema_for::<T>())
    }
}

/// Reads JSON `text` into `T`, straight from the text; on failure, the JSON path of the first
/// problem with serde's reason. The path is only needed when there is one: the text is read
/// again to find it.
fn read<T: DeserializeOwned>(
    text: &str,
) -> Result<T, serde_path_to_error::Error<serde_json::Error>> {
    serde_json::from_str(text).or_else(|_| {
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
    })
}

/// Reads the named argument `name` from its raw JSON `value` (`null` when absent) into `T`,
/// by parsing: the handler's own types are the validation. A missing required argument and
/// a value that does not fit both name the argument, the latter with the JSON path of the
/// first problem.
pub(crate) fn parse_argument<T: DeserializeOwned>(
    name: &str,
    value: Option<&serde_json::value::RawValue>,
) -> Result<T, Rejection> {
    let text = value.map_or("null", serde_json::value::RawValue::get);
    read(text).map_err(|err| {
        if text == "null" {
            Rejection::InvalidArguments(format!(
                "Invalid arguments: missing required argument `{name}`"
            ))
        } else {
            invalid_arguments(Some(name), &err)
        }
    })
}

/// `Invalid arguments: at `target.kind`: unknown variant ...`: the path of the first problem
/// (below the argument `name`, when the value is one named argument) and serde's reason.
fn invalid_arguments(
    name: Option<&str>,
    err: &serde_path_to_error::Error<serde_json::Error>,
) -> Rejection {
    let inner = err.path().to_string();
    let path = match (name, inner.as_str()) {
        (Some(name), ".") => name.to_owned(),
        (Some(name), inner) if inner.starts_with('[') => format!("{name}{inner}"),
        (Some(name), inner) => format!("{name}.{inner}"),
        (None, ".") => String::new(),
        (None, inner) => inner.to_owned(),
    };
    let reason = typemcp_core::jsonrpc::without_position(err.inner());
    Rejection::InvalidArguments(if path.is_empty() {
        format!("Invalid arguments: {reason}")
    } else {
        format!("Invalid arguments: at `{path}`: {reason}")
    })
}

/// The variables a resource template matched, deserialized into `T` (a struct whose field
/// names are the template's variable names, or a map).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UriParams<T>(pub T);

impl<T: DeserializeOwned> FromInvocation for UriParams<T> {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        let map: serde_json::Map<String, serde_json::Value> = invocation
            .uri_params
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        T::deserialize(serde_json::Value::Object(map))
            .map(UriParams)
            .map_err(|err| Rejection::InvalidArguments(format!("Invalid URI parameters: {err}")))
    }
}

/// Shared application state registered with
/// [`ServerBuilder::state`](crate::ServerBuilder::state), cloned for each call (wrap large
/// state in an `Arc`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct State<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromInvocation for State<T> {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        invocation
            .context
            .server()
            .state::<T>()
            .map(State)
            .ok_or_else(|| {
                Rejection::Error(internal_error!(
                    state = std::any::type_name::<T>(),
                    "a handler asked for state that was never registered with ServerBuilder::state"
                ))
            })
    }

    fn requirements(requirements: &mut super::Requirements) {
        requirements.state::<T>();
    }
}

impl FromInvocation for RequestContext {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(invocation.context.clone())
    }
}

impl FromInvocation for CancellationToken {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(invocation.context.cancellation().clone())
    }
}
