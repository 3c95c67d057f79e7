//! JSON Schema generation (schemars, 2020-12) and argument validation (jsonschema).

use mcp_core::McpError;
use serde_json::{Map, Value};

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

/// An input schema must describe an object at its root.
pub(crate) fn root_is_object(schema: &Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// A compiled input-schema validator.
#[derive(Debug)]
pub(crate) struct ArgumentValidator {
    validator: jsonschema::Validator,
}

impl ArgumentValidator {
    /// Compiles `schema`. Fails when the schema itself is invalid.
    pub(crate) fn compile(schema: &Map<String, Value>) -> Result<Self, String> {
        jsonschema::validator_for(&Value::Object(schema.clone()))
            .map(|validator| Self { validator })
            .map_err(|err| err.to_string())
    }

    /// Checks `arguments`, describing every violation in one message.
    pub(crate) fn check(&self, arguments: &Value) -> Result<(), String> {
        let problems: Vec<String> = self
            .validator
            .iter_errors(arguments)
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
