//! An email address field (`format: email`).

use std::fmt;

use serde_json::Value;

use super::field::{FieldSpec, FieldValue, LengthField, text_of_format, text_schema};
use super::{formats, rules};
use crate::protocol::{PrimitiveSchemaDefinition, StringFormat};

/// An email address, checked when read from an answer.
///
/// ```
/// use typemcp_core::form::Email;
/// assert!(Email::parse("ann@example.com").is_ok());
/// assert!(Email::parse("not an email").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Email(String);

/// The text is not an email address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an email address")]
pub struct InvalidEmail(String);

impl Email {
    /// Checks the shape `local@domain.tld` (no spaces, one `@`, a dot in the domain).
    pub fn parse(text: &str) -> Result<Self, InvalidEmail> {
        if formats::is_email(text) {
            Ok(Self(text.to_owned()))
        } else {
            Err(InvalidEmail(text.to_owned()))
        }
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FieldValue for Email {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        text_schema(
            spec,
            Some(StringFormat::Email),
            default.map(|d| d.0.clone()),
        )
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        text_of_format(value, StringFormat::Email, problems);
    }

    fn parse(value: &Value) -> Result<Self, String> {
        rules::text(value)?;
        Email::parse(value.as_str().unwrap_or_default()).map_err(|e| e.to_string())
    }
}

impl LengthField for Email {}
