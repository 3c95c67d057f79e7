//! Elicitation: asking the user through the client, in form mode or URL mode.
//!
//! A form is a flat object whose properties are the eight primitive field schemas of
//! [`PrimitiveSchemaDefinition`]. Nested objects are not part of the vocabulary.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Declares a unit type that serializes as one fixed string and accepts only that string.
macro_rules! literal {
    ($(#[$doc:meta])* $name:ident = $lit:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($lit)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                if v == $lit {
                    Ok(Self)
                } else {
                    Err(serde::de::Error::custom(concat!("expected \"", $lit, "\"")))
                }
            }
        }
    };
}

literal!(
    /// The literal `"string"`.
    StringType = "string"
);
literal!(
    /// The literal `"boolean"`.
    BooleanType = "boolean"
);
literal!(
    /// The literal `"array"`.
    ArrayType = "array"
);
literal!(
    /// The literal `"object"`.
    ObjectType = "object"
);
literal!(
    /// The literal `"form"`.
    FormMode = "form"
);
literal!(
    /// The literal `"url"`.
    UrlMode = "url"
);

/// The `format` of a string field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StringFormat {
    /// An email address.
    Email,
    /// A URI.
    Uri,
    /// A calendar date (`YYYY-MM-DD`).
    Date,
    /// A date and time (RFC 3339).
    DateTime,
}

/// A free-text field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    #[serde(rename = "type")]
    kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// `"number"` or `"integer"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Whole numbers.
    Integer,
}

/// A numeric field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `number` or `integer`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Inclusive minimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<serde_json::Number>,
    /// Inclusive maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<serde_json::Number>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Number>,
}

/// A yes/no field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BooleanSchema {
    #[serde(rename = "type")]
    kind: BooleanType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A value with a display label, in titled choices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value sent back.
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
}

/// Single choice; the values are what the user sees.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    #[serde(rename = "type")]
    kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Single choice; each value has a display label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    #[serde(rename = "type")]
    kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledItems {
    #[serde(rename = "type")]
    kind: StringType,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi-select.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
}

/// Several choices; the values are what the user sees.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    #[serde(rename = "type")]
    kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several choices; each value has a display label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    #[serde(rename = "type")]
    kind: ArrayType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Single choice in the older `enumNames` spelling (deprecated; for 2025-11-25 clients).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    #[serde(rename = "type")]
    kind: StringType,
    /// Label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display labels, parallel to `values`.
    pub enum_names: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// One field of an elicitation form: the eight primitive schemas of the specification.
///
/// ```
/// use typemcp_core::protocol::{PrimitiveSchemaDefinition, StringSchema};
/// let field: PrimitiveSchemaDefinition =
///     serde_json::from_value(serde_json::json!({"type": "string", "enum": ["a", "b"]})).unwrap();
/// assert!(matches!(field, PrimitiveSchemaDefinition::UntitledSingleSelect(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// Titled multi-select (`items.anyOf`).
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// Untitled multi-select (`items.enum`).
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Titled single-select (`oneOf`).
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Legacy titled single-select (`enum` + `enumNames`).
    LegacyTitled(LegacyTitledEnumSchema),
    /// Untitled single-select (`enum`).
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// Free text.
    String(StringSchema),
    /// Number or integer.
    Number(NumberSchema),
    /// Yes/no.
    Boolean(BooleanSchema),
}

macro_rules! constructors {
    ($($ty:ident),*) => {$(
        impl $ty {
            /// An empty schema of this kind; set the public fields to configure it.
            pub fn new() -> Self {
                Self::default()
            }
        }
    )*};
}
constructors!(
    StringSchema,
    BooleanSchema,
    UntitledSingleSelectEnumSchema,
    TitledSingleSelectEnumSchema,
    UntitledMultiSelectEnumSchema,
    TitledMultiSelectEnumSchema,
    LegacyTitledEnumSchema,
    UntitledItems,
    TitledItems
);

impl NumberSchema {
    /// A schema for numbers of the given kind.
    pub fn new(kind: NumberType) -> Self {
        Self {
            kind,
            ..Self::default()
        }
    }
}

/// The `requestedSchema` of a form: a flat object of primitive fields, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestedSchema {
    /// Optional JSON Schema dialect.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    #[serde(rename = "type")]
    kind: ObjectType,
    /// The fields, in the order they are shown.
    pub properties: IndexMap<String, PrimitiveSchemaDefinition>,
    /// Names of fields that must be answered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
}

impl RequestedSchema {
    /// A form with the given fields and required names.
    pub fn new(
        properties: IndexMap<String, PrimitiveSchemaDefinition>,
        required: Vec<String>,
    ) -> Self {
        Self {
            schema: None,
            kind: ObjectType,
            properties,
            required,
        }
    }
}

/// The params of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Send the user to a URL (checked first: it has the required `mode: "url"`).
    #[serde(rename_all = "camelCase")]
    Url {
        /// Always `url`.
        mode: UrlMode,
        /// Why the user should visit.
        message: String,
        /// Where to go.
        url: String,
    },
    /// Ask the user to fill a form.
    #[serde(rename_all = "camelCase")]
    Form {
        /// `form` (may be omitted on the wire).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<FormMode>,
        /// The question.
        message: String,
        /// The form.
        requested_schema: RequestedSchema,
    },
}

impl ElicitRequestParams {
    /// A form-mode request.
    pub fn form(message: impl Into<String>, schema: RequestedSchema) -> Self {
        Self::Form {
            mode: Some(FormMode),
            message: message.into(),
            requested_schema: schema,
        }
    }

    /// A URL-mode request.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url {
            mode: UrlMode,
            message: message.into(),
            url: url.into(),
        }
    }
}

/// How the user answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or consented (URL).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The client's answer to `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form values, for `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}
