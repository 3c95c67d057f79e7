//! Elicitation forms end to end, through the public `typemcp_server` API
//! (`#[derive(ElicitForm)]`, `#[elicit_form]`, `#[derive(FormChoice)]`, [`Answer`]).
//!
//! 1. **Snapshots**: one small form per vocabulary item; its `requested_schema()` JSON is an
//!    `insta` snapshot, `tests/integration/snapshots/integration__forms__<item>.snap`. A changed or missing snapshot
//!    fails the test: on CI (`CI=true`) nothing is written, locally a `.snap.new` is written
//!    beside it. Review those with `cargo insta review` (or run `cargo insta test -p
//!    typemcp-server --test forms --review`), or accept every change with
//!    `INSTA_UPDATE=always cargo test -p typemcp-server --test forms` and read the diff.
//!    `cargo insta test -p typemcp-server --unreferenced=reject` also finds snapshots no test uses.
//! 2. **Specification**: every field must validate against the specification's own
//!    `PrimitiveSchemaDefinition`, and every form against `ElicitRequestFormParams`'
//!    `requestedSchema`, in the 2026-07-28 `schema.json` vendored by `typemcp-core`
//!    (`mcp-core/tests/spec/`, whose README names the commit).
//! 3. **Round trips**: form, accepted answer, typed value from `Answer::<T>::read`.
//! 4. **Malformed answers**: each is rejected, and the problem names the field and says why.
//! 5. **URL mode**: the request's wire shape, its answers, and `choose_mode`.
//! 6. **Legacy `enumNames`**: still expressible and valid against the specification.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use typemcp_server::typemcp_core::form::{
    ElicitationMode, FieldProblem, UrlElicitation, choose_mode, form_request,
};
use typemcp_server::typemcp_core::protocol::{
    ClientCapabilities, ElicitRequestParams, InputRequest, LegacyTitledEnumSchema,
    PrimitiveSchemaDefinition, RequestedSchema,
};
use typemcp_server::{Answer, ElicitForm, Email, FormChoice, FormError, elicit_form};

// =============================================================================================
// Choices
// =============================================================================================

/// Untitled choices: the values are what the user sees.
#[derive(FormChoice, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
    Blue,
}

/// Titled choices: kebab-case values, one explicit rename, one unlabelled variant.
#[derive(FormChoice, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
enum Region {
    #[choice(title = "Europe (Frankfurt)")]
    EuCentral,
    UsEast,
    #[serde(rename = "x")]
    #[choice(title = "Experimental")]
    Experimental,
}

// =============================================================================================
// One form per vocabulary item
// =============================================================================================

#[derive(ElicitForm, Debug, PartialEq)]
struct StringPlain {
    name: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct StringLength {
    #[form(min_length = 2, max_length = 8)]
    code: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct FormatEmail {
    #[form(format = "email")]
    contact: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct FormatUri {
    #[form(format = "uri")]
    homepage: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct FormatDate {
    #[form(format = "date")]
    birthday: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct FormatDateTime {
    #[form(format = "date-time")]
    meeting: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct EmailType {
    contact: Email,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct IntegerBounded {
    #[form(minimum = 1, maximum = 12)]
    replicas: u8,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct IntegerUnbounded {
    offset: i64,
}

/// A `u8` with no explicit bound: the Rust type's range still applies.
#[derive(ElicitForm, Debug, PartialEq)]
struct SmallCount {
    count: u8,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct NumberBounded {
    #[form(minimum = -1.5, maximum = 99.5)]
    ratio: f64,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct Boolean {
    confirm: bool,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct SingleSelectUntitled {
    color: Color,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct SingleSelectTitled {
    region: Region,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct MultiSelectUntitled {
    colors: Vec<Color>,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct MultiSelectTitled {
    #[form(min_items = 1, max_items = 2)]
    regions: BTreeSet<Region>,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct Optional {
    name: String,
    nickname: Option<String>,
    age: Option<u8>,
    ratio: Option<f64>,
    subscribe: Option<bool>,
    color: Option<Color>,
    colors: Option<Vec<Color>>,
    contact: Option<Email>,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct DefaultString {
    #[form(default = "anonymous")]
    alias: String,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct DefaultInteger {
    #[form(minimum = 0, maximum = 10, default = 3)]
    retries: u32,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct DefaultNumber {
    #[form(default = 0.25)]
    ratio: f64,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct DefaultBool {
    #[form(default = true)]
    subscribe: bool,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct DefaultEnum {
    #[form(default = Color::Green)]
    color: Color,
    #[form(default = Region::Experimental)]
    region: Region,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct DefaultMultiSelect {
    #[form(default = vec![Color::Blue, Color::Red])]
    colors: Vec<Color>,
    #[form(min_items = 1, default = BTreeSet::from([Region::EuCentral]))]
    regions: BTreeSet<Region>,
}

#[derive(ElicitForm, Debug, PartialEq)]
struct TitleDescription {
    /// Your legal name,
    /// as printed on your passport.
    #[form(title = "Full name")]
    full_name: String,
    /// This doc comment is replaced by the explicit description.
    #[form(title = "Age", description = "Whole years.")]
    age: u8,
    /// Only a description.
    note: Option<String>,
}

/// Declared out of alphabetical order on purpose; uses the attribute spelling.
#[elicit_form]
#[derive(Debug, PartialEq)]
struct DeclarationOrder {
    zulu: String,
    alpha: bool,
    mike: Option<u8>,
    bravo: i32,
    charlie: Color,
}

/// Everything at once, for checks that every problem is reported.
#[derive(ElicitForm, Debug, PartialEq)]
struct Signup {
    #[form(min_length = 1, max_length = 20)]
    name: String,
    contact: Email,
    #[form(minimum = 13, maximum = 120)]
    age: u8,
    region: Region,
    #[form(max_items = 2)]
    colors: Vec<Color>,
    newsletter: Option<bool>,
}

// =============================================================================================
// The catalogue
// =============================================================================================

/// One form of the catalogue, reachable without knowing its type.
struct Entry {
    name: &'static str,
    schema: fn() -> RequestedSchema,
    read: fn(&Value) -> Result<(), String>,
}

fn entry<T: ElicitForm + Debug>(name: &'static str) -> Entry {
    Entry {
        name,
        schema: T::requested_schema,
        read: |answer| match Answer::<T>::read(Some(answer)) {
            Answer::Accepted(_) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    }
}

/// Every vocabulary item, one snapshot each.
fn catalogue() -> Vec<Entry> {
    vec![
        entry::<StringPlain>("string_plain"),
        entry::<StringLength>("string_length"),
        entry::<FormatEmail>("format_email"),
        entry::<FormatUri>("format_uri"),
        entry::<FormatDate>("format_date"),
        entry::<FormatDateTime>("format_date_time"),
        entry::<EmailType>("email_type"),
        entry::<IntegerBounded>("integer_u8_bounded"),
        entry::<IntegerUnbounded>("integer_i64_unbounded"),
        entry::<NumberBounded>("number_f64_bounded"),
        entry::<Boolean>("boolean"),
        entry::<SingleSelectUntitled>("single_select_untitled"),
        entry::<SingleSelectTitled>("single_select_titled"),
        entry::<MultiSelectUntitled>("multi_select_untitled_vec"),
        entry::<MultiSelectTitled>("multi_select_titled_btreeset"),
        entry::<Optional>("optional"),
        entry::<DefaultString>("default_string"),
        entry::<DefaultInteger>("default_integer"),
        entry::<DefaultNumber>("default_number"),
        entry::<DefaultBool>("default_bool"),
        entry::<DefaultEnum>("default_enum"),
        entry::<DefaultMultiSelect>("default_multi_select"),
        entry::<TitleDescription>("title_description"),
        entry::<DeclarationOrder>("declaration_order"),
    ]
}

fn schema_json<T: ElicitForm>() -> Value {
    serde_json::to_value(T::requested_schema()).unwrap()
}

/// The schema of one field of `T`.
fn field<T: ElicitForm>(name: &str) -> Value {
    schema_json::<T>()["properties"][name].clone()
}

// =============================================================================================
// 1. Snapshots
// =============================================================================================

#[test]
fn snapshots_of_every_vocabulary_item() {
    for entry in catalogue() {
        insta::assert_json_snapshot!(entry.name, (entry.schema)());
    }
}

/// The snapshots pin the exact JSON; these pin the rules behind it, so that an accepted
/// snapshot cannot silently accept a broken rule.
#[test]
#[rustfmt::skip]
fn vocabulary_rules() {
    let titled = json!([
        {"const": "eu-central", "title": "Europe (Frankfurt)"},
        {"const": "us-east", "title": "us-east"},
        {"const": "x", "title": "Experimental"},
    ]);
    let colors = json!({"type": "string", "enum": ["red", "green", "blue"]});
    let fields = [
        (field::<StringPlain>("name"), json!({"type": "string"})),
        (field::<StringLength>("code"), json!({"type": "string", "minLength": 2, "maxLength": 8})),
        (field::<FormatEmail>("contact"), json!({"type": "string", "format": "email"})),
        (field::<FormatUri>("homepage"), json!({"type": "string", "format": "uri"})),
        (field::<FormatDate>("birthday"), json!({"type": "string", "format": "date"})),
        (field::<FormatDateTime>("meeting"), json!({"type": "string", "format": "date-time"})),
        (field::<EmailType>("contact"), json!({"type": "string", "format": "email"})),
        (field::<IntegerBounded>("replicas"),
            json!({"type": "integer", "minimum": 1, "maximum": 12})),
        (field::<IntegerUnbounded>("offset"), json!({"type": "integer"})),
        // No explicit bound is written for the type's own range.
        (field::<SmallCount>("count"), json!({"type": "integer"})),
        (field::<NumberBounded>("ratio"),
            json!({"type": "number", "minimum": -1.5, "maximum": 99.5})),
        (field::<Boolean>("confirm"), json!({"type": "boolean"})),
        (field::<SingleSelectUntitled>("color"), colors.clone()),
        (field::<SingleSelectTitled>("region"), json!({"type": "string", "oneOf": titled})),
        (field::<MultiSelectUntitled>("colors"), json!({"type": "array", "items": colors})),
        (field::<MultiSelectTitled>("regions"),
            json!({"type": "array", "minItems": 1, "maxItems": 2, "items": {"anyOf": titled}})),
        // An Option is the field's own schema, never nullable.
        (field::<Optional>("nickname"), json!({"type": "string"})),
        (field::<Optional>("age"), json!({"type": "integer"})),
        (field::<Optional>("ratio"), json!({"type": "number"})),
        (field::<Optional>("subscribe"), json!({"type": "boolean"})),
        (field::<Optional>("contact"), json!({"type": "string", "format": "email"})),
        // Title and description; the doc comment is the description unless one is given.
        (field::<TitleDescription>("full_name"), json!({"type": "string", "title": "Full name",
            "description": "Your legal name, as printed on your passport."})),
        (field::<TitleDescription>("age"),
            json!({"type": "integer", "title": "Age", "description": "Whole years."})),
        (field::<TitleDescription>("note"),
            json!({"type": "string", "description": "Only a description."})),
    ];
    for (actual, expected) in fields {
        assert_eq!(actual, expected);
    }
    let s = schema_json::<StringPlain>();
    assert_eq!((&s["type"], &s["required"]), (&json!("object"), &json!(["name"])));
    // Integer bounds are written as integers, not `1.0`.
    assert!(field::<IntegerBounded>("replicas")["maximum"].is_u64());
    // Option: not required, and never nullable.
    let s = schema_json::<Optional>();
    assert_eq!(s["required"], json!(["name"]));
    assert!(!s.to_string().contains("null"), "`null` or `nullable` in {s}");

    // Defaults: written as `default`, and the field is no longer required.
    let defaults = [
        (schema_json::<DefaultString>(), "alias", json!("anonymous")),
        (schema_json::<DefaultInteger>(), "retries", json!(3)),
        (schema_json::<DefaultNumber>(), "ratio", json!(0.25)),
        (schema_json::<DefaultBool>(), "subscribe", json!(true)),
        (schema_json::<DefaultEnum>(), "color", json!("green")),
        (schema_json::<DefaultEnum>(), "region", json!("x")),
        (schema_json::<DefaultMultiSelect>(), "colors", json!(["blue", "red"])),
        (schema_json::<DefaultMultiSelect>(), "regions", json!(["eu-central"])),
    ];
    for (schema, field, default) in defaults {
        assert_eq!(schema["properties"][field]["default"], default, "{field}");
        assert!(schema.get("required").is_none(), "a field with a default is optional: {schema}");
    }
    assert!(field::<DefaultInteger>("retries")["default"].is_u64());
}

#[test]
fn declaration_order_is_preserved() {
    let schema = DeclarationOrder::requested_schema();
    let names = ["zulu", "alpha", "mike", "bravo", "charlie"];
    assert!(schema.properties.keys().eq(names));
    assert_eq!(schema.required, ["zulu", "alpha", "bravo", "charlie"]);
    // And on the wire (text order, not map equality).
    let text = serde_json::to_string(&schema).unwrap();
    let positions = names.map(|n| text.find(&format!("\"{n}\"")).unwrap());
    assert!(positions.is_sorted(), "{text}");
}

/// `#[elicit_form]` and `#[derive(ElicitForm)]` are the same thing.
#[test]
fn attribute_and_derive_agree() {
    #[derive(ElicitForm)]
    #[allow(dead_code)]
    struct Derived {
        zulu: String,
        alpha: bool,
        mike: Option<u8>,
        bravo: i32,
        charlie: Color,
    }
    assert_eq!(
        Derived::requested_schema(),
        DeclarationOrder::requested_schema()
    );
}

#[test]
fn choice_values_and_titles() {
    let values = [Region::EuCentral, Region::UsEast, Region::Experimental].map(|r| r.value());
    assert_eq!(values, ["eu-central", "us-east", "x"]);
    assert_eq!(Region::from_value("x"), Some(Region::Experimental));
    assert_eq!(Region::from_value("experimental"), None);
    assert_eq!(Region::from_value("Europe (Frankfurt)"), None);
    let titles: Vec<Option<&str>> = Region::CHOICES.iter().map(|c| c.title).collect();
    assert_eq!(
        titles,
        [Some("Europe (Frankfurt)"), None, Some("Experimental")]
    );
    assert!(Color::CHOICES.iter().all(|c| c.title.is_none()));
    assert_eq!(Color::from_value("Red"), None, "values are case-sensitive");
}

// =============================================================================================
// 2. Validation against the specification's own schema
// =============================================================================================

/// The eight field kinds of the specification.
const FIELD_DEFS: [&str; 8] = [
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
    "LegacyTitledEnumSchema",
];

/// The specification's JSON Schema for 2026-07-28, as vendored by `typemcp-core`.
fn spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(|| {
        let text = include_str!("../../../mcp-core/tests/spec/2026-07-28/schema.json");
        serde_json::from_str(text).unwrap()
    })
}

/// A validator for the specification's definition at `pointer` (e.g.
/// `/$defs/PrimitiveSchemaDefinition`), resolved inside the whole document.
fn spec_validator(pointer: &str) -> jsonschema::Validator {
    let mut document = spec().clone();
    document["$ref"] = Value::String(format!("#{pointer}"));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&document)
        .unwrap_or_else(|e| panic!("the specification's {pointer} does not compile: {e}"))
}

fn violations(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Every key of `value` is one the definition declares (recursively into declared objects
/// and arrays of objects). The specification's schema is open (no `additionalProperties:
/// false`), so this is what catches an invented key such as `nullable`.
fn undeclared_keys(def: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    let (Some(object), Some(declared)) = (value.as_object(), def["properties"].as_object()) else {
        return;
    };
    for (key, member) in object {
        let here = format!("{path}/{key}");
        match (declared.get(key), member) {
            (None, _) => out.push(here),
            (Some(sub), Value::Object(_)) => undeclared_keys(sub, member, &here, out),
            (Some(sub), Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    undeclared_keys(&sub["items"], item, &format!("{here}/{i}"), out);
                }
            }
            (Some(_), _) => {}
        }
    }
}

/// Which of the eight kinds `field` is, by the specification: the kinds it validates against
/// and whose declared keys cover it.
fn matching_kinds(field: &Value) -> Vec<&'static str> {
    FIELD_DEFS
        .into_iter()
        .filter(|def| {
            let mut extra = Vec::new();
            undeclared_keys(&spec()["$defs"][def], field, "", &mut extra);
            extra.is_empty() && spec_validator(&format!("/$defs/{def}")).is_valid(field)
        })
        .collect()
}

/// The vendored schema has what these tests validate against, and its field kinds are
/// exactly [`FIELD_DEFS`].
#[test]
fn the_spec_schema_defines_the_form_vocabulary() {
    let defs = &spec()["$defs"];
    for def in [
        "ElicitRequestFormParams",
        "ElicitRequestURLParams",
        "ElicitRequest",
    ] {
        assert!(defs[def].is_object(), "no `{def}`");
    }
    let kinds: BTreeSet<&str> = defs["PrimitiveSchemaDefinition"]["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|kind| kind["$ref"].as_str())
        .map(|r| r.trim_start_matches("#/$defs/"))
        .collect();
    assert_eq!(kinds, BTreeSet::from(FIELD_DEFS));
}

#[test]
fn every_field_is_a_primitive_schema_definition_of_the_spec() {
    let primitive = spec_validator("/$defs/PrimitiveSchemaDefinition");
    let mut failures = Vec::new();
    for entry in catalogue() {
        let schema = serde_json::to_value((entry.schema)()).unwrap();
        for (field, definition) in schema["properties"].as_object().unwrap() {
            let errors = violations(&primitive, definition);
            if !errors.is_empty() {
                failures.push(format!("{}.{field}: {errors:?}", entry.name));
            }
            if matching_kinds(definition).is_empty() {
                failures.push(format!(
                    "{}.{field}: {definition} has keys none of the spec's field kinds declares",
                    entry.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Each kind of field is recognised as the kind the specification means.
#[test]
fn fields_are_the_intended_spec_kinds() {
    let cases = [
        (field::<StringLength>("code"), "StringSchema"),
        (field::<EmailType>("contact"), "StringSchema"),
        (field::<NumberBounded>("ratio"), "NumberSchema"),
        (field::<IntegerBounded>("replicas"), "NumberSchema"),
        (field::<DefaultBool>("subscribe"), "BooleanSchema"),
        (
            field::<DefaultEnum>("color"),
            "UntitledSingleSelectEnumSchema",
        ),
        (
            field::<DefaultEnum>("region"),
            "TitledSingleSelectEnumSchema",
        ),
        (
            field::<DefaultMultiSelect>("colors"),
            "UntitledMultiSelectEnumSchema",
        ),
        (
            field::<DefaultMultiSelect>("regions"),
            "TitledMultiSelectEnumSchema",
        ),
    ];
    for (field, kind) in cases {
        let kinds = matching_kinds(&field);
        assert!(kinds.contains(&kind), "{field}: {kinds:?}");
    }
}

#[test]
fn every_form_is_a_requested_schema_of_the_spec() {
    let requested = spec_validator("/$defs/ElicitRequestFormParams/properties/requestedSchema");
    let request = spec_validator("/$defs/ElicitRequest");
    let mut failures = Vec::new();
    for entry in catalogue() {
        let schema = (entry.schema)();
        let errors = violations(&requested, &serde_json::to_value(&schema).unwrap());
        if !errors.is_empty() {
            failures.push(format!("{} requestedSchema: {errors:?}", entry.name));
        }
        let wire = InputRequest::Elicitation(ElicitRequestParams::form("Please fill in.", schema));
        let errors = violations(&request, &serde_json::to_value(&wire).unwrap());
        if !errors.is_empty() {
            failures.push(format!("{} elicitation/create: {errors:?}", entry.name));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");

    let wire = serde_json::to_value(form_request::<Signup>("Sign up")).unwrap();
    assert_eq!(wire["method"], "elicitation/create");
    assert_eq!(
        wire["params"],
        json!({"mode": "form", "message": "Sign up", "requestedSchema": schema_json::<Signup>()})
    );
    assert_eq!(violations(&request, &wire), Vec::<String>::new());
}

/// The validator really is the specification's: it refuses what the specification refuses.
#[test]
fn spec_validator_is_not_vacuous() {
    let primitive = spec_validator("/$defs/PrimitiveSchemaDefinition");
    for bad in [
        json!({"type": "object", "properties": {}}),
        json!({"type": "string", "format": "hostname"}),
        json!({"type": "integer", "minimum": "1"}),
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "null"}),
    ] {
        assert!(!primitive.is_valid(&bad), "accepted {bad}");
    }
    let requested = spec_validator("/$defs/ElicitRequestFormParams/properties/requestedSchema");
    assert!(!requested.is_valid(&json!({"type": "object"})));
    let nested =
        json!({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}});
    assert!(!requested.is_valid(&nested));
    let mut extra = Vec::new();
    let nullable = json!({"type": "string", "nullable": true});
    undeclared_keys(&spec()["$defs"]["StringSchema"], &nullable, "", &mut extra);
    assert_eq!(extra, ["/nullable"]);
}

// =============================================================================================
// 3. Round trips
// =============================================================================================

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn read<T: ElicitForm + Debug>(content: Value) -> T {
    match Answer::<T>::read(Some(&accept(content.clone()))) {
        Answer::Accepted(value) => value,
        other => panic!("{content} was not accepted: {other:?}"),
    }
}

/// `content` is accepted and read as `expected`.
#[track_caller]
fn reads<T: ElicitForm + Debug + PartialEq>(content: Value, expected: T) {
    assert_eq!(read::<T>(content), expected);
}

fn email(text: &str) -> Email {
    Email::parse(text).unwrap()
}

#[test]
#[rustfmt::skip]
fn round_trip_text() {
    reads(json!({"name": "Ann"}), StringPlain { name: "Ann".into() });
    reads(json!({"name": ""}), StringPlain { name: String::new() });
    // Lengths are in characters.
    for code in ["ab", "abcdefgh", "äöüß"] {
        reads(json!({ "code": code }), StringLength { code: code.into() });
    }
    reads(json!({"contact": "ann@example.com"}), FormatEmail { contact: "ann@example.com".into() });
    let homepage = "https://example.com/a?b=c";
    reads(json!({ "homepage": homepage }), FormatUri { homepage: homepage.into() });
    reads(json!({"birthday": "2024-02-29"}), FormatDate { birthday: "2024-02-29".into() });
    let meeting = "2024-02-29T12:30:00Z";
    reads(json!({ "meeting": meeting }), FormatDateTime { meeting: meeting.into() });
    let contact = read::<EmailType>(json!({"contact": "ann@example.com"})).contact;
    assert_eq!((contact.as_str(), &contact), ("ann@example.com", &email("ann@example.com")));
}

#[test]
#[rustfmt::skip]
fn round_trip_numbers_and_booleans() {
    for n in [1u8, 7, 12] {
        reads(json!({ "replicas": n }), IntegerBounded { replicas: n });
    }
    for n in [i64::MIN, -1, 0, i64::MAX] {
        reads(json!({ "offset": n }), IntegerUnbounded { offset: n });
    }
    for n in [0, 255] {
        reads(json!({ "count": n }), SmallCount { count: n });
    }
    // 3.0 is a whole number.
    reads(json!({"replicas": 3.0}), IntegerBounded { replicas: 3 });
    for x in [-1.5, 0.0, 42.125, 99.5] {
        reads(json!({ "ratio": x }), NumberBounded { ratio: x });
    }
    // An integer is a number.
    reads(json!({"ratio": 7}), NumberBounded { ratio: 7.0 });
    reads(json!({"confirm": true}), Boolean { confirm: true });
    reads(json!({"confirm": false}), Boolean { confirm: false });
}

#[test]
#[rustfmt::skip]
fn round_trip_choices() {
    reads(json!({"color": "green"}), SingleSelectUntitled { color: Color::Green });
    reads(json!({"region": "eu-central"}), SingleSelectTitled { region: Region::EuCentral });
    reads(json!({"region": "us-east"}), SingleSelectTitled { region: Region::UsEast });
    reads(json!({"region": "x"}), SingleSelectTitled { region: Region::Experimental });
    // A Vec keeps the answer's order.
    let colors = vec![Color::Blue, Color::Red];
    reads(json!({"colors": ["blue", "red"]}), MultiSelectUntitled { colors });
    reads(json!({"colors": []}), MultiSelectUntitled { colors: vec![] });
    reads(
        json!({"regions": ["x", "eu-central"]}),
        MultiSelectTitled { regions: BTreeSet::from([Region::EuCentral, Region::Experimental]) },
    );
}

#[test]
fn round_trip_optional_fields() {
    let absent = Optional {
        name: "Ann".into(),
        nickname: None,
        age: None,
        ratio: None,
        subscribe: None,
        color: None,
        colors: None,
        contact: None,
    };
    reads(json!({"name": "Ann"}), absent);
    let present = json!({
        "name": "Ann",
        "nickname": "annie",
        "age": 42,
        "ratio": 0.5,
        "subscribe": false,
        "color": "blue",
        "colors": ["red"],
        "contact": "ann@example.com",
    });
    let expected = Optional {
        name: "Ann".into(),
        nickname: Some("annie".into()),
        age: Some(42),
        ratio: Some(0.5),
        subscribe: Some(false),
        color: Some(Color::Blue),
        colors: Some(vec![Color::Red]),
        contact: Some(email("ann@example.com")),
    };
    reads(present, expected);
}

#[test]
#[rustfmt::skip]
fn round_trip_defaults_fill_absent_fields() {
    reads(json!({}), DefaultString { alias: "anonymous".into() });
    reads(json!({}), DefaultInteger { retries: 3 });
    reads(json!({}), DefaultNumber { ratio: 0.25 });
    reads(json!({}), DefaultBool { subscribe: true });
    reads(json!({}), DefaultEnum { color: Color::Green, region: Region::Experimental });
    let regions = BTreeSet::from([Region::EuCentral]);
    reads(json!({}), DefaultMultiSelect { colors: vec![Color::Blue, Color::Red], regions });
    // A default is only a default: an answered value wins.
    reads(json!({"alias": "bob"}), DefaultString { alias: "bob".into() });
    reads(json!({"retries": 0}), DefaultInteger { retries: 0 });
    reads(json!({"subscribe": false}), DefaultBool { subscribe: false });
    let answered = DefaultEnum { color: Color::Red, region: Region::UsEast };
    reads(json!({"color": "red", "region": "us-east"}), answered);
    reads(
        json!({"colors": [], "regions": ["x"]}),
        DefaultMultiSelect { colors: vec![], regions: BTreeSet::from([Region::Experimental]) },
    );
}

#[test]
fn round_trip_whole_form() {
    let signup = Signup {
        name: "Ann".into(),
        contact: email("ann@example.com"),
        age: 30,
        region: Region::Experimental,
        colors: vec![Color::Green],
        newsletter: None,
    };
    let answer = json!({
        "name": "Ann", "contact": "ann@example.com", "age": 30, "region": "x", "colors": ["green"]
    });
    reads(answer, signup);
    let declared = DeclarationOrder {
        zulu: "z".into(),
        alpha: true,
        mike: None,
        bravo: -7,
        charlie: Color::Red,
    };
    reads(
        json!({"zulu": "z", "alpha": true, "bravo": -7, "charlie": "red"}),
        declared,
    );
}

/// A value that satisfies one field schema, built from the schema alone.
fn sample(field: &Value) -> Value {
    let choices = |options: &Value| -> Vec<Value> {
        let options = options.as_array().unwrap().iter();
        options
            .map(|o| o.get("const").unwrap_or(o).clone())
            .collect()
    };
    match field["type"].as_str().unwrap() {
        "string" if field.get("enum").is_some() => choices(&field["enum"])[0].clone(),
        "string" if field.get("oneOf").is_some() => choices(&field["oneOf"])[0].clone(),
        "string" => match field["format"].as_str() {
            Some("email") => json!("ann@example.com"),
            Some("uri") => json!("https://example.com/"),
            Some("date") => json!("2024-02-29"),
            Some("date-time") => json!("2024-02-29T12:30:00Z"),
            _ => {
                let len = field["minLength"].as_u64().unwrap_or(1).max(1);
                json!("a".repeat(usize::try_from(len).unwrap()))
            }
        },
        "integer" | "number" => field
            .get("minimum")
            .or_else(|| field.get("maximum"))
            .cloned()
            .unwrap_or(json!(0)),
        "boolean" => json!(true),
        "array" => {
            let items = &field["items"];
            let options = choices(items.get("enum").unwrap_or(&items["anyOf"]));
            let count = field["minItems"].as_u64().unwrap_or(1).max(1);
            let count = count.min(field["maxItems"].as_u64().unwrap_or(count));
            json!(options[..usize::try_from(count).unwrap()])
        }
        other => panic!("unexpected field type {other}"),
    }
}

/// Every form accepts an answer built from its own schema, and accepts an empty answer
/// exactly when it requires nothing.
#[test]
fn every_form_accepts_an_answer_built_from_its_schema() {
    let mut failures = Vec::new();
    for entry in catalogue() {
        let schema = serde_json::to_value((entry.schema)()).unwrap();
        let content: Map<String, Value> = schema["properties"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, field)| (name.clone(), sample(field)))
            .collect();
        let answer = accept(Value::Object(content));
        if let Err(e) = (entry.read)(&answer) {
            failures.push(format!("{}: {answer} → {e}", entry.name));
        }
        let requires_nothing = schema.get("required").is_none();
        let empty = (entry.read)(&accept(json!({})));
        if empty.is_ok() != requires_nothing {
            failures.push(format!(
                "{}: empty answer → {empty:?}, but required = {}",
                entry.name, schema["required"]
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

// =============================================================================================
// 4. Malformed answers
// =============================================================================================

/// The problems of an answer that must be rejected.
fn rejected<T: ElicitForm + Debug>(answer: Value) -> Vec<FieldProblem> {
    match Answer::<T>::read(Some(&answer)) {
        Answer::Malformed(err) => {
            assert!(!err.problems().is_empty(), "an error with no problem");
            err.problems().to_vec()
        }
        other => panic!("{answer} was not rejected: {other:?}"),
    }
}

/// The problems of an accepted answer whose content must be rejected.
fn bad<T: ElicitForm + Debug>(content: Value) -> Vec<FieldProblem> {
    rejected::<T>(accept(content))
}

/// There is a problem about `field` whose reason mentions one of `words` (case-insensitive).
#[track_caller]
fn assert_problem(problems: &[FieldProblem], field: &str, words: &[&str]) {
    let found = problems.iter().any(|p| {
        let reason = p.reason.to_lowercase();
        p.field.as_deref() == Some(field)
            && words.iter().any(|w| reason.contains(&w.to_lowercase()))
    });
    assert!(
        found,
        "expected a problem on `{field}` mentioning one of {words:?}; got {problems:#?}"
    );
}

/// Only problems about `fields` (no stray problems about other fields).
#[track_caller]
fn assert_only_fields(problems: &[FieldProblem], fields: &[&str]) {
    for p in problems {
        assert!(
            p.field.as_deref().is_some_and(|f| fields.contains(&f)),
            "unexpected problem {p:?} (expected only {fields:?})"
        );
    }
}

/// A rejected content: its problems, the field one of them must name, and the words that
/// problem must use (any one of them).
type Case = (Vec<FieldProblem>, &'static str, Vec<&'static str>);

/// Bad values of a `format` field: a problem names the format (and, if `quoted`, the value).
fn bad_formats<T: ElicitForm + Debug>(
    field: &'static str,
    format: &'static str,
    values: &[&'static str],
    quoted: bool,
) -> Vec<Case> {
    let mut cases = Vec::new();
    for value in values {
        let problems = bad::<T>(json!({ field: value }));
        if quoted {
            cases.push((problems.clone(), field, vec![*value]));
        }
        cases.push((problems, field, vec![format]));
    }
    cases
}

#[rustfmt::skip]
fn malformed_contents() -> Vec<Case> {
    let mut cases = vec![
        // Wrong types.
        (bad::<NumberBounded>(json!({"ratio": "1.5"})), "ratio", vec!["number", "\"1.5\""]),
        (bad::<IntegerUnbounded>(json!({"offset": "7"})), "offset", vec!["integer", "\"7\""]),
        (bad::<Boolean>(json!({"confirm": 1})), "confirm", vec!["boolean"]),
        (bad::<Boolean>(json!({"confirm": "true"})), "confirm", vec!["boolean"]),
        (bad::<StringPlain>(json!({"name": {"first": "Ann"}})), "name", vec!["string"]),
        (bad::<StringPlain>(json!({"name": 42})), "name", vec!["string"]),
        (bad::<SingleSelectUntitled>(json!({"color": 1})), "color", vec!["string", "enum", "1"]),
        (bad::<MultiSelectUntitled>(json!({"colors": "red"})), "colors", vec!["array"]),
        (bad::<IntegerBounded>(json!({"replicas": 2.5})), "replicas", vec!["integer", "2.5"]),
        // An Option is "may be absent", not "may be anything".
        (bad::<Optional>(json!({"name": "Ann", "age": "old"})), "age", vec!["integer", "\"old\""]),
        // `null` is not an answer to a required field.
        (bad::<StringPlain>(json!({"name": null})), "name",
            vec!["null", "string", "required", "missing"]),
        // Numbers out of range.
        (bad::<IntegerBounded>(json!({"replicas": 13})), "replicas", vec!["maximum"]),
        (bad::<IntegerBounded>(json!({"replicas": 13})), "replicas", vec!["13"]),
        (bad::<IntegerBounded>(json!({"replicas": 0})), "replicas", vec!["minimum"]),
        (bad::<NumberBounded>(json!({"ratio": 99.75})), "ratio", vec!["maximum"]),
        (bad::<NumberBounded>(json!({"ratio": -2})), "ratio", vec!["minimum"]),
        // No explicit bound: the Rust type's range still applies.
        (bad::<SmallCount>(json!({"count": 300})), "count", vec!["300"]),
        (bad::<SmallCount>(json!({"count": 300})), "count", vec!["range", "255"]),
        (bad::<SmallCount>(json!({"count": -1})), "count", vec!["-1"]),
        (bad::<IntegerUnbounded>(json!({"offset": 9_223_372_036_854_775_808u64})), "offset",
            vec!["9223372036854775808", "range"]),
        (bad::<Optional>(json!({"name": "Ann", "age": 256})), "age", vec!["256"]),
        // Strings of the wrong length.
        (bad::<StringLength>(json!({"code": "abcdefghi"})), "code", vec!["longer", "8"]),
        (bad::<StringLength>(json!({"code": "abcdefghi"})), "code", vec!["abcdefghi"]),
        (bad::<StringLength>(json!({"code": "a"})), "code", vec!["shorter", "2"]),
        (bad::<StringLength>(json!({"code": ""})), "code", vec!["shorter", "2"]),
        // Unknown choices: the label is not the value, nor is the Rust name.
        (bad::<SingleSelectUntitled>(json!({"color": "purple"})), "color", vec!["purple"]),
        (bad::<SingleSelectUntitled>(json!({"color": "Red"})), "color", vec!["Red"]),
        (bad::<SingleSelectTitled>(json!({"region": "eu-west"})), "region", vec!["eu-west"]),
        (bad::<SingleSelectTitled>(json!({"region": "Europe (Frankfurt)"})), "region",
            vec!["Europe (Frankfurt)"]),
        (bad::<SingleSelectTitled>(json!({"region": "experimental"})), "region",
            vec!["experimental"]),
        (bad::<MultiSelectTitled>(json!({"regions": ["x", "mars"]})), "regions", vec!["mars"]),
        (bad::<MultiSelectUntitled>(json!({"colors": ["red", 3]})), "colors", vec!["string", "3"]),
        // Wrong numbers of selections.
        (bad::<MultiSelectTitled>(json!({"regions": []})), "regions",
            vec!["less than 1", "fewer", "minItems", "at least"]),
        (bad::<MultiSelectTitled>(json!({"regions": ["x", "us-east", "eu-central"]})), "regions",
            vec!["more than 2", "maxItems", "at most"]),
    ];
    let emails = ["not an email", "ann@", "@example.com", "ann"];
    cases.extend(bad_formats::<FormatEmail>("contact", "email", &emails, true));
    cases.extend(bad_formats::<EmailType>("contact", "email", &emails, false));
    cases.extend(bad_formats::<FormatUri>("homepage", "uri", &["not a uri", "//no-scheme"], true));
    let dates = ["2024-13-45", "29/02/2024", "2023-02-29", "yesterday"];
    cases.extend(bad_formats::<FormatDate>("birthday", "date", &dates, true));
    let times = ["tomorrow at noon", "2024-02-29", "2024-02-29T25:00:00Z"];
    cases.extend(bad_formats::<FormatDateTime>("meeting", "date-time", &times, true));
    cases
}

#[test]
fn malformed_contents_are_rejected_field_by_field() {
    for (problems, field, words) in malformed_contents() {
        assert_problem(&problems, field, &words);
    }
    assert_only_fields(&bad::<NumberBounded>(json!({"ratio": "1.5"})), &["ratio"]);
    let p = bad::<MultiSelectUntitled>(json!({"colors": ["red", "purple"]}));
    assert_problem(&p, "colors", &["purple"]);
    assert_only_fields(&p, &["colors"]);
}

/// A problem says that `field` is missing: attributed to it, or at least naming it.
#[track_caller]
fn assert_missing(problems: &[FieldProblem], field: &str) {
    let found = problems.iter().any(|p| {
        let names = p.field.as_deref() == Some(field)
            || (p.field.is_none() && p.reason.contains(&format!("\"{field}\"")));
        let reason = p.reason.to_lowercase();
        names && (reason.contains("required") || reason.contains("missing"))
    });
    assert!(
        found,
        "expected a problem saying `{field}` is missing; got {problems:#?}"
    );
}

#[test]
fn rejects_missing_required_fields() {
    assert_missing(&bad::<StringPlain>(json!({})), "name");
    let p = bad::<Signup>(json!({"name": "Ann", "age": 30}));
    for field in ["contact", "region", "colors"] {
        assert_missing(&p, field);
    }
    let newsletter = |x: &FieldProblem| {
        x.field.as_deref() == Some("newsletter") || x.reason.contains("\"newsletter\"")
    };
    assert!(
        !p.iter().any(newsletter),
        "an Option is not required: {p:#?}"
    );
}

#[test]
fn rejects_accept_without_content_when_fields_are_required() {
    assert_missing(
        &rejected::<StringPlain>(json!({"action": "accept"})),
        "name",
    );
    let p = rejected::<Signup>(json!({"action": "accept"}));
    for field in ["name", "contact", "age", "region", "colors"] {
        assert_missing(&p, field);
    }
    let p = rejected::<Signup>(json!({"action": "accept", "content": null}));
    assert_missing(&p, "name");
    // A form that requires nothing is answered by a bare accept.
    assert_eq!(
        Answer::<DefaultMultiSelect>::read(Some(&json!({"action": "accept"}))),
        Answer::Accepted(DefaultMultiSelect {
            colors: vec![Color::Blue, Color::Red],
            regions: BTreeSet::from([Region::EuCentral]),
        })
    );
}

/// A missing required field is a problem of that field: its `FieldProblem::field` is
/// `Some(name)` (`None` is for the answer as a whole), one problem per missing field.
#[test]
fn missing_required_fields_are_attributed_to_the_field() {
    let fields =
        |p: &[FieldProblem]| -> Vec<Option<String>> { p.iter().map(|x| x.field.clone()).collect() };
    let p = bad::<StringPlain>(json!({}));
    assert_eq!(fields(&p), [Some("name".to_owned())], "{p:#?}");
    let p = rejected::<StringPlain>(json!({"action": "accept"}));
    assert_eq!(fields(&p), [Some("name".to_owned())], "{p:#?}");
    let p = bad::<Signup>(json!({"name": "Ann", "age": 30}));
    let named: BTreeSet<Option<String>> = fields(&p).into_iter().collect();
    let want: BTreeSet<Option<String>> = ["contact", "region", "colors"]
        .into_iter()
        .map(|f| Some(f.to_owned()))
        .collect();
    assert_eq!(named, want, "{p:#?}");
}

/// `Answer::Accepted` means "the value passed every check", and `min_items` bounds the number
/// of selections: `["x", "x"]` must not pass `min_items = 2` as a `BTreeSet` of one.
#[test]
fn duplicate_selections_do_not_undercut_min_items() {
    #[derive(ElicitForm, Debug, PartialEq)]
    struct TwoRegions {
        #[form(min_items = 2)]
        regions: BTreeSet<Region>,
    }
    match Answer::<TwoRegions>::read(Some(&accept(json!({"regions": ["x", "x"]})))) {
        Answer::Malformed(err) => assert_problem(err.problems(), "regions", &["x"]),
        Answer::Accepted(value) => panic!(
            "accepted {value:?}: {} selection(s) for `min_items = 2`",
            value.regions.len()
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rejects_answers_that_are_not_elicitation_results() {
    for bad in [
        json!(12345),
        json!("accept"),
        json!(null),
        json!([]),
        json!({}),
        json!({"action": "maybe"}),
        json!({"action": "ACCEPT", "content": {"name": "Ann"}}),
        json!({"action": "accept", "content": "Ann"}),
        json!({"action": "accept", "content": ["Ann"]}),
    ] {
        let p = rejected::<StringPlain>(bad.clone());
        assert!(
            p.iter()
                .all(|x| x.field.is_none() && !x.reason.trim().is_empty()),
            "{bad}: a problem with the whole answer names no field and says why: {p:#?}"
        );
    }
    let p = rejected::<StringPlain>(json!({"action": "maybe"}));
    assert!(p[0].reason.contains("maybe"), "{p:#?}");
}

#[test]
fn every_problem_is_reported() {
    let p = bad::<Signup>(json!({
        "name": "a name that is far too long for the form",
        "contact": "nobody",
        "age": 9,
        "region": "mars",
        "colors": ["red", "green", "blue"],
        "newsletter": "yes",
    }));
    let expected: [(&str, &[&str]); 6] = [
        ("name", &["longer", "20"]),
        ("contact", &["email"]),
        ("age", &["minimum"]),
        ("region", &["mars"]),
        ("colors", &["more than 2", "maxItems", "at most"]),
        ("newsletter", &["boolean"]),
    ];
    let text = FormError::new(p.clone()).to_string();
    for (field, words) in expected {
        assert_problem(&p, field, words);
        assert!(
            text.contains(&format!("`{field}`")),
            "{field} not named in {text:?}"
        );
    }
}

#[test]
fn reads_decline_cancel_missing_and_extra_keys() {
    let read = |answer: Value| Answer::<StringPlain>::read(Some(&answer));
    assert!(matches!(
        read(json!({"action": "decline"})),
        Answer::Declined
    ));
    assert!(matches!(
        read(json!({"action": "cancel"})),
        Answer::Cancelled
    ));
    // Content on a decline or cancel is not read, even when it would be invalid.
    let declined = read(json!({"action": "decline", "content": {"name": 1}}));
    assert!(matches!(declined, Answer::Declined));
    assert!(matches!(Answer::<StringPlain>::read(None), Answer::Missing));
    // Unknown content keys and unknown result members are ignored.
    let answer = json!({
        "action": "accept",
        "content": {"name": "Ann", "unexpected": {"deep": [1, 2]}},
        "_meta": {"x": 1},
    });
    let ann = StringPlain { name: "Ann".into() };
    assert_eq!(read(answer.clone()), Answer::Accepted(ann));
    assert_eq!(
        read(answer).accepted(),
        Some(StringPlain { name: "Ann".into() })
    );
    assert_eq!(read(json!({"action": "cancel"})).accepted(), None);
}

// =============================================================================================
// 5. URL mode
// =============================================================================================

#[test]
fn url_request_wire_shape() {
    let message = "Complete the payment to continue.";
    let url = "https://pay.example.com/s/8f3a";
    let request = UrlElicitation::new(message, url).into_request();
    let wire = serde_json::to_value(&request).unwrap();
    let params = json!({"mode": "url", "message": message, "url": url});
    assert_eq!(
        wire,
        json!({"method": "elicitation/create", "params": params})
    );
    let no_violations = Vec::<String>::new();
    let request_def = spec_validator("/$defs/ElicitRequest");
    assert_eq!(violations(&request_def, &wire), no_violations);
    let params_def = spec_validator("/$defs/ElicitRequestURLParams");
    assert_eq!(violations(&params_def, &params), no_violations);
    // It reads back as the same request.
    let back: InputRequest = serde_json::from_value(wire).unwrap();
    assert_eq!(back, request);
}

#[test]
fn url_answers() {
    let read = |answer: Value| Answer::<UrlElicitation>::read(Some(&answer));
    assert!(matches!(
        read(json!({"action": "accept"})),
        Answer::Accepted(_)
    ));
    assert!(matches!(
        read(json!({"action": "decline"})),
        Answer::Declined
    ));
    assert!(matches!(
        read(json!({"action": "cancel"})),
        Answer::Cancelled
    ));
    assert!(matches!(
        read(json!({"action": "maybe"})),
        Answer::Malformed(_)
    ));
    assert!(matches!(
        Answer::<UrlElicitation>::read(None),
        Answer::Missing
    ));
}

#[test]
fn choosing_the_mode() {
    use ElicitationMode::{Form, Url};
    let cases = [
        (json!({}), None, None),
        (json!({"elicitation": {}}), Some(Form), Some(Form)),
        (json!({"elicitation": {"form": {}}}), Some(Form), Some(Form)),
        (json!({"elicitation": {"url": {}}}), Some(Url), Some(Url)),
        (
            json!({"elicitation": {"form": {}, "url": {}}}),
            Some(Form),
            Some(Url),
        ),
    ];
    for (declared, preferring_form, preferring_url) in cases {
        let caps: ClientCapabilities = serde_json::from_value(declared.clone()).unwrap();
        let chosen = (choose_mode(&caps, Form), choose_mode(&caps, Url));
        assert_eq!(chosen, (preferring_form, preferring_url), "{declared}");
    }
}

// =============================================================================================
// 6. Legacy `enumNames`
// =============================================================================================

#[test]
fn legacy_enum_names_stay_expressible() {
    let mut legacy = LegacyTitledEnumSchema::new();
    legacy.title = Some("Plan".into());
    legacy.description = Some("Pick a plan.".into());
    legacy.values = vec!["free".into(), "pro".into()];
    legacy.enum_names = vec!["Free".into(), "Professional".into()];
    legacy.default = Some("free".into());
    let field = PrimitiveSchemaDefinition::LegacyTitled(legacy);

    let wire = serde_json::to_value(&field).unwrap();
    assert_eq!(
        wire,
        json!({
            "type": "string",
            "title": "Plan",
            "description": "Pick a plan.",
            "enum": ["free", "pro"],
            "enumNames": ["Free", "Professional"],
            "default": "free",
        })
    );
    let back: PrimitiveSchemaDefinition = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(
        back, field,
        "reads back as the legacy kind, not as a plain enum"
    );

    let primitive = spec_validator("/$defs/PrimitiveSchemaDefinition");
    assert_eq!(violations(&primitive, &wire), Vec::<String>::new());
    assert!(matching_kinds(&wire).contains(&"LegacyTitledEnumSchema"));

    let properties = indexmap::IndexMap::from([("plan".to_owned(), field)]);
    let form = serde_json::to_value(RequestedSchema::new(properties, vec!["plan".into()])).unwrap();
    let requested = spec_validator("/$defs/ElicitRequestFormParams/properties/requestedSchema");
    assert_eq!(violations(&requested, &form), Vec::<String>::new());

    // A plain enum is not mistaken for the legacy spelling.
    let plain: PrimitiveSchemaDefinition =
        serde_json::from_value(json!({"type": "string", "enum": ["a"]})).unwrap();
    assert!(matches!(
        plain,
        PrimitiveSchemaDefinition::UntitledSingleSelect(_)
    ));
}
