//! Checking an answer to a form built by hand (a [`RequestedSchema`] written without the
//! derive): the checks of [`rules`](super::rules), driven by the schema's fields.

use serde_json::{Map, Value};

use super::answer::FieldProblem;
use super::rules;
use crate::protocol::{PrimitiveSchemaDefinition, RequestedSchema, StringFormat};

/// The checks of one form, read from its schema. Build it once per form.
///
/// ```
/// use typemcp_core::form::FormValidator;
/// use typemcp_core::protocol::{PrimitiveSchemaDefinition, RequestedSchema, StringSchema};
///
/// let mut name = StringSchema::new();
/// name.max_length = Some(3);
/// let properties = [("name".to_owned(), PrimitiveSchemaDefinition::String(name))];
/// let form = RequestedSchema::new(properties.into_iter().collect(), vec!["name".into()]);
/// let validator = FormValidator::new(&form);
///
/// let ok = serde_json::json!({"name": "Ann"});
/// assert!(validator.check(ok.as_object().unwrap()).is_empty());
/// let bad = serde_json::json!({"name": "Annabel"});
/// assert_eq!(validator.check(bad.as_object().unwrap())[0].field.as_deref(), Some("name"));
/// ```
#[derive(Debug, Clone)]
pub struct FormValidator {
    fields: Vec<FieldRules>,
    /// Required names the form does not describe (reported missing when absent).
    undescribed: Vec<String>,
}

/// The checks of one field.
#[derive(Debug, Clone)]
struct FieldRules {
    name: String,
    required: bool,
    kind: Kind,
    constraints: Vec<Constraint>,
}

/// What the field's type and choices require.
#[derive(Debug, Clone)]
enum Kind {
    Text,
    Integer,
    Number,
    Boolean,
    OneOf(Vec<Offered>),
    Selections(Vec<Offered>),
}

/// An option of a choice field: its value and, in a titled choice, the label shown for it
/// (what a refused answer is told with).
#[derive(Debug, Clone)]
struct Offered {
    value: String,
    label: Option<String>,
}

impl rules::ChoiceOption for Offered {
    fn value(&self) -> &str {
        &self.value
    }

    fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }
}

/// A constraint the field declares.
#[derive(Debug, Clone, Copy)]
enum Constraint {
    MinLength(u64),
    MaxLength(u64),
    Format(StringFormat),
    Minimum(f64),
    Maximum(f64),
    MinItems(u64),
    MaxItems(u64),
}

impl FormValidator {
    /// The checks of `schema`.
    pub fn new(schema: &RequestedSchema) -> Self {
        let fields = schema
            .properties
            .iter()
            .map(|(name, field)| {
                let (kind, constraints) = describe(field);
                FieldRules {
                    name: name.clone(),
                    required: schema.required.contains(name),
                    kind,
                    constraints,
                }
            })
            .collect();
        let undescribed = schema
            .required
            .iter()
            .filter(|name| !schema.properties.contains_key(*name))
            .cloned()
            .collect();
        Self {
            fields,
            undescribed,
        }
    }

    /// Every way `content` breaks the form's constraints, in field order.
    pub fn check(&self, content: &Map<String, Value>) -> Vec<FieldProblem> {
        let mut problems = Vec::new();
        for field in &self.fields {
            let mut reasons = Vec::new();
            match content.get(&field.name) {
                None if field.required => reasons.push("missing required field".to_owned()),
                None => {}
                Some(value) => field.check(value, &mut reasons),
            }
            problems.extend(reasons.into_iter().map(|reason| FieldProblem {
                field: Some(field.name.clone()),
                reason,
            }));
        }
        for name in self
            .undescribed
            .iter()
            .filter(|n| !content.contains_key(*n))
        {
            problems.push(FieldProblem {
                field: Some(name.clone()),
                reason: "missing required field".to_owned(),
            });
        }
        problems
    }
}

impl FieldRules {
    fn check(&self, value: &Value, reasons: &mut Vec<String>) {
        match &self.kind {
            Kind::Text => reasons.extend(rules::text(value).err()),
            Kind::Integer => reasons.extend(rules::integer(value).err()),
            Kind::Number => reasons.extend(rules::number(value).err()),
            Kind::Boolean => reasons.extend(rules::boolean(value).err()),
            Kind::OneOf(choices) => reasons.extend(rules::one_of(value, choices).err()),
            Kind::Selections(choices) => rules::selections(value, choices, reasons),
        }
        if !reasons.is_empty() {
            return;
        }
        for constraint in &self.constraints {
            let checked = match *constraint {
                Constraint::MinLength(n) => rules::min_length(value, n),
                Constraint::MaxLength(n) => rules::max_length(value, n),
                Constraint::Format(format) => rules::format(value, format),
                Constraint::Minimum(n) => rules::minimum(value, n),
                Constraint::Maximum(n) => rules::maximum(value, n),
                Constraint::MinItems(n) => rules::min_items(value, n),
                Constraint::MaxItems(n) => rules::max_items(value, n),
            };
            reasons.extend(checked.err());
        }
    }
}

/// The kind and constraints a field schema declares.
fn describe(field: &PrimitiveSchemaDefinition) -> (Kind, Vec<Constraint>) {
    use Constraint::{Format, MaxItems, MaxLength, Maximum, MinItems, MinLength, Minimum};
    use PrimitiveSchemaDefinition as P;
    let plain = |values: &[String]| -> Vec<Offered> {
        let offered = values.iter().map(|value| Offered {
            value: value.clone(),
            label: None,
        });
        offered.collect()
    };
    let titled = |options: &[crate::protocol::EnumOption]| -> Vec<Offered> {
        let offered = options.iter().map(|o| Offered {
            value: o.value.clone(),
            label: Some(o.title.clone()),
        });
        offered.collect()
    };
    let items = |min: Option<u64>, max: Option<u64>| -> Vec<Constraint> {
        min.map(MinItems)
            .into_iter()
            .chain(max.map(MaxItems))
            .collect()
    };
    match field {
        P::String(s) => {
            let constraints = s.min_length.map(MinLength).into_iter();
            let constraints = constraints.chain(s.max_length.map(MaxLength));
            (
                Kind::Text,
                constraints.chain(s.format.map(Format)).collect(),
            )
        }
        P::Number(n) => {
            let kind = match n.kind {
                crate::protocol::NumberType::Integer => Kind::Integer,
                crate::protocol::NumberType::Number => Kind::Number,
            };
            let min = n.minimum.as_ref().and_then(serde_json::Number::as_f64);
            let max = n.maximum.as_ref().and_then(serde_json::Number::as_f64);
            (
                kind,
                min.map(Minimum)
                    .into_iter()
                    .chain(max.map(Maximum))
                    .collect(),
            )
        }
        P::Boolean(_) => (Kind::Boolean, Vec::new()),
        P::UntitledSingleSelect(s) => (Kind::OneOf(plain(&s.values)), Vec::new()),
        P::LegacyTitled(s) => {
            // `enumNames` is parallel to `enum`; a value without a name is shown as itself.
            let names = s.enum_names.iter().map(Some).chain(std::iter::repeat(None));
            let offered = s.values.iter().zip(names).map(|(value, name)| Offered {
                value: value.clone(),
                label: Some(name.unwrap_or(value).clone()),
            });
            (Kind::OneOf(offered.collect()), Vec::new())
        }
        P::TitledSingleSelect(s) => (Kind::OneOf(titled(&s.one_of)), Vec::new()),
        P::UntitledMultiSelect(s) => (
            Kind::Selections(plain(&s.items.values)),
            items(s.min_items, s.max_items),
        ),
        P::TitledMultiSelect(s) => (
            Kind::Selections(titled(&s.items.any_of)),
            items(s.min_items, s.max_items),
        ),
    }
}
