//! Checking an answer against the form's own schema, with a maintained JSON Schema
//! validator (formats included), before the typed value is built.

use serde_json::{Map, Value};

use super::answer::FieldProblem;
use crate::protocol::RequestedSchema;

/// A compiled validator for one form. Build it once per form type.
#[derive(Debug)]
pub struct FormValidator {
    validator: Option<jsonschema::Validator>,
}

impl FormValidator {
    /// Compiles the validator of `schema`.
    pub fn new(schema: &RequestedSchema) -> Self {
        let validator = serde_json::to_value(schema).ok().and_then(|schema| {
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .build(&schema)
                .ok()
        });
        Self { validator }
    }

    /// Every way `content` breaks the form's constraints.
    pub fn check(&self, content: &Map<String, Value>) -> Vec<FieldProblem> {
        let Some(validator) = &self.validator else {
            return vec![FieldProblem {
                field: None,
                reason: "the form's schema could not be compiled".into(),
            }];
        };
        let instance = Value::Object(content.clone());
        validator
            .iter_errors(&instance)
            .map(|err| {
                // A missing field is reported at the object itself: name the field instead.
                let field = match err.kind() {
                    jsonschema::error::ValidationErrorKind::Required { property } => {
                        property.as_str().map(str::to_owned)
                    }
                    _ => {
                        let path = err.instance_path().to_string();
                        let first = path.trim_start_matches('/').split('/').next();
                        first.filter(|f| !f.is_empty()).map(str::to_owned)
                    }
                };
                FieldProblem {
                    field,
                    reason: shorten(err.to_string()),
                }
            })
            .collect()
    }
}

/// The longest reason kept: validator messages quote the (untrusted) value they refuse.
const MAX_REASON_CHARS: usize = 200;

fn shorten(reason: String) -> String {
    if reason.chars().count() <= MAX_REASON_CHARS {
        return reason;
    }
    let mut short: String = reason.chars().take(MAX_REASON_CHARS).collect();
    short.push('…');
    short
}
