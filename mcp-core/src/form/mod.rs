//! Elicitation forms from Rust types.
//!
//! A form is a flat object of primitive fields. Which Rust types may be fields is decided by
//! trait: [`FieldValue`] is implemented for text ([`String`], [`Email`]), numbers (every
//! integer and float type), `bool`, single choices (enums deriving `FormChoice`), several
//! choices (`Vec<E>` and `BTreeSet<E>` of such enums), and, behind features, dates and URLs.
//! Anything else (a nested struct, a map, a tuple) does not implement it, so a form that
//! uses one does not compile.
//!
//! The `ElicitForm` derive (or the `#[elicit_form]` attribute) of `typemcp_server` implements
//! [`ElicitForm`] for a struct: its [`requested_schema`](ElicitForm::requested_schema) in
//! declaration order, and [`from_content`](ElicitForm::from_content), generated code that
//! checks an untrusted answer field by field against exactly the constraints the struct
//! declares (with the functions of [`rules`]), then builds the typed value.
//! [`Answer`] reads a whole elicitation result: accepted, declined, cancelled, missing or
//! malformed. A form written by hand as a [`RequestedSchema`] is checked by
//! [`FormValidator`], with the same functions.

mod answer;
mod choice;
mod email;
mod explain;
mod field;
mod formats;
mod mode;
pub mod rules;
mod support;
#[cfg(test)]
mod tests;
mod validate;

use serde_json::{Map, Value};

use crate::protocol::RequestedSchema;

pub use answer::{Answer, FieldProblem, FormError};
pub use choice::{Choice, FormChoice, check_choice, choice_schema, parse_choice};
pub use email::{Email, InvalidEmail};
pub use explain::{MAX_EXPLANATION_CHARS, MAX_PROBLEMS_TOLD, explain};
pub use field::{FieldSpec, FieldValue, FormField, ItemsField, LengthField, RangeField, fits};
pub use mode::{ElicitationMode, UrlElicitation, choose_mode, form_request};
#[doc(hidden)]
pub use support::{FieldCheck, FieldKind, Reader, SchemaBuilder, kind};
pub use validate::FormValidator;

/// A struct that can be asked for with a form, and read back from the answer.
///
/// Derive it with `#[derive(ElicitForm)]` (or `#[elicit_form]`) from `typemcp_server`.
pub trait ElicitForm: Sized {
    /// The form sent to the client: one property per field, in declaration order.
    fn requested_schema() -> RequestedSchema;

    /// Checks the answered `content` against the form's constraints and builds the value,
    /// applying defaults to absent fields. Every problem is reported, not only the first, each
    /// with the field it concerns.
    fn from_content(content: &Map<String, Value>) -> Result<Self, FormError>;
}
