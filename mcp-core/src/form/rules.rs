//! The checks of one answered value, one function per constraint a form field can declare.
//!
//! The `ElicitForm` derive calls exactly the checks a field declares (through
//! `typemcp_server`'s hidden support module); [`FormValidator`](super::FormValidator) calls the
//! same functions for a form built by hand, from its `RequestedSchema`.
//!
//! Kind checks ([`text`], [`integer`], [`number`], [`boolean`], [`one_of`], [`selections`])
//! refuse a value of the wrong JSON type. Constraint checks ([`min_length`], [`format()`],
//! [`minimum`], [`min_items`], …) pass a value of another kind, like the JSON Schema keywords
//! they mirror: run the kind check first. Each problem is one reason, in words, quoting the
//! (untrusted) value shortened to [`MAX_QUOTED_CHARS`].

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::formats;
use crate::protocol::StringFormat;

/// The longest quotation of an answered value in a reason.
pub const MAX_QUOTED_CHARS: usize = 80;

/// `value` as JSON, shortened to [`MAX_QUOTED_CHARS`] characters.
pub(crate) fn quote(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_QUOTED_CHARS {
        return text;
    }
    let mut short: String = text.chars().take(MAX_QUOTED_CHARS).collect();
    short.push('…');
    short
}

fn not_of_type(value: &Value, kind: &str) -> String {
    format!("{} is not of type \"{kind}\"", quote(value))
}

/// `count thing`, with `thing` in the plural unless `count` is one.
fn counted(count: u64, thing: &str) -> String {
    if count == 1 {
        format!("1 {thing}")
    } else {
        format!("{count} {thing}s")
    }
}

/// The value is a string.
pub fn text(value: &Value) -> Result<(), String> {
    match value {
        Value::String(_) => Ok(()),
        _ => Err(not_of_type(value, "string")),
    }
}

/// The value is a whole number (`3.0` is one, as in JSON Schema).
pub fn integer(value: &Value) -> Result<(), String> {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => Ok(()),
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => Ok(()),
        _ => Err(not_of_type(value, "integer")),
    }
}

/// The value is a number.
pub fn number(value: &Value) -> Result<(), String> {
    match value {
        Value::Number(_) => Ok(()),
        _ => Err(not_of_type(value, "number")),
    }
}

/// The value is `true` or `false`.
pub fn boolean(value: &Value) -> Result<(), String> {
    match value {
        Value::Bool(_) => Ok(()),
        _ => Err(not_of_type(value, "boolean")),
    }
}

/// One option of a choice field, as [`one_of`] and [`selections`] take it: the value an
/// answer holds and, where the form shows one, the label the user sees instead.
///
/// Implemented for plain values (`str`, `String`: no label), for the options of a titled
/// schema ([`EnumOption`](crate::protocol::EnumOption)) and for the choices of a
/// `FormChoice` enum ([`Choice`](super::Choice)).
pub trait ChoiceOption {
    /// The value an answer holds.
    fn value(&self) -> &str;

    /// The label shown for it, if the form shows one.
    fn label(&self) -> Option<&str> {
        None
    }
}

impl ChoiceOption for str {
    fn value(&self) -> &str {
        self
    }
}

impl ChoiceOption for String {
    fn value(&self) -> &str {
        self
    }
}

impl<T: ChoiceOption + ?Sized> ChoiceOption for &T {
    fn value(&self) -> &str {
        (**self).value()
    }

    fn label(&self) -> Option<&str> {
        (**self).label()
    }
}

impl ChoiceOption for crate::protocol::EnumOption {
    fn value(&self) -> &str {
        &self.value
    }

    fn label(&self) -> Option<&str> {
        Some(&self.title)
    }
}

/// The value is one of `choices` (a single-select field).
///
/// A refused value is told with the options as the user saw them: their labels where the
/// form shows labels (a titled choice), else their values.
///
/// ```
/// use typemcp_core::form::rules::one_of;
/// use typemcp_core::protocol::EnumOption;
///
/// let plain = ["north-1", "north-2"];
/// let refused = one_of(&serde_json::json!("x"), &plain).unwrap_err();
/// assert_eq!(refused, r#""x" is not one of "north-1", "north-2""#);
///
/// let option = |value: &str, title: &str| EnumOption { value: value.into(), title: title.into() };
/// let titled = [option("north-1", "Aurora (4 seats)"), option("north-2", "Borealis (10 seats)")];
/// let refused = one_of(&serde_json::json!("x"), &titled).unwrap_err();
/// assert_eq!(refused, r#""x" is not one of Aurora (4 seats), Borealis (10 seats)"#);
/// ```
pub fn one_of<S: ChoiceOption>(value: &Value, choices: &[S]) -> Result<(), String> {
    let Value::String(text) = value else {
        return Err(not_of_type(value, "string"));
    };
    if choices.iter().any(|c| c.value() == text) {
        Ok(())
    } else {
        Err(not_a_choice(value, text, choices))
    }
}

/// Why `value` (the string `text`) is none of `choices`: the options' labels when any has
/// one (an option without a label is shown as its value), else their values as JSON strings.
/// An answer that is a label rather than a value (a client that sent what it showed) is
/// told each option's value beside its label.
fn not_a_choice<S: ChoiceOption>(value: &Value, text: &str, choices: &[S]) -> String {
    let titled = choices.iter().any(|c| c.label().is_some());
    let a_label = choices.iter().any(|c| c.label() == Some(text));
    let listed: Vec<String> = choices
        .iter()
        .map(|c| {
            let quoted = Value::from(c.value()).to_string();
            match c.label() {
                _ if !titled => quoted,
                Some(label) if a_label => format!("{quoted} ({label})"),
                Some(label) => label.to_owned(),
                None if a_label => quoted,
                None => c.value().to_owned(),
            }
        })
        .collect();
    format!("{} is not one of {}", quote(value), listed.join(", "))
}

/// The value is a list of distinct members of `choices` (a multi-select field). Pushes one
/// reason per problem: the value is not a list, or an item is not a string, not a choice
/// (told as [`one_of`] tells it), or selected again.
pub fn selections<S: ChoiceOption>(value: &Value, choices: &[S], problems: &mut Vec<String>) {
    let Value::Array(items) = value else {
        problems.push(not_of_type(value, "array"));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        if let Err(reason) = one_of(item, choices) {
            problems.push(reason);
        } else if items[..i].contains(item) {
            problems.push(format!("{} is selected more than once", quote(item)));
        }
    }
}

/// A string has at least `min` characters (Unicode scalar values, not bytes).
pub fn min_length(value: &Value, min: u64) -> Result<(), String> {
    match value {
        Value::String(s) if (s.chars().count() as u64) < min => Err(format!(
            "{} is shorter than {}",
            quote(value),
            counted(min, "character")
        )),
        _ => Ok(()),
    }
}

/// A string has at most `max` characters (Unicode scalar values, not bytes).
pub fn max_length(value: &Value, max: u64) -> Result<(), String> {
    match value {
        Value::String(s) if (s.chars().count() as u64) > max => Err(format!(
            "{} is longer than {}",
            quote(value),
            counted(max, "character")
        )),
        _ => Ok(()),
    }
}

/// A string is written in `format`.
pub fn format(value: &Value, format: StringFormat) -> Result<(), String> {
    match value {
        Value::String(s) if !formats::matches(format, s) => Err(format!(
            "{} is not a valid {}",
            quote(value),
            formats::describe(format)
        )),
        _ => Ok(()),
    }
}

/// A number is at least `min`.
pub fn minimum(value: &Value, min: f64) -> Result<(), String> {
    match value {
        Value::Number(n) if compare(n, min) == Some(Ordering::Less) => {
            Err(format!("{n} is less than the minimum of {min}"))
        }
        _ => Ok(()),
    }
}

/// A number is at most `max`.
pub fn maximum(value: &Value, max: f64) -> Result<(), String> {
    match value {
        Value::Number(n) if compare(n, max) == Some(Ordering::Greater) => {
            Err(format!("{n} is greater than the maximum of {max}"))
        }
        _ => Ok(()),
    }
}

/// Compares a JSON number with a bound, exactly for whole numbers (an `i64` beyond 2^53 is
/// not rounded to the nearest float first).
fn compare(n: &Number, bound: f64) -> Option<Ordering> {
    let whole = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from));
    match whole {
        // Whole bounds below 2^127 convert to i128 exactly.
        Some(w) if bound.fract() == 0.0 && bound.abs() < 1.7e38 => Some(w.cmp(&(bound as i128))),
        _ => n.as_f64()?.partial_cmp(&bound),
    }
}

/// A list holds at least `min` selections.
pub fn min_items(value: &Value, min: u64) -> Result<(), String> {
    match value {
        Value::Array(items) if (items.len() as u64) < min => Err(format!(
            "expected at least {}, got {}",
            counted(min, "selection"),
            items.len()
        )),
        _ => Ok(()),
    }
}

/// A list holds at most `max` selections.
pub fn max_items(value: &Value, max: u64) -> Result<(), String> {
    match value {
        Value::Array(items) if (items.len() as u64) > max => Err(format!(
            "expected at most {}, got {}",
            counted(max, "selection"),
            items.len()
        )),
        _ => Ok(()),
    }
}
