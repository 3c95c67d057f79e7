//! The field vocabulary: which Rust types a form field may have, their schema, and how an
//! answered value is read back.

use std::collections::BTreeSet;

use serde_json::{Number, Value};

use super::choice::{FormChoice, multi_choice_schema};
use super::rules;
use crate::protocol::{
    BooleanSchema, NumberSchema, NumberType, PrimitiveSchemaDefinition, StringFormat, StringSchema,
};

/// The constraints and labels written on one field (`#[form(...)]` and its doc comment).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FieldSpec {
    /// Label.
    pub title: Option<&'static str>,
    /// Help text (the field's doc comment unless given).
    pub description: Option<&'static str>,
    /// Fewest characters (text).
    pub min_length: Option<u64>,
    /// Most characters (text).
    pub max_length: Option<u64>,
    /// Format (text).
    pub format: Option<StringFormat>,
    /// Inclusive minimum (numbers).
    pub minimum: Option<f64>,
    /// Inclusive maximum (numbers).
    pub maximum: Option<f64>,
    /// Fewest selections (multi-select).
    pub min_items: Option<u64>,
    /// Most selections (multi-select).
    pub max_items: Option<u64>,
    /// Write a titled single choice in the older `enum` + `enumNames` spelling (for clients of
    /// 2025-11-25).
    pub legacy_enum_names: bool,
}

/// A Rust type that can be the value of a form field.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not part of the form vocabulary",
    note = "a form field is text (`String`, `Email`), a number (integer or float types), `bool`, a choice (an enum deriving `FormChoice`), several choices (`Vec<E>` or `BTreeSet<E>` of such an enum), or an `Option` of one of these",
    note = "forms are flat: nested structs, maps, tuples and lists of anything but choices cannot be asked for"
)]
pub trait FieldValue: Sized {
    /// The field's schema.
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition;

    /// Checks that an answered value is of this field's kind: its JSON type, the format its
    /// type implies (an [`Email`](super::Email) is an email address), and for choices that
    /// each selected value is one of them, once. Pushes one reason per problem. The
    /// constraints written on the field are checked after this, by the derive.
    ///
    /// By default, a value is of the kind when [`parse`](Self::parse) reads it.
    fn check(value: &Value, problems: &mut Vec<String>) {
        if let Err(reason) = Self::parse(value) {
            problems.push(reason);
        }
    }

    /// Reads an answered value that passed [`check`](Self::check) and the field's
    /// constraints. Fails when the value does not fit the Rust type (`300` for a `u8`).
    fn parse(value: &Value) -> Result<Self, String>;
}

/// A field's type: a [`FieldValue`], or an `Option` of one (which is simply not required:
/// never `nullable`, never a `null` type).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not part of the form vocabulary",
    note = "a form field is text (`String`, `Email`), a number (integer or float types), `bool`, a choice (an enum deriving `FormChoice`), several choices (`Vec<E>` or `BTreeSet<E>` of such an enum), or an `Option` of one of these"
)]
pub trait FormField: Sized {
    /// The type of a present value.
    type Value: FieldValue;
    /// Whether the field must be answered (when it has no default).
    const REQUIRED: bool;
    /// The field from a present or absent value; `None` when a required value is absent.
    fn from_value(value: Option<Self::Value>) -> Option<Self>;
}

impl<T: FieldValue> FormField for T {
    type Value = T;
    const REQUIRED: bool = true;

    fn from_value(value: Option<T>) -> Option<Self> {
        value
    }
}

impl<T: FieldValue> FormField for Option<T> {
    type Value = T;
    const REQUIRED: bool = false;

    fn from_value(value: Option<T>) -> Option<Self> {
        Some(value)
    }
}

/// Text fields: `min_length`, `max_length` and `format` apply to them.
#[diagnostic::on_unimplemented(
    message = "`min_length`, `max_length` and `format` apply to text fields, and `{Self}` is not text",
    label = "not a text field"
)]
pub trait LengthField {}

/// Number fields: `minimum` and `maximum` apply to them, within the type's range.
#[diagnostic::on_unimplemented(
    message = "`minimum` and `maximum` apply to number fields, and `{Self}` is not a number",
    label = "not a number field"
)]
pub trait RangeField {
    /// The smallest value of the type.
    const MIN: f64;
    /// The largest value of the type.
    const MAX: f64;
    /// Whether the type holds whole numbers only.
    const INTEGER: bool;
}

/// Multi-select fields: `min_items` and `max_items` apply to them.
#[diagnostic::on_unimplemented(
    message = "`min_items` and `max_items` apply to multi-select fields (`Vec<E>` or `BTreeSet<E>` of a `FormChoice` enum), and `{Self}` is not one",
    label = "not a multi-select field"
)]
pub trait ItemsField {}

/// Whether `value` lies within `T`'s range (for compile-time checks of bounds and defaults).
pub const fn fits<T: RangeField>(value: f64) -> bool {
    value >= T::MIN && value <= T::MAX && (!T::INTEGER || value == (value as i64) as f64)
}

pub(crate) fn text_schema(
    spec: &FieldSpec,
    format: Option<StringFormat>,
    default: Option<String>,
) -> PrimitiveSchemaDefinition {
    let mut schema = StringSchema::new();
    schema.title = spec.title.map(str::to_owned);
    schema.description = spec.description.map(str::to_owned);
    schema.min_length = spec.min_length;
    schema.max_length = spec.max_length;
    schema.format = spec.format.or(format);
    schema.default = default;
    PrimitiveSchemaDefinition::String(schema)
}

/// The kind check of a text type that implies a format.
pub(crate) fn text_of_format(value: &Value, format: StringFormat, problems: &mut Vec<String>) {
    let kind = rules::text(value).and_then(|()| rules::format(value, format));
    problems.extend(kind.err());
}

impl FieldValue for String {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        text_schema(spec, None, default.cloned())
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        problems.extend(rules::text(value).err());
    }

    fn parse(value: &Value) -> Result<Self, String> {
        rules::text(value)?;
        Ok(value.as_str().unwrap_or_default().to_owned())
    }
}

impl LengthField for String {}

impl FieldValue for bool {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        let mut schema = BooleanSchema::new();
        schema.title = spec.title.map(str::to_owned);
        schema.description = spec.description.map(str::to_owned);
        schema.default = default.copied();
        PrimitiveSchemaDefinition::Boolean(schema)
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        problems.extend(rules::boolean(value).err());
    }

    fn parse(value: &Value) -> Result<Self, String> {
        rules::boolean(value)?;
        Ok(value.as_bool().unwrap_or_default())
    }
}

fn number_schema(
    spec: &FieldSpec,
    kind: NumberType,
    default: Option<Number>,
) -> PrimitiveSchemaDefinition {
    let mut schema = NumberSchema::new(kind);
    schema.title = spec.title.map(str::to_owned);
    schema.description = spec.description.map(str::to_owned);
    let bound = |b: f64| match kind {
        // Integer bounds are whole numbers: write them as integers.
        NumberType::Integer if b.fract() == 0.0 && b.abs() < 9.0e15 => Some(Number::from(b as i64)),
        _ => Number::from_f64(b),
    };
    schema.minimum = spec.minimum.and_then(bound);
    schema.maximum = spec.maximum.and_then(bound);
    schema.default = default;
    PrimitiveSchemaDefinition::Number(schema)
}

macro_rules! integer_fields {
    ($($ty:ty),*) => {$(
        impl FieldValue for $ty {
            fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
                number_schema(spec, NumberType::Integer, default.map(|d| Number::from(*d)))
            }

            fn check(value: &Value, problems: &mut Vec<String>) {
                problems.extend(rules::integer(value).err());
            }

            fn parse(value: &Value) -> Result<Self, String> {
                rules::integer(value)?;
                // A whole float (`3.0`) is read through i128, saturating: out of range either way.
                value
                    .as_number()
                    .and_then(|n| n.as_i128().or_else(|| n.as_f64().map(|f| f as i128)))
                    .and_then(|whole| <$ty>::try_from(whole).ok())
                    .ok_or_else(|| format!("{} is out of range ({} to {})", rules::quote(value), <$ty>::MIN, <$ty>::MAX))
            }
        }

        impl RangeField for $ty {
            const MIN: f64 = <$ty>::MIN as f64;
            const MAX: f64 = <$ty>::MAX as f64;
            const INTEGER: bool = true;
        }
    )*};
}
integer_fields!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_fields {
    ($($ty:ty),*) => {$(
        impl FieldValue for $ty {
            fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
                number_schema(spec, NumberType::Number, default.and_then(|d| Number::from_f64(f64::from(*d))))
            }

            fn check(value: &Value, problems: &mut Vec<String>) {
                problems.extend(rules::number(value).err());
            }

            fn parse(value: &Value) -> Result<Self, String> {
                rules::number(value)?;
                let number = value.as_f64().unwrap_or(f64::NAN);
                let narrowed = number as $ty;
                if narrowed.is_finite() {
                    Ok(narrowed)
                } else {
                    Err(format!("{number} is out of range"))
                }
            }
        }

        impl RangeField for $ty {
            const MIN: f64 = <$ty>::MIN as f64;
            const MAX: f64 = <$ty>::MAX as f64;
            const INTEGER: bool = false;
        }
    )*};
}
float_fields!(f32, f64);

impl<E: FormChoice> FieldValue for Vec<E> {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        multi_choice_schema::<E>(
            spec,
            default.map(|d| d.iter().map(|e| e.value().to_owned()).collect()),
        )
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        rules::selections(value, E::CHOICES, problems);
    }

    fn parse(value: &Value) -> Result<Self, String> {
        parse_choices(value)
    }
}

impl<E: FormChoice> ItemsField for Vec<E> {}

impl<E: FormChoice + Ord> FieldValue for BTreeSet<E> {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        multi_choice_schema::<E>(
            spec,
            default.map(|d| d.iter().map(|e| e.value().to_owned()).collect()),
        )
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        rules::selections(value, E::CHOICES, problems);
    }

    fn parse(value: &Value) -> Result<Self, String> {
        parse_choices::<E>(value).map(|v| v.into_iter().collect())
    }
}

impl<E: FormChoice + Ord> ItemsField for BTreeSet<E> {}

/// Reads selections; each choice may be selected once (so `min_items` counts distinct ones).
fn parse_choices<E: FormChoice>(value: &Value) -> Result<Vec<E>, String> {
    let mut problems = Vec::new();
    rules::selections(value, E::CHOICES, &mut problems);
    if let Some(reason) = problems.into_iter().next() {
        return Err(reason);
    }
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    Ok(items
        .iter()
        .filter_map(|item| E::from_value(item.as_str()?))
        .collect())
}

#[cfg(feature = "chrono")]
mod chrono_fields {
    use super::*;

    impl FieldValue for chrono::NaiveDate {
        fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
            text_schema(
                spec,
                Some(StringFormat::Date),
                default.map(|d| d.format("%Y-%m-%d").to_string()),
            )
        }

        fn check(value: &Value, problems: &mut Vec<String>) {
            text_of_format(value, StringFormat::Date, problems);
        }

        fn parse(value: &Value) -> Result<Self, String> {
            let text = value.as_str().ok_or_else(|| "expected a date".to_owned())?;
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|e| format!("invalid date: {e}"))
        }
    }

    impl FieldValue for chrono::DateTime<chrono::FixedOffset> {
        fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
            text_schema(
                spec,
                Some(StringFormat::DateTime),
                default.map(|d| d.to_rfc3339()),
            )
        }

        fn check(value: &Value, problems: &mut Vec<String>) {
            text_of_format(value, StringFormat::DateTime, problems);
        }

        fn parse(value: &Value) -> Result<Self, String> {
            let text = value
                .as_str()
                .ok_or_else(|| "expected a date and time".to_owned())?;
            chrono::DateTime::parse_from_rfc3339(text)
                .map_err(|e| format!("invalid date-time: {e}"))
        }
    }
}

#[cfg(feature = "url")]
impl FieldValue for url::Url {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        text_schema(
            spec,
            Some(StringFormat::Uri),
            default.map(|d| d.to_string()),
        )
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        text_of_format(value, StringFormat::Uri, problems);
    }

    fn parse(value: &Value) -> Result<Self, String> {
        let text = value.as_str().ok_or_else(|| "expected a URL".to_owned())?;
        url::Url::parse(text).map_err(|e| format!("invalid URL: {e}"))
    }
}
