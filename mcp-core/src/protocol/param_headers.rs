//! Custom parameter headers (SEP-2243): the `x-mcp-header` annotations of a tool's input
//! schema, the rules they must follow, and how an argument's value is spelled in its header.
//!
//! A client calling a tool over Streamable HTTP sends each annotated argument that is present
//! and not null as `Mcp-Param-{Name}` ([`header_value`]); clients **must** drop a tool whose
//! annotations break the rules below, and a server must not offer one. Both ends read the
//! annotations with [`scan`]. The rules, one function each:
//!
//! - the name is a non-empty RFC 9110 token ([`is_token`]), unique case-insensitively;
//! - the property's `type` is `string`, `integer` or `boolean` (not `number`, not a list);
//! - an integer's bounds, when given, lie within ±(2^53−1);
//! - the property is reached from the root through `properties` keys alone (no `items`,
//!   `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$ref` or `$defs` on the way).
//!
//! ```
//! use typemcp_core::protocol::param_headers::{header_value, scan};
//!
//! let schema = serde_json::json!({"type": "object", "properties": {
//!     "region": {"type": "string", "x-mcp-header": "Region"},
//! }});
//! let mirrored = scan(schema.as_object().unwrap()).unwrap();
//! assert_eq!(mirrored[0].header_name(), "Mcp-Param-Region");
//! let arguments = serde_json::json!({"region": "eu-west-1"});
//! let value = mirrored[0].value_in(&arguments).and_then(header_value);
//! assert_eq!(value.as_deref(), Some("eu-west-1"));
//! ```

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

/// The annotation keyword.
pub const ANNOTATION: &str = "x-mcp-header";

/// The largest integer a mirrored argument may be bounded by (2^53−1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The JSON type of a mirrored argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Primitive {
    String,
    Integer,
    Boolean,
}

/// One mirrored argument.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParamHeader {
    /// The name as declared (`Region`): the header is `Mcp-Param-Region`.
    pub name: String,
    /// The property names from the root of the arguments object down to the argument.
    pub path: Vec<String>,
}

impl ParamHeader {
    /// The header's name: `Mcp-Param-{name}`.
    pub fn header_name(&self) -> String {
        format!("Mcp-Param-{}", self.name)
    }

    /// The argument's value in `arguments`, if present (null included).
    pub fn value_in<'a>(&self, arguments: &'a Value) -> Option<&'a Value> {
        self.path
            .iter()
            .try_fold(arguments, |value, key| value.as_object()?.get(key))
    }
}

/// Reads and checks every `x-mcp-header` annotation of an input schema: the mirrored
/// arguments in schema order, or the first annotation that breaks the rules.
pub fn scan(schema: &Map<String, Value>) -> Result<Vec<ParamHeader>, InvalidAnnotation> {
    let mut found = Vec::new();
    let mut pointer = String::new();
    walk(schema, &mut pointer, Some(&[]), &mut found)?;
    names_are_unique(&found)?;
    Ok(found)
}

/// Why an annotation breaks the rules, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InvalidAnnotation {
    /// The property (`region`, `location.region`), or the JSON pointer of a schema that is no
    /// property reached through `properties` alone.
    pub property: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for InvalidAnnotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "property {:?}: {}", self.property, self.reason)
    }
}

impl std::error::Error for InvalidAnnotation {}

/// How a mirrored argument's value is spelled in its header: a string as it is when it is
/// printable ASCII without surrounding whitespace, otherwise `=?base64?{UTF-8, base64}?=`; an
/// integer or a boolean as JSON spells it. `None` for null, arrays, objects and numbers that
/// are not integers (no annotated property allows them).
pub fn header_value(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if is_plain(text) => Some(text.clone()),
        Value::String(text) => Some(format!("=?base64?{}?=", STANDARD.encode(text))),
        Value::Number(number) if number.is_i64() || number.is_u64() => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// Whether `text` can be a header value as it is: visible ASCII and inner spaces only, no
/// surrounding whitespace (which a header would lose).
fn is_plain(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b)) && text.trim() == text
}

/// Keywords whose value is a map of subschemas reached otherwise than through `properties`.
const SCHEMA_MAPS: &[&str] = &[
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Keywords whose value is a subschema or an array of subschemas.
const SUBSCHEMAS: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contentSchema",
];

/// Visits `schema` at `pointer`; `path` is the chain of property names leading to it, or
/// `None` when some other keyword is on the way.
fn walk(
    schema: &Map<String, Value>,
    pointer: &mut String,
    path: Option<&[String]>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), InvalidAnnotation> {
    if let Some(annotation) = schema.get(ANNOTATION) {
        found.push(declared(schema, annotation, pointer, path)?);
    }
    for (keyword, value) in schema {
        let keyword = keyword.as_str();
        if keyword == "properties" {
            for (name, sub) in value.as_object().into_iter().flatten() {
                let child = path.map(|p| [p, std::slice::from_ref(name)].concat());
                within(pointer, &[keyword, name], |pointer| {
                    visit(sub, pointer, child.as_deref(), found)
                })?;
            }
        } else if SCHEMA_MAPS.contains(&keyword) {
            for (name, sub) in value.as_object().into_iter().flatten() {
                within(pointer, &[keyword, name], |pointer| {
                    visit(sub, pointer, None, found)
                })?;
            }
        } else if SUBSCHEMAS.contains(&keyword) {
            match value {
                Value::Array(items) => {
                    for (i, sub) in items.iter().enumerate() {
                        within(pointer, &[keyword, &i.to_string()], |pointer| {
                            visit(sub, pointer, None, found)
                        })?;
                    }
                }
                sub => within(pointer, &[keyword], |pointer| {
                    visit(sub, pointer, None, found)
                })?,
            }
        }
    }
    Ok(())
}

/// Visits a subschema (boolean schemas carry no annotation).
fn visit(
    schema: &Value,
    pointer: &mut String,
    path: Option<&[String]>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), InvalidAnnotation> {
    match schema {
        Value::Object(schema) => walk(schema, pointer, path, found),
        _ => Ok(()),
    }
}

/// Runs `f` with `pointer` extended by `segments`, then restores it.
fn within<T>(pointer: &mut String, segments: &[&str], f: impl FnOnce(&mut String) -> T) -> T {
    let len = pointer.len();
    for segment in segments {
        pointer.push('/');
        pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
    }
    let out = f(pointer);
    pointer.truncate(len);
    out
}

/// One annotation, checked rule by rule.
fn declared(
    schema: &Map<String, Value>,
    annotation: &Value,
    pointer: &str,
    path: Option<&[String]>,
) -> Result<ParamHeader, InvalidAnnotation> {
    let path = reached_through_properties(pointer, path)?;
    let property = path.join(".");
    let fail = |reason: String| InvalidAnnotation {
        property: property.clone(),
        reason,
    };
    let name = name_is_a_token(annotation).map_err(fail)?;
    let kind = type_is_primitive(schema).map_err(fail)?;
    if kind == Primitive::Integer {
        integer_bounds_are_safe(schema).map_err(fail)?;
    }
    Ok(ParamHeader {
        name: name.to_owned(),
        path: path.to_vec(),
    })
}

/// Only properties reached through `properties` alone can be found by a client without
/// resolving composition, conditionals or references; the root is no property.
fn reached_through_properties<'p>(
    pointer: &str,
    path: Option<&'p [String]>,
) -> Result<&'p [String], InvalidAnnotation> {
    match path {
        Some(path) if !path.is_empty() => Ok(path),
        Some(_) => Err(InvalidAnnotation {
            property: "/".to_owned(),
            reason: format!("`{ANNOTATION}` annotates the root schema; put it on a property"),
        }),
        None => Err(InvalidAnnotation {
            property: pointer.to_owned(),
            reason: format!(
                "`{ANNOTATION}` is only allowed on properties reached through `properties` alone \
                 (no `items`, `oneOf`/`anyOf`/`allOf`/`not`, `if`/`then`/`else`, `$ref` or `$defs` on the way)"
            ),
        }),
    }
}

/// The name becomes `Mcp-Param-{name}`: a non-empty RFC 9110 token (which excludes CR, LF
/// and spaces).
fn name_is_a_token(annotation: &Value) -> Result<&str, String> {
    match annotation.as_str() {
        Some(name) if is_token(name) => Ok(name),
        Some(name) => Err(format!(
            "`{ANNOTATION}` {name:?} is not a header name token: use 1 or more of A-Z a-z 0-9 and !#$%&'*+-.^_`|~"
        )),
        None => Err(format!("`{ANNOTATION}` must be a string, not {annotation}")),
    }
}

/// Whether `name` is a non-empty RFC 9110 token (`1*tchar`).
/// Whether `name` is an RFC 9110 token (what a header name is made of).
pub fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// Only a string, an integer or a boolean has one header spelling: a `number` (`1.5`,
/// `1.50`, `15e-1`) has many, and other types none.
fn type_is_primitive(schema: &Map<String, Value>) -> Result<Primitive, String> {
    match schema.get("type") {
        Some(Value::String(kind)) => match kind.as_str() {
            "string" => Ok(Primitive::String),
            "integer" => Ok(Primitive::Integer),
            "boolean" => Ok(Primitive::Boolean),
            "number" => Err(format!(
                "`{ANNOTATION}` is not allowed on `number` properties: use `integer`, or a `string`"
            )),
            other => Err(format!(
                "`{ANNOTATION}` is only allowed on `string`, `integer` or `boolean` properties, not `{other}`"
            )),
        },
        Some(Value::Array(_)) => Err(format!(
            "`{ANNOTATION}` needs a single `type` (`string`, `integer` or `boolean`); for an optional argument, leave it out of `required` instead of allowing `null`"
        )),
        _ => Err(format!(
            "`{ANNOTATION}` needs the property's own `type`: `string`, `integer` or `boolean` (a `$ref` or an `enum` without `type` is not enough)"
        )),
    }
}

/// Integers must travel exactly as IEEE 754 doubles (what JavaScript clients hold).
fn integer_bounds_are_safe(schema: &Map<String, Value>) -> Result<(), String> {
    for bound in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        let Some(value) = schema.get(bound) else {
            continue;
        };
        let safe = value
            .as_f64()
            .is_some_and(|v| (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v));
        if !safe {
            return Err(format!(
                "integer `{bound}` {value} is outside ±(2^53−1), the range a header value can carry exactly"
            ));
        }
    }
    Ok(())
}

/// Header names are case-insensitive: two annotations may not differ only by case.
fn names_are_unique(found: &[ParamHeader]) -> Result<(), InvalidAnnotation> {
    for (i, later) in found.iter().enumerate() {
        if let Some(earlier) = found[..i]
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(&later.name))
        {
            return Err(InvalidAnnotation {
                property: later.path.join("."),
                reason: format!(
                    "`{ANNOTATION}` {:?} repeats {:?} of property {:?} (header names are case-insensitive)",
                    later.name,
                    earlier.name,
                    earlier.path.join(".")
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scan(schema: Value) -> Result<Vec<ParamHeader>, InvalidAnnotation> {
        match schema {
            Value::Object(map) => super::scan(&map),
            _ => unreachable!("test schemas are objects"),
        }
    }

    fn refusal(schema: Value) -> InvalidAnnotation {
        match scan(schema) {
            Err(err) => err,
            Ok(found) => panic!("accepted: {found:?}"),
        }
    }

    #[test]
    fn maps_names_to_property_paths() {
        let headers = scan(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "plain": {"type": "string"},
                "where": {"type": "object", "properties": {
                    "zone": {"type": "integer", "minimum": 0, "maximum": 10, "x-mcp-header": "Zone"},
                    "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
                }},
            },
        }))
        .unwrap();
        let found: Vec<_> = headers
            .iter()
            .map(|h| (h.header_name(), h.path.join(".")))
            .collect();
        assert_eq!(
            found,
            [
                ("Mcp-Param-Region".to_owned(), "region".to_owned()),
                ("Mcp-Param-Zone".to_owned(), "where.zone".to_owned()),
                ("Mcp-Param-Dry-Run".to_owned(), "where.dry".to_owned()),
            ]
        );
    }

    #[test]
    fn values_are_found_at_their_paths() {
        let headers = scan(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "where": {"type": "object", "properties": {
                    "zone": {"type": "integer", "x-mcp-header": "Zone"},
                }},
            },
        }))
        .unwrap();
        let arguments = json!({"where": {"zone": 3}});
        assert_eq!(headers[1].value_in(&arguments), Some(&json!(3)));
        assert_eq!(headers[0].value_in(&arguments), None);
    }

    #[test]
    fn a_schema_without_annotations_maps_nothing() {
        let headers = scan(json!({"type": "object", "properties": {"a": {"type": "number"}}}));
        assert!(headers.unwrap().is_empty());
    }

    #[test]
    fn names_must_be_tokens() {
        for name in [
            json!(""),
            json!("Re gion"),
            json!("Re\r\ngion"),
            json!("Ré"),
            json!(7),
        ] {
            let err = refusal(json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": name},
            }}));
            assert_eq!(err.property, "region", "{err}");
        }
        assert!(is_token("A-b_c.d~1!#$%&'*+^`|"));
    }

    #[test]
    fn names_are_unique_case_insensitively() {
        let err = refusal(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "REGION"},
        }}));
        assert_eq!(err.property, "b");
        assert!(err.reason.contains("case-insensitive"), "{err}");
    }

    #[test]
    fn only_strings_integers_and_booleans() {
        for (schema, needle) in [
            (json!({"type": "number"}), "`number`"),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                "`array`",
            ),
            (json!({"type": ["string", "null"]}), "single `type`"),
            (json!({"$ref": "#/$defs/Region"}), "own `type`"),
        ] {
            let mut property = schema;
            property["x-mcp-header"] = json!("H");
            let err = refusal(json!({"type": "object", "properties": {"p": property}}));
            assert!(err.reason.contains(needle), "{err}");
        }
    }

    #[test]
    fn integer_bounds_stay_within_the_safe_range() {
        let bounded = |bound: Value| {
            scan(json!({"type": "object", "properties": {
                "n": {"type": "integer", "maximum": bound, "x-mcp-header": "N"},
            }}))
        };
        assert!(bounded(json!(9_007_199_254_740_991_i64)).is_ok());
        assert!(bounded(json!(9_007_199_254_740_992_i64)).is_err());
        assert!(bounded(json!(u64::MAX)).is_err());
    }

    #[test]
    fn only_through_properties() {
        let header = json!({"type": "string", "x-mcp-header": "H"});
        for (schema, pointer) in [
            (
                json!({"type": "object", "properties": {"list": {"type": "array", "items": header}}}),
                "/properties/list/items",
            ),
            (
                json!({"type": "object", "oneOf": [{"properties": {"a": header}}]}),
                "/oneOf/0/properties/a",
            ),
            (
                json!({"type": "object", "if": {"properties": {"a": header}}}),
                "/if/properties/a",
            ),
            (
                json!({"type": "object", "$defs": {"A": header}, "properties": {"a": {"$ref": "#/$defs/A"}}}),
                "/$defs/A",
            ),
            (
                json!({"type": "object", "additionalProperties": header}),
                "/additionalProperties",
            ),
        ] {
            assert_eq!(refusal(schema).property, pointer);
        }
        let root = refusal(json!({"type": "object", "x-mcp-header": "H"}));
        assert!(root.reason.contains("root"), "{root}");
    }

    #[test]
    fn a_property_named_like_the_annotation_is_just_a_property() {
        let headers = scan(json!({"type": "object", "properties": {
            "x-mcp-header": {"type": "number"},
        }}));
        assert!(headers.unwrap().is_empty());
    }

    #[test]
    fn values_are_spelled_plainly_or_in_base64() {
        let spelled = |value: Value| header_value(&value);
        assert_eq!(spelled(json!("us west 1")).as_deref(), Some("us west 1"));
        assert_eq!(
            spelled(json!(" padded")).as_deref(),
            Some("=?base64?IHBhZGRlZA==?=")
        );
        assert_eq!(
            spelled(json!("Région")).as_deref(),
            Some("=?base64?UsOpZ2lvbg==?=")
        );
        assert_eq!(
            spelled(json!("a\r\nb")).as_deref(),
            Some("=?base64?YQ0KYg==?=")
        );
        assert_eq!(spelled(json!(-42)).as_deref(), Some("-42"));
        assert_eq!(spelled(json!(true)).as_deref(), Some("true"));
        assert_eq!(spelled(json!(1.5)), None);
        assert_eq!(spelled(Value::Null), None);
        assert_eq!(spelled(json!(["x"])), None);
    }
}
