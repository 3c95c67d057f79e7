//! Choices: unit-only enums whose variants are the values a user picks from.

use serde_json::Value;

use super::field::FieldSpec;
use super::rules;
use crate::protocol::{
    EnumOption, LegacyTitledEnumSchema, PrimitiveSchemaDefinition, TitledItems,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};

/// One choice: the value sent back, and the label shown (if any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The value (the variant name after serde renames).
    pub value: &'static str,
    /// The display label, for titled choices.
    pub title: Option<&'static str>,
}

/// A unit-only enum whose variants are choices. Derive it with `#[derive(FormChoice)]`
/// from `typemcp_server`: values follow `#[serde(rename)]`/`#[serde(rename_all)]`, labels come
/// from `#[choice(title = "...")]`. A choice enum is a single-select field; `Vec<E>` and
/// `BTreeSet<E>` of it are multi-select fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a choice enum, so a list of it cannot be a form field",
    note = "a list field holds several choices: `Vec<E>` or `BTreeSet<E>` where `E` is a unit-only enum deriving `FormChoice`",
    note = "forms are flat: lists of text, numbers or structs cannot be asked for"
)]
pub trait FormChoice: Sized + 'static {
    /// Every choice, in declaration order.
    const CHOICES: &'static [Choice];

    /// This variant's value.
    fn value(&self) -> &'static str;

    /// The variant with this value.
    fn from_value(value: &str) -> Option<Self>;
}

/// A choice stands for its value.
impl AsRef<str> for Choice {
    fn as_ref(&self) -> &str {
        self.value
    }
}

/// The checks of [`rules`](super::rules) take choices: a refused answer is told with their
/// labels, where the enum gives any (as its titled schema shows them).
impl rules::ChoiceOption for Choice {
    fn value(&self) -> &str {
        self.value
    }

    fn label(&self) -> Option<&str> {
        self.title
    }
}

fn titled<E: FormChoice>() -> bool {
    E::CHOICES.iter().any(|c| c.title.is_some())
}

fn options<E: FormChoice>() -> Vec<EnumOption> {
    E::CHOICES
        .iter()
        .map(|c| EnumOption {
            value: c.value.to_owned(),
            title: c.title.unwrap_or(c.value).to_owned(),
        })
        .collect()
}

fn values<E: FormChoice>() -> Vec<String> {
    E::CHOICES.iter().map(|c| c.value.to_owned()).collect()
}

/// The schema of a single-choice field: titled (`oneOf`) when any choice has a label,
/// untitled (`enum`) otherwise.
pub fn choice_schema<E: FormChoice>(
    spec: &FieldSpec,
    default: Option<&E>,
) -> PrimitiveSchemaDefinition {
    let title = spec.title.map(str::to_owned);
    let description = spec.description.map(str::to_owned);
    let default = default.map(|d| d.value().to_owned());
    if spec.legacy_enum_names {
        let mut schema = LegacyTitledEnumSchema::new();
        (schema.title, schema.description, schema.default) = (title, description, default);
        schema.values = values::<E>();
        schema.enum_names = E::CHOICES
            .iter()
            .map(|c| c.title.unwrap_or(c.value).to_owned())
            .collect();
        return PrimitiveSchemaDefinition::LegacyTitled(schema);
    }
    if titled::<E>() {
        let mut schema = TitledSingleSelectEnumSchema::new();
        (schema.title, schema.description, schema.default) = (title, description, default);
        schema.one_of = options::<E>();
        PrimitiveSchemaDefinition::TitledSingleSelect(schema)
    } else {
        let mut schema = UntitledSingleSelectEnumSchema::new();
        (schema.title, schema.description, schema.default) = (title, description, default);
        schema.values = values::<E>();
        PrimitiveSchemaDefinition::UntitledSingleSelect(schema)
    }
}

/// The kind check of a single-choice field: a string that is one of the values.
pub fn check_choice<E: FormChoice>(value: &Value, problems: &mut Vec<String>) {
    problems.extend(rules::one_of(value, E::CHOICES).err());
}

/// Reads one choice.
pub fn parse_choice<E: FormChoice>(value: &Value) -> Result<E, String> {
    rules::one_of(value, E::CHOICES)?;
    value
        .as_str()
        .and_then(E::from_value)
        .ok_or_else(|| format!("{} is not one of the choices", rules::quote(value)))
}

/// The schema of a multi-select field.
pub(crate) fn multi_choice_schema<E: FormChoice>(
    spec: &FieldSpec,
    default: Option<Vec<String>>,
) -> PrimitiveSchemaDefinition {
    let title = spec.title.map(str::to_owned);
    let description = spec.description.map(str::to_owned);
    if titled::<E>() {
        let mut schema = TitledMultiSelectEnumSchema::new();
        (schema.title, schema.description, schema.default) = (title, description, default);
        (schema.min_items, schema.max_items) = (spec.min_items, spec.max_items);
        schema.items = TitledItems {
            any_of: options::<E>(),
        };
        PrimitiveSchemaDefinition::TitledMultiSelect(schema)
    } else {
        let mut schema = UntitledMultiSelectEnumSchema::new();
        (schema.title, schema.description, schema.default) = (title, description, default);
        (schema.min_items, schema.max_items) = (spec.min_items, spec.max_items);
        let mut items = UntitledItems::new();
        items.values = values::<E>();
        schema.items = items;
        PrimitiveSchemaDefinition::UntitledMultiSelect(schema)
    }
}
