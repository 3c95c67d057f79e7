//! Elicitation forms from Rust types.
//!
//! A form is a flat object of primitive fields. Which Rust types may be fields is decided by
//! trait: [`FieldValue`] is implemented for text ([`String`], [`Email`]), numbers (every
//! integer and float type), `bool`, single choices (enums deriving `FormChoice`), several
//! choices (`Vec<E>` and `BTreeSet<E>` of such enums), and, behind features, dates and URLs.
//! Anything else (a nested struct, a map, a tuple) does not implement it, so a form that
//! uses one does not compile.
//!
//! The `ElicitForm` derive (or the `#[elicit_form]` attribute) of `mcp_server` implements
//! [`ElicitForm`] for a struct: its [`requested_schema`](ElicitForm::requested_schema) in
//! declaration order, and [`from_content`](ElicitForm::from_content), which validates an
//! untrusted answer against the same constraints and builds the typed value.
//! [`Answer`] reads a whole elicitation result: accepted, declined, cancelled, missing or
//! malformed.

mod answer;
mod choice;
mod email;
mod field;
mod mode;
mod validate;

use serde_json::{Map, Value};

use crate::protocol::RequestedSchema;

pub use answer::{Answer, FieldProblem, FormError};
pub use choice::{Choice, FormChoice, choice_schema, parse_choice};
pub use email::{Email, InvalidEmail};
pub use field::{FieldSpec, FieldValue, FormField, ItemsField, LengthField, RangeField, fits};
pub use mode::{ElicitationMode, UrlElicitation, choose_mode, form_request};
pub use validate::FormValidator;

/// A struct that can be asked for with a form, and read back from the answer.
///
/// Derive it with `#[derive(ElicitForm)]` (or `#[elicit_form]`) from `mcp_server`.
pub trait ElicitForm: Sized {
    /// The form sent to the client: one property per field, in declaration order.
    fn requested_schema() -> RequestedSchema;

    /// Validates the answered `content` against the form's constraints and builds the value,
    /// applying defaults to absent fields. Every problem is reported, not only the first.
    fn from_content(content: &Map<String, Value>) -> Result<Self, FormError>;
}

/// Reads one field of an answer that passed the schema check: its value, or its default
/// when absent, or a problem (recorded) when a required field is absent or the value does
/// not fit the Rust type. Used by the `ElicitForm` derive.
#[doc(hidden)]
pub fn read_field<F: FormField>(
    content: &Map<String, Value>,
    name: &str,
    default: Option<F::Value>,
    problems: &mut Vec<FieldProblem>,
) -> Option<F> {
    let present = content.get(name).filter(|v| !v.is_null());
    let value = match present {
        Some(value) => match <F::Value as FieldValue>::parse(value) {
            Ok(value) => Some(value),
            Err(reason) => {
                problems.push(FieldProblem {
                    field: Some(name.to_owned()),
                    reason,
                });
                return None;
            }
        },
        None => default,
    };
    let field = F::from_value(value);
    if field.is_none() {
        problems.push(FieldProblem {
            field: Some(name.to_owned()),
            reason: "missing required field".to_owned(),
        });
    }
    field
}
