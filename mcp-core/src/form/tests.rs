//! Unit tests of the answer checks: each rule accepted and refused, the kind checks of the
//! vocabulary, the reader the derive uses, and the validator of hand-built forms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::rules::{self, *};
use super::{
    Choice, Email, FieldProblem, FieldSpec, FieldValue, FormChoice, FormError, FormValidator,
    Reader, SchemaBuilder, explain, kind,
};
use crate::protocol::{
    EnumOption, LegacyTitledEnumSchema, NumberSchema, NumberType, PrimitiveSchemaDefinition,
    RequestedSchema, StringFormat, StringSchema, TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Color {
    Red,
    Green,
}

impl FormChoice for Color {
    const CHOICES: &'static [Choice] = &[
        Choice {
            value: "red",
            title: None,
        },
        Choice {
            value: "green",
            title: Some("Green"),
        },
    ];

    fn value(&self) -> &'static str {
        match self {
            Self::Red => "red",
            Self::Green => "green",
        }
    }

    fn from_value(value: &str) -> Option<Self> {
        match value {
            "red" => Some(Self::Red),
            "green" => Some(Self::Green),
            _ => None,
        }
    }
}

impl FieldValue for Color {
    fn schema(spec: &FieldSpec, default: Option<&Self>) -> PrimitiveSchemaDefinition {
        super::choice_schema(spec, default)
    }

    fn check(value: &Value, problems: &mut Vec<String>) {
        super::check_choice::<Self>(value, problems);
    }

    fn parse(value: &Value) -> Result<Self, String> {
        super::parse_choice(value)
    }
}

/// The reason a check refused `value`; fails the test when it was accepted.
#[track_caller]
fn refused(result: Result<(), String>) -> String {
    result.expect_err("accepted")
}

#[test]
fn kinds_accept_their_type_and_refuse_others() {
    assert_eq!(text(&json!("a")), Ok(()));
    assert_eq!(refused(text(&json!(42))), r#"42 is not of type "string""#);
    assert_eq!(
        refused(text(&Value::Null)),
        r#"null is not of type "string""#
    );

    for ok in [json!(3), json!(-3), json!(3.0), json!(u64::MAX)] {
        assert_eq!(integer(&ok), Ok(()), "{ok}");
    }
    assert_eq!(
        refused(integer(&json!(2.5))),
        r#"2.5 is not of type "integer""#
    );
    assert_eq!(
        refused(integer(&json!("7"))),
        r#""7" is not of type "integer""#
    );

    assert_eq!(number(&json!(2.5)), Ok(()));
    assert_eq!(number(&json!(7)), Ok(()));
    assert_eq!(
        refused(number(&json!("1.5"))),
        r#""1.5" is not of type "number""#
    );

    assert_eq!(boolean(&json!(false)), Ok(()));
    assert_eq!(refused(boolean(&json!(1))), r#"1 is not of type "boolean""#);
    assert_eq!(
        refused(boolean(&json!("true"))),
        r#""true" is not of type "boolean""#
    );
}

#[test]
fn single_choices_are_members() {
    let choices = ["red", "green"];
    assert_eq!(one_of(&json!("green"), &choices), Ok(()));
    assert_eq!(
        refused(one_of(&json!("Red"), &choices)),
        r#""Red" is not one of "red", "green""#
    );
    assert_eq!(
        refused(one_of(&json!(1), &choices)),
        r#"1 is not of type "string""#
    );
    assert_eq!(one_of(&json!("red"), Color::CHOICES), Ok(()));
}

#[test]
fn selections_are_distinct_members() {
    let choices = ["red", "green"];
    let check = |value: Value| {
        let mut problems = Vec::new();
        selections(&value, &choices, &mut problems);
        problems
    };
    assert!(check(json!([])).is_empty());
    assert!(check(json!(["green", "red"])).is_empty());
    assert_eq!(check(json!("red")), [r#""red" is not of type "array""#]);
    assert_eq!(
        check(json!(["red", 3, "blue", "red"])),
        [
            r#"3 is not of type "string""#,
            r#""blue" is not one of "red", "green""#,
            r#""red" is selected more than once"#,
        ]
    );
}

/// The options of a titled choice (`oneOf` of `const` and `title`), as `OneOf::titled`
/// sends them.
fn seats() -> Vec<EnumOption> {
    let option = |value: &str, title: &str| EnumOption {
        value: value.into(),
        title: title.into(),
    };
    vec![
        option("north-1", "Aurora (4 seats)"),
        option("north-2", "Borealis (10 seats)"),
    ]
}

#[test]
fn a_refused_titled_choice_is_told_with_the_labels_shown() {
    let options = seats();
    assert_eq!(one_of(&json!("north-2"), &options), Ok(()));
    assert_eq!(
        refused(one_of(&json!("x"), &options)),
        r#""x" is not one of Aurora (4 seats), Borealis (10 seats)"#
    );
    // Untitled options are told by their values, as JSON strings.
    assert_eq!(
        refused(one_of(&json!("x"), &["north-1", "north-2"])),
        r#""x" is not one of "north-1", "north-2""#
    );
    // A label sent for its value: each value is told beside its label.
    assert_eq!(
        refused(one_of(&json!("Aurora (4 seats)"), &options)),
        r#""Aurora (4 seats)" is not one of "north-1" (Aurora (4 seats)), "north-2" (Borealis (10 seats))"#
    );
    // A derived choice enum: its labels, a variant without one shown as its value (as its
    // titled schema shows it).
    assert_eq!(
        refused(one_of(&json!("blue"), Color::CHOICES)),
        "\"blue\" is not one of red, Green"
    );
    let mut problems = Vec::new();
    Color::check(&json!("blue"), &mut problems);
    assert_eq!(problems, ["\"blue\" is not one of red, Green"]);
    // Selections of a titled multi-select.
    let mut problems = Vec::new();
    selections(&json!(["north-1", "south-1"]), &options, &mut problems);
    assert_eq!(
        problems,
        [r#""south-1" is not one of Aurora (4 seats), Borealis (10 seats)"#]
    );
}

#[test]
fn hand_built_titled_choices_are_told_with_their_labels_in_every_spelling() {
    let mut titled = TitledSingleSelectEnumSchema::new();
    titled.title = Some("Room".into());
    titled.one_of = seats();
    let mut legacy = LegacyTitledEnumSchema::new();
    legacy.values = vec!["north-1".into(), "north-2".into()];
    legacy.enum_names = vec!["Aurora (4 seats)".into(), "Borealis (10 seats)".into()];
    let mut untitled = UntitledSingleSelectEnumSchema::new();
    untitled.values = vec!["north-1".into(), "north-2".into()];
    let mut tags = TitledMultiSelectEnumSchema::new();
    tags.items.any_of = seats();
    let properties = [
        (
            "room",
            PrimitiveSchemaDefinition::TitledSingleSelect(titled),
        ),
        ("legacy", PrimitiveSchemaDefinition::LegacyTitled(legacy)),
        (
            "untitled",
            PrimitiveSchemaDefinition::UntitledSingleSelect(untitled),
        ),
        ("tags", PrimitiveSchemaDefinition::TitledMultiSelect(tags)),
    ];
    let properties = properties
        .into_iter()
        .map(|(name, field)| (name.to_owned(), field))
        .collect();
    let form = RequestedSchema::new(properties, Vec::new());
    let answer = content(json!({"room": "x", "legacy": "x", "untitled": "x", "tags": ["x"]}));
    let problems = FormValidator::new(&form).check(&answer);
    let labels = r#""x" is not one of Aurora (4 seats), Borealis (10 seats)"#;
    assert_eq!(
        reasons(&problems),
        [
            ("room".into(), labels.into()),
            ("legacy".into(), labels.into()),
            (
                "untitled".into(),
                r#""x" is not one of "north-1", "north-2""#.into()
            ),
            ("tags".into(), labels.into()),
        ]
    );
    // What the user is told when the question is asked again: the field's title, then
    // the labels.
    let told = explain(&FormError::new(problems[..1].to_vec()), Some(&form));
    assert_eq!(
        told,
        r#"Room: "x" is not one of Aurora (4 seats), Borealis (10 seats)"#
    );
}

#[test]
fn lengths_count_characters_not_bytes() {
    // Four characters, eight bytes.
    let umlauts = json!("äöüß");
    assert_eq!(min_length(&umlauts, 4), Ok(()));
    assert_eq!(max_length(&umlauts, 4), Ok(()));
    assert_eq!(
        refused(min_length(&umlauts, 5)),
        r#""äöüß" is shorter than 5 characters"#
    );
    assert_eq!(
        refused(max_length(&umlauts, 3)),
        r#""äöüß" is longer than 3 characters"#
    );
    assert_eq!(
        refused(max_length(&json!("ab"), 1)),
        r#""ab" is longer than 1 character"#
    );
    assert_eq!(min_length(&json!(""), 0), Ok(()));
    assert!(min_length(&json!(""), 1).is_err());
}

#[test]
fn formats_are_checked_on_text() {
    let cases = [
        (
            StringFormat::Email,
            "ann@example.com",
            "ann@",
            "email address",
        ),
        (StringFormat::Uri, "https://example.com", "not a uri", "URI"),
        (StringFormat::Date, "2024-02-29", "2023-02-29", "date"),
        (
            StringFormat::DateTime,
            "2024-02-29T12:30:00Z",
            "2024-02-29",
            "date-time",
        ),
    ];
    for (kind, good, bad, name) in cases {
        assert_eq!(format(&json!(good), kind), Ok(()), "{good}");
        assert_eq!(
            refused(format(&json!(bad), kind)),
            format!("\"{bad}\" is not a valid {name}")
        );
    }
}

#[test]
fn bounds_are_inclusive_and_exact() {
    assert_eq!(minimum(&json!(1), 1.0), Ok(()));
    assert_eq!(maximum(&json!(12), 12.0), Ok(()));
    assert_eq!(
        refused(minimum(&json!(0), 1.0)),
        "0 is less than the minimum of 1"
    );
    assert_eq!(
        refused(maximum(&json!(13), 12.0)),
        "13 is greater than the maximum of 12"
    );
    assert_eq!(
        refused(maximum(&json!(99.75), 99.5)),
        "99.75 is greater than the maximum of 99.5"
    );
    assert_eq!(minimum(&json!(-1.5), -1.5), Ok(()));
    assert!(minimum(&json!(-2), -1.5).is_err());
    // 2^53 + 1 is not rounded down to the bound 2^53.
    let big = 9_007_199_254_740_993_i64;
    assert!(maximum(&json!(big), 9_007_199_254_740_992.0).is_err());
    assert_eq!(maximum(&json!(u64::MAX), 1e300), Ok(()));
}

#[test]
fn item_counts_are_bounded() {
    assert_eq!(min_items(&json!(["a"]), 1), Ok(()));
    assert_eq!(max_items(&json!(["a", "b"]), 2), Ok(()));
    assert_eq!(
        refused(min_items(&json!([]), 1)),
        "expected at least 1 selection, got 0"
    );
    assert_eq!(
        refused(max_items(&json!(["a", "b", "c"]), 2)),
        "expected at most 2 selections, got 3"
    );
}

#[test]
fn constraints_pass_values_of_other_kinds() {
    // Like JSON Schema keywords: the kind check is what refuses them.
    assert_eq!(min_length(&json!(1), 5), Ok(()));
    assert_eq!(format(&json!(1), StringFormat::Email), Ok(()));
    assert_eq!(minimum(&json!("0"), 1.0), Ok(()));
    assert_eq!(min_items(&json!("a"), 2), Ok(()));
}

#[test]
fn quotations_of_untrusted_values_are_short() {
    let long = json!("x".repeat(500));
    let reason = refused(max_length(&long, 3));
    assert!(reason.chars().count() < 120, "{reason}");
    assert!(reason.contains('…'));
    assert_eq!(rules::MAX_QUOTED_CHARS, 80);
}

#[test]
fn vocabulary_types_check_their_kind() {
    let check = |f: fn(&Value, &mut Vec<String>), value: Value| {
        let mut problems = Vec::new();
        f(&value, &mut problems);
        problems
    };
    assert!(check(<u8 as FieldValue>::check, json!(300)).is_empty());
    assert_eq!(
        <u8 as FieldValue>::parse(&json!(300)),
        Err("300 is out of range (0 to 255)".to_owned())
    );
    assert_eq!(<u8 as FieldValue>::parse(&json!(3.0)), Ok(3));
    assert!(<i64 as FieldValue>::parse(&json!(1e300)).is_err());
    assert!(<f32 as FieldValue>::parse(&json!(1e300)).is_err());
    assert_eq!(check(<String as FieldValue>::check, json!(1)).len(), 1);
    assert_eq!(
        check(<Email as FieldValue>::check, json!("ann")),
        [r#""ann" is not a valid email address"#]
    );
    assert!(check(<Email as FieldValue>::check, json!("ann@example.com")).is_empty());
    assert_eq!(check(<Color as FieldValue>::check, json!("blue")).len(), 1);
    assert_eq!(
        check(
            <BTreeSet<Color> as FieldValue>::check,
            json!(["red", "red"])
        ),
        [r#""red" is selected more than once"#]
    );
    assert_eq!(
        <Vec<Color> as FieldValue>::parse(&json!(["green", "red"])),
        Ok(vec![Color::Green, Color::Red])
    );
}

fn content(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn reasons(problems: &[FieldProblem]) -> Vec<(String, String)> {
    problems
        .iter()
        .map(|p| (p.field.clone().unwrap_or_default(), p.reason.clone()))
        .collect()
}

/// What the derive generates for `code: String` (2..=8 chars), `age: Option<u8>`
/// (at least 18) and `colors: Vec<Color>` with a default.
fn read_like_the_derive(
    answer: Value,
) -> Result<(String, Option<u8>, Vec<Color>), Vec<FieldProblem>> {
    let content = content(answer);
    let mut answer = Reader::new(&content);
    let code = {
        let mut field = answer.field("code", kind::<String>());
        field.check(rules::min_length, 2);
        field.check(rules::max_length, 8);
        field.finish(None)
    };
    let age = {
        let mut field = answer.field("age", kind::<Option<u8>>());
        field.check(rules::minimum, 18.0);
        field.finish(None)
    };
    let colors = answer
        .field("colors", kind::<Vec<Color>>())
        .finish(Some(vec![Color::Red]));
    let value = match (code, age, colors) {
        (Some(code), Some(age), Some(colors)) => Some((code, age, colors)),
        _ => None,
    };
    answer.finish(value).map_err(|e| e.problems().to_vec())
}

#[test]
fn the_reader_checks_each_field_and_applies_defaults() {
    assert_eq!(
        read_like_the_derive(json!({"code": "abc"})),
        Ok(("abc".to_owned(), None, vec![Color::Red]))
    );
    assert_eq!(
        read_like_the_derive(json!({"code": "abc", "age": 20, "colors": []})),
        Ok(("abc".to_owned(), Some(20), vec![]))
    );
    let problems = read_like_the_derive(json!({
        "age": 300, "colors": ["red", "red"], "extra": true
    }))
    .unwrap_err();
    assert_eq!(
        reasons(&problems),
        [
            ("code".into(), "missing required field".into()),
            ("age".into(), "300 is out of range (0 to 255)".into()),
            (
                "colors".into(),
                r#""red" is selected more than once"#.into()
            ),
        ]
    );
    // Every broken constraint of one field, but none after a wrong kind.
    let problems = read_like_the_derive(json!({"code": "x", "age": 3})).unwrap_err();
    assert_eq!(
        reasons(&problems),
        [
            ("code".into(), r#""x" is shorter than 2 characters"#.into()),
            ("age".into(), "3 is less than the minimum of 18".into()),
        ]
    );
    let problems = read_like_the_derive(json!({"code": 12345, "age": null})).unwrap_err();
    assert_eq!(
        reasons(&problems),
        [
            ("code".into(), r#"12345 is not of type "string""#.into()),
            ("age".into(), r#"null is not of type "integer""#.into()),
        ]
    );
}

#[test]
fn the_schema_builder_keeps_order_and_requires_what_has_no_default() {
    let mut schema = SchemaBuilder::new();
    let spec = FieldSpec {
        max_length: Some(8),
        ..FieldSpec::default()
    };
    schema.field("zulu", kind::<String>(), &spec, None);
    schema.field("alpha", kind::<Option<bool>>(), &FieldSpec::default(), None);
    schema.field("mike", kind::<u8>(), &FieldSpec::default(), Some(3));
    let schema = serde_json::to_value(schema.finish()).unwrap();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "zulu": {"type": "string", "maxLength": 8},
                "alpha": {"type": "boolean"},
                "mike": {"type": "integer", "default": 3},
            },
            "required": ["zulu"],
        })
    );
}

/// A form built by hand, with every kind of field.
fn hand_built() -> RequestedSchema {
    let mut code = StringSchema::new();
    (code.min_length, code.max_length) = (Some(2), Some(4));
    let mut contact = StringSchema::new();
    contact.format = Some(StringFormat::Email);
    let mut age = NumberSchema::new(NumberType::Integer);
    (age.minimum, age.maximum) = (Some(18.into()), Some(99.into()));
    let mut ratio = NumberSchema::new(NumberType::Number);
    ratio.maximum = serde_json::Number::from_f64(0.5);
    let option = |v: &str| EnumOption {
        value: v.into(),
        title: v.to_uppercase(),
    };
    let mut region = TitledSingleSelectEnumSchema::new();
    region.one_of = vec![option("eu"), option("us")];
    let mut colors = UntitledMultiSelectEnumSchema::new();
    colors.items.values = vec!["red".into(), "green".into()];
    colors.max_items = Some(1);
    let mut tags = TitledMultiSelectEnumSchema::new();
    tags.items.any_of = vec![option("a")];
    tags.min_items = Some(1);
    let properties = [
        ("code", PrimitiveSchemaDefinition::String(code)),
        ("contact", PrimitiveSchemaDefinition::String(contact)),
        ("age", PrimitiveSchemaDefinition::Number(age)),
        ("ratio", PrimitiveSchemaDefinition::Number(ratio)),
        (
            "region",
            PrimitiveSchemaDefinition::TitledSingleSelect(region),
        ),
        (
            "colors",
            PrimitiveSchemaDefinition::UntitledMultiSelect(colors),
        ),
        ("tags", PrimitiveSchemaDefinition::TitledMultiSelect(tags)),
    ];
    let properties = properties
        .into_iter()
        .map(|(name, field)| (name.to_owned(), field))
        .collect();
    RequestedSchema::new(properties, vec!["code".into(), "ghost".into()])
}

#[test]
fn hand_built_forms_are_checked_from_their_schema() {
    let validator = FormValidator::new(&hand_built());
    let good = content(json!({
        "code": "äöü", "contact": "ann@example.com", "age": 18, "ratio": 0.5,
        "region": "eu", "colors": ["green"], "tags": ["a"], "ghost": 1,
    }));
    assert_eq!(validator.check(&good), []);
    let bad = content(json!({
        "code": "x", "contact": "ann", "age": 17.5, "ratio": 0.75,
        "region": "EU", "colors": ["red", "green"], "tags": [],
    }));
    assert_eq!(
        reasons(&validator.check(&bad)),
        [
            ("code".into(), r#""x" is shorter than 2 characters"#.into()),
            (
                "contact".into(),
                r#""ann" is not a valid email address"#.into()
            ),
            ("age".into(), r#"17.5 is not of type "integer""#.into()),
            (
                "ratio".into(),
                "0.75 is greater than the maximum of 0.5".into()
            ),
            // "EU" is a label: each value is told beside its label.
            (
                "region".into(),
                r#""EU" is not one of "eu" (EU), "us" (US)"#.into()
            ),
            (
                "colors".into(),
                "expected at most 1 selection, got 2".into()
            ),
            ("tags".into(), "expected at least 1 selection, got 0".into()),
            ("ghost".into(), "missing required field".into()),
        ]
    );
    let empty = validator.check(&Map::new());
    assert_eq!(
        reasons(&empty),
        [
            ("code".into(), "missing required field".into()),
            ("ghost".into(), "missing required field".into()),
        ]
    );
}
