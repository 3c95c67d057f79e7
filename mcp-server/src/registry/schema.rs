//! JSON Schema generation (schemars, 2020-12), the clean-up of what schemars emits beyond
//! the standard (`format` values such as `uint8` or `double`), and the opt-in validation of
//! arguments against a hand-written schema (`jsonschema`, feature `schema-validation`).

use serde_json::{Map, Value};
use typemcp_core::McpError;

/// A schema generator configured for JSON Schema 2020-12.
pub(crate) fn generator() -> schemars::SchemaGenerator {
    schemars::generate::SchemaSettings::draft2020_12().into_generator()
}

/// Converts a generated root schema into a JSON object, dropping the root `title`
/// (the Rust type name, meaningless to a model).
pub(crate) fn to_object(schema: schemars::Schema) -> Map<String, Value> {
    let mut value = schema.to_value();
    let mut map = match value.take() {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other => {
            let mut m = Map::new();
            m.insert("allOf".into(), Value::Array(vec![other]));
            m
        }
    };
    map.shift_remove("title");
    map
}

/// Moves every definition `generator` has collected into `schema`'s `$defs`, so that each
/// `$ref` of the schema resolves inside it (definitions already there are kept).
pub(crate) fn move_definitions(
    generator: &mut schemars::SchemaGenerator,
    schema: &mut Map<String, Value>,
) {
    let definitions = generator.take_definitions(true);
    if definitions.is_empty() {
        return;
    }
    let defs = schema
        .entry("$defs")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(defs) = defs {
        for (name, definition) in definitions {
            defs.entry(name).or_insert(definition);
        }
    }
}

/// The `format` values JSON Schema 2020-12 defines (its format vocabulary, section 7.3):
/// the only ones generated schemas keep. schemars also emits its own (`uint8`, `int64`,
/// `double`, ...), which clients warn about (the TypeScript SDK prints one warning per
/// property); the numeric bounds it emits beside them (`minimum`, `maximum`) already say what
/// such a format would.
///
/// ```
/// use typemcp_server::registry::STANDARD_FORMATS;
/// assert!(STANDARD_FORMATS.contains(&"date-time"));
/// assert!(!STANDARD_FORMATS.contains(&"uint8"));
/// ```
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Keywords whose value is data (an instance), not a schema: a `format` in there is kept.
const DATA_KEYWORDS: &[&str] = &["const", "default", "enum", "examples"];

/// Removes every `format` that is not a JSON Schema 2020-12 format from a generated schema,
/// its subschemas and its `$defs`. Values given as data (`const`, `default`, `enum`,
/// `examples`) are left as they are.
pub(crate) fn keep_standard_formats(schema: &mut Map<String, Value>) {
    if schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| !STANDARD_FORMATS.contains(&format))
    {
        schema.shift_remove("format");
    }
    for (keyword, value) in schema.iter_mut() {
        if !DATA_KEYWORDS.contains(&keyword.as_str()) {
            keep_standard_formats_in(value);
        }
    }
}

/// [`keep_standard_formats`] for every schema inside `value` (an object, or an array or map
/// of subschemas).
fn keep_standard_formats_in(value: &mut Value) {
    match value {
        Value::Object(map) => keep_standard_formats(map),
        Value::Array(items) => items.iter_mut().for_each(keep_standard_formats_in),
        _ => {}
    }
}

/// An input schema must describe an object at its root.
pub(crate) fn root_is_object(schema: &Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Optional validation of arguments against a tool's input schema (feature
/// `schema-validation`): off by default, since parsing into the handler's types already
/// validates derived schemas.
#[cfg(feature = "schema-validation")]
#[derive(Debug, Default, Clone)]
pub(crate) struct Validation {
    /// `None`: off. `Some`: on, compiled once when the route is registered.
    compiled: Option<std::sync::Arc<std::sync::OnceLock<Result<jsonschema::Validator, String>>>>,
}

#[cfg(feature = "schema-validation")]
impl Validation {
    /// Validation turned on, not compiled yet.
    pub(crate) fn enabled() -> Self {
        Self {
            compiled: Some(std::sync::Arc::default()),
        }
    }

    /// Compiles `schema` (once). Fails when the schema itself is invalid.
    pub(crate) fn compile(&self, schema: &Map<String, Value>) -> Result<(), String> {
        let Some(compiled) = &self.compiled else {
            return Ok(());
        };
        compiled
            .get_or_init(|| {
                jsonschema::validator_for(&Value::Object(schema.clone()))
                    .map_err(|err| err.to_string())
            })
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// Checks `arguments`, describing up to eight violations in one message (the validator
    /// reads a tree: built only for a route that validates).
    pub(crate) fn check(&self, arguments: &typemcp_core::jsonrpc::Params) -> Result<(), String> {
        let Some(Ok(validator)) = self.compiled.as_ref().and_then(|c| c.get()) else {
            return Ok(());
        };
        let arguments = Value::Object(arguments.to_object());
        let problems: Vec<String> = validator
            .iter_errors(&arguments)
            .take(8)
            .map(|err| {
                let path = err.instance_path().to_string();
                if path.is_empty() {
                    err.to_string()
                } else {
                    format!("{path}: {err}")
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("Invalid arguments: {}", problems.join("; ")))
        }
    }
}

/// The error a registration reports for an unusable schema.
pub(crate) fn invalid_schema(kind: &str, name: &str, why: &str) -> McpError {
    McpError::internal(format!("invalid {kind} schema for {name:?}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemars_formats_go_and_standard_ones_and_bounds_stay() {
        let mut schema = match json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "ratio": {"type": ["number", "null"], "format": "double"},
                "when": {"type": "string", "format": "date-time"},
                "format": {"type": "string", "format": "email", "default": {"format": "int64"}},
                "items": {"type": "array", "items": {"type": "integer", "format": "int64"}},
                "either": {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]}
            },
            "$defs": {"Id": {"type": "integer", "format": "uint32", "minimum": 0}}
        }) {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        keep_standard_formats(&mut schema);
        assert_eq!(
            Value::Object(schema),
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "minimum": 0, "maximum": 255},
                    "ratio": {"type": ["number", "null"]},
                    "when": {"type": "string", "format": "date-time"},
                    "format": {"type": "string", "format": "email", "default": {"format": "int64"}},
                    "items": {"type": "array", "items": {"type": "integer"}},
                    "either": {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]}
                },
                "$defs": {"Id": {"type": "integer", "minimum": 0}}
            })
        );
    }
}
