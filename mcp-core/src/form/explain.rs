//! An invalid answer told to the user who gave it: the reason a question is asked again, in
//! the form's own words (a field's title where the form gives one, else its name), and
//! bounded in length whatever the client sent.

use super::answer::FormError;
use crate::protocol::{PrimitiveSchemaDefinition, RequestedSchema};

/// The most problems an explanation names; the others are counted.
pub const MAX_PROBLEMS_TOLD: usize = 3;

/// The longest explanation, in characters (each problem is cut to a share of it).
pub const MAX_EXPLANATION_CHARS: usize = 480;

/// What is wrong with an answer to `form`, for the user: at most [`MAX_PROBLEMS_TOLD`]
/// problems, each as `Title: reason`, in at most [`MAX_EXPLANATION_CHARS`] characters.
///
/// ```
/// use typemcp_core::form::{FieldProblem, FormError, explain};
/// use typemcp_core::protocol::{PrimitiveSchemaDefinition, RequestedSchema, StringSchema};
///
/// let mut email = StringSchema::new();
/// email.title = Some("E-mail".to_owned());
/// let properties = [("email".to_owned(), PrimitiveSchemaDefinition::String(email))];
/// let form = RequestedSchema::new(properties.into_iter().collect(), vec!["email".into()]);
/// let error = FormError::new(vec![FieldProblem {
///     field: Some("email".into()),
///     reason: "\"ann\" is not a valid e-mail address".into(),
/// }]);
/// assert_eq!(explain(&error, Some(&form)), "E-mail: \"ann\" is not a valid e-mail address");
/// ```
pub fn explain(error: &FormError, form: Option<&RequestedSchema>) -> String {
    let problems = error.problems();
    let share = MAX_EXPLANATION_CHARS / MAX_PROBLEMS_TOLD;
    let mut told: Vec<String> = problems
        .iter()
        .take(MAX_PROBLEMS_TOLD)
        .map(|problem| {
            let told = match &problem.field {
                Some(field) => format!("{}: {}", label(field, form), problem.reason),
                None => problem.reason.clone(),
            };
            shortened(&told, share)
        })
        .collect();
    if problems.len() > MAX_PROBLEMS_TOLD {
        told.push(format!("and {} more", problems.len() - MAX_PROBLEMS_TOLD));
    }
    shortened(&told.join("; "), MAX_EXPLANATION_CHARS)
}

/// How the form names `field`: its title, else the name in backquotes.
fn label(field: &str, form: Option<&RequestedSchema>) -> String {
    let title = form
        .and_then(|form| form.properties.get(field))
        .and_then(title_of)
        .filter(|title| !title.trim().is_empty());
    match title {
        Some(title) => title.to_owned(),
        None => format!("`{field}`"),
    }
}

/// The title a field's schema gives it.
fn title_of(field: &PrimitiveSchemaDefinition) -> Option<&str> {
    use PrimitiveSchemaDefinition as P;
    let title = match field {
        P::TitledMultiSelect(s) => &s.title,
        P::UntitledMultiSelect(s) => &s.title,
        P::TitledSingleSelect(s) => &s.title,
        P::LegacyTitled(s) => &s.title,
        P::UntitledSingleSelect(s) => &s.title,
        P::String(s) => &s.title,
        P::Number(s) => &s.title,
        P::Boolean(s) => &s.title,
    };
    title.as_deref()
}

/// `text` cut to `max` characters (the last one an ellipsis) when longer.
fn shortened(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(max.saturating_sub(1)).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::FieldProblem;

    fn problem(field: Option<&str>, reason: &str) -> FieldProblem {
        FieldProblem {
            field: field.map(str::to_owned),
            reason: reason.to_owned(),
        }
    }

    #[test]
    fn fields_without_a_title_are_named() {
        let error = FormError::new(vec![problem(Some("age"), "missing required field")]);
        assert_eq!(explain(&error, None), "`age`: missing required field");
    }

    #[test]
    fn an_explanation_is_bounded_whatever_the_answer() {
        let huge = "x".repeat(100_000);
        let many: Vec<_> = (0..10_000).map(|_| problem(None, &huge)).collect();
        let told = explain(&FormError::new(many), None);
        assert!(
            told.chars().count() <= MAX_EXPLANATION_CHARS,
            "{}",
            told.len()
        );
        assert!(told.ends_with('…') || told.contains("more"), "{told}");

        let few: Vec<_> = (0..5)
            .map(|i| problem(Some("f"), &format!("bad {i}")))
            .collect();
        assert_eq!(
            explain(&FormError::new(few), None),
            "`f`: bad 0; `f`: bad 1; `f`: bad 2; and 2 more"
        );
    }
}
