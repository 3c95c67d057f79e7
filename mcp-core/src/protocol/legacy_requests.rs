//! Input requests as server-to-client requests of a 2025-11-25 session (or an older revision it
//! negotiated): how [`InputRequest`]s of a multi-round result are spelled when the server
//! pushes them to a client of the `initialize` era.
//!
//! Shapes follow `schema/2025-11-25/schema.ts` and `schema/2025-06-18/schema.ts`:
//! - 2025-11-25 takes every form field as 2026-07-28 does; a URL-mode request carries the
//!   `elicitationId` that revision requires (minted by the server).
//! - 2025-06-18 knows forms only: no `mode`, no `$schema`, no defaults except on booleans, a
//!   titled single choice as `enum` + `enumNames`, and no multi-select fields. URL mode does
//!   not exist there.
//! - `sampling/createMessage` and `roots/list` are sent as they are.

use serde_json::{Map, Value};

use super::{
    ElicitRequestParams, InputRequest, LegacyTitledEnumSchema, PrimitiveSchemaDefinition,
    RequestedSchema,
};

/// The first revision with titled choices, multi-select fields, defaults and URL mode.
const RICH_FORMS: &str = "2025-11-25";

/// Why an input request cannot be spelled for a session's revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unspellable {
    /// What the revision lacks.
    pub reason: String,
}

impl std::fmt::Display for Unspellable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Unspellable {}

/// A server-to-client request of a session: its method and params.
#[derive(Debug, Clone, PartialEq)]
pub struct PushedRequest {
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`.
    pub method: &'static str,
    /// The params, spelled for the session's revision.
    pub params: Value,
    /// For a URL-mode elicitation, the `elicitationId` it carries.
    pub elicitation_id: Option<String>,
}

/// Spells `request` for a session that negotiated `version` (one of
/// [`LegacyVersion::SUPPORTED`](super::LegacyVersion::SUPPORTED)). `elicitation_id` names a URL-mode elicitation (2025-11-25
/// requires one, unique within the server).
///
/// ```
/// use typemcp_core::protocol::{
///     legacy_push_request, ElicitRequestParams, EnumOption, InputRequest,
///     PrimitiveSchemaDefinition, RequestedSchema, TitledSingleSelectEnumSchema,
/// };
/// let mut choice = TitledSingleSelectEnumSchema::new();
/// choice.one_of = vec![EnumOption { value: "eu".into(), title: "Europe".into() }];
/// let schema = RequestedSchema::new(
///     [("region".to_owned(), PrimitiveSchemaDefinition::TitledSingleSelect(choice))].into(),
///     vec![],
/// );
/// let ask = InputRequest::Elicitation(ElicitRequestParams::form("Where?", schema));
/// let old = legacy_push_request(&ask, "2025-06-18", "e1").unwrap();
/// assert_eq!(old.params["requestedSchema"]["properties"]["region"]["enumNames"][0], "Europe");
/// let new = legacy_push_request(&ask, "2025-11-25", "e1").unwrap();
/// assert_eq!(new.params["requestedSchema"]["properties"]["region"]["oneOf"][0]["const"], "eu");
/// ```
pub fn legacy_push_request(
    request: &InputRequest,
    version: &str,
    elicitation_id: &str,
) -> Result<PushedRequest, Unspellable> {
    let rich = version >= RICH_FORMS;
    let (method, params, elicitation_id) = match request {
        InputRequest::Elicitation(ElicitRequestParams::Url { .. }) if !rich => {
            return Err(Unspellable {
                reason: format!(
                    "URL-mode elicitation needs a {RICH_FORMS} session; this one speaks {version}"
                ),
            });
        }
        InputRequest::Elicitation(params @ ElicitRequestParams::Url { .. }) => {
            let mut value = to_value(params)?;
            if let Value::Object(map) = &mut value {
                map.insert(
                    "elicitationId".to_owned(),
                    Value::String(elicitation_id.to_owned()),
                );
            }
            ("elicitation/create", value, Some(elicitation_id.to_owned()))
        }
        InputRequest::Elicitation(params) if rich => {
            ("elicitation/create", to_value(params)?, None)
        }
        InputRequest::Elicitation(ElicitRequestParams::Form {
            message,
            requested_schema,
            ..
        }) => {
            let schema = older_form(requested_schema, version)?;
            let mut params = Map::new();
            params.insert("message".to_owned(), Value::String(message.clone()));
            params.insert("requestedSchema".to_owned(), to_value(&schema)?);
            ("elicitation/create", Value::Object(params), None)
        }
        InputRequest::Sampling(params) => ("sampling/createMessage", to_value(params)?, None),
        InputRequest::ListRoots(params) => ("roots/list", Value::Object(params.clone()), None),
    };
    Ok(PushedRequest {
        method,
        params,
        elicitation_id,
    })
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, Unspellable> {
    serde_json::to_value(value).map_err(|err| Unspellable {
        reason: format!("the request could not be serialized: {err}"),
    })
}

/// A form as 2025-06-18 spells it.
fn older_form(schema: &RequestedSchema, version: &str) -> Result<RequestedSchema, Unspellable> {
    let mut properties = schema.properties.clone();
    for (name, field) in &mut properties {
        *field = match field.clone() {
            PrimitiveSchemaDefinition::TitledSingleSelect(choice) => {
                let mut legacy = LegacyTitledEnumSchema::new();
                legacy.title = choice.title;
                legacy.description = choice.description;
                legacy.values = choice.one_of.iter().map(|o| o.value.clone()).collect();
                legacy.enum_names = choice.one_of.into_iter().map(|o| o.title).collect();
                PrimitiveSchemaDefinition::LegacyTitled(legacy)
            }
            PrimitiveSchemaDefinition::TitledMultiSelect(_)
            | PrimitiveSchemaDefinition::UntitledMultiSelect(_) => {
                return Err(Unspellable {
                    reason: format!(
                        "the multi-select field {name:?} needs a {RICH_FORMS} session; this one \
                         speaks {version}"
                    ),
                });
            }
            PrimitiveSchemaDefinition::UntitledSingleSelect(mut choice) => {
                choice.default = None;
                PrimitiveSchemaDefinition::UntitledSingleSelect(choice)
            }
            PrimitiveSchemaDefinition::LegacyTitled(mut choice) => {
                choice.default = None;
                PrimitiveSchemaDefinition::LegacyTitled(choice)
            }
            PrimitiveSchemaDefinition::String(mut text) => {
                text.default = None;
                PrimitiveSchemaDefinition::String(text)
            }
            PrimitiveSchemaDefinition::Number(mut number) => {
                number.default = None;
                PrimitiveSchemaDefinition::Number(number)
            }
            other => other,
        };
    }
    Ok(RequestedSchema::new(properties, schema.required.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        BooleanSchema, CreateMessageParams, EnumOption, StringSchema, TitledMultiSelectEnumSchema,
        TitledSingleSelectEnumSchema,
    };
    use serde_json::json;

    fn form(fields: Vec<(&str, PrimitiveSchemaDefinition)>) -> InputRequest {
        let properties = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        InputRequest::Elicitation(ElicitRequestParams::form(
            "Q?",
            RequestedSchema::new(properties, vec!["a".to_owned()]),
        ))
    }

    #[test]
    fn forms_keep_the_2026_shape_on_2025_11_25_and_lose_it_on_2025_06_18() {
        let mut text = StringSchema::new();
        text.default = Some("x".to_owned());
        let mut yes = BooleanSchema::new();
        yes.default = Some(true);
        let mut choice = TitledSingleSelectEnumSchema::new();
        choice.one_of = vec![EnumOption {
            value: "p".to_owned(),
            title: "Production".to_owned(),
        }];
        choice.default = Some("p".to_owned());
        let ask = form(vec![
            ("a", PrimitiveSchemaDefinition::String(text)),
            ("b", PrimitiveSchemaDefinition::Boolean(yes)),
            ("c", PrimitiveSchemaDefinition::TitledSingleSelect(choice)),
        ]);
        let new = legacy_push_request(&ask, "2025-11-25", "e").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(new.method, "elicitation/create");
        assert_eq!(new.params["mode"], "form");
        assert_eq!(
            new.params["requestedSchema"]["properties"]["a"]["default"],
            "x"
        );
        let old = legacy_push_request(&ask, "2025-06-18", "e").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            old.params,
            json!({"message": "Q?", "requestedSchema": {"type": "object", "properties": {
                "a": {"type": "string"},
                "b": {"type": "boolean", "default": true},
                "c": {"type": "string", "enum": ["p"], "enumNames": ["Production"]}
            }, "required": ["a"]}})
        );
        let multi = form(vec![(
            "m",
            PrimitiveSchemaDefinition::TitledMultiSelect(TitledMultiSelectEnumSchema::new()),
        )]);
        assert!(legacy_push_request(&multi, "2025-06-18", "e").is_err());
        assert!(legacy_push_request(&multi, "2025-11-25", "e").is_ok());
    }

    #[test]
    fn url_mode_carries_an_elicitation_id_and_needs_2025_11_25() {
        let url = InputRequest::Elicitation(ElicitRequestParams::url("Pay", "https://pay.example"));
        let pushed =
            legacy_push_request(&url, "2025-11-25", "el-7").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            pushed.params,
            json!({"mode": "url", "message": "Pay", "url": "https://pay.example", "elicitationId": "el-7"})
        );
        assert_eq!(pushed.elicitation_id.as_deref(), Some("el-7"));
        assert!(legacy_push_request(&url, "2025-06-18", "el-7").is_err());
    }

    #[test]
    fn sampling_and_roots_are_sent_as_they_are() {
        let roots = legacy_push_request(&InputRequest::list_roots(), "2025-06-18", "e")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((roots.method, roots.params), ("roots/list", json!({})));
        let sampling = InputRequest::Sampling(CreateMessageParams::default());
        let pushed =
            legacy_push_request(&sampling, "2025-11-25", "e").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pushed.method, "sampling/createMessage");
    }
}
