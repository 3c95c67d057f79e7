//! `Mcp-Param-{Name}` (SEP-2243): on a 2026-07-28 `tools/call`, each argument the tool
//! mirrors into a header (`x-mcp-header` in its input schema) and the body gives a non-null
//! value must come with its header, and the two must agree (`-32020` otherwise).
//!
//! Values are read like the other mirrored headers (surrounding whitespace ignored, the
//! `=?base64?…?=` form decoded) and compared by the body value's type: strings exactly,
//! numbers numerically (`42.0` is `42`), booleans as `true`/`false`. An unknown tool is left
//! to the method's own error, and an argument whose value is an array or an object (which no
//! annotated property allows) to the tool's argument checks.

use http::HeaderMap;
use serde_json::{Number, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::methods;

use typemcp_core::jsonrpc::IncomingRequest;

use super::mirrored as headers;
use crate::Server;
use crate::dispatch::meta::MetaView;
use crate::registry::param_headers::ParamHeaders;

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments.
pub(super) fn check(
    headers: &HeaderMap,
    request: &IncomingRequest,
    view: &MetaView<'_>,
    server: &Server,
) -> Result<(), McpError> {
    if request.method != methods::TOOLS_CALL {
        return Ok(());
    }
    let Some(name) = view.str_member("name") else {
        return Ok(());
    };
    let registry = server.snapshot();
    let Some(tool) = registry.tools.get(name.as_ref()) else {
        return Ok(());
    };
    if tool.param_headers().is_empty() {
        return Ok(());
    }
    // Only for a tool that mirrors arguments: their tree, read from the text.
    let arguments = view
        .arguments()
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok());
    match arguments {
        Some(arguments) => check_arguments(headers, tool.param_headers(), &arguments),
        None => Ok(()),
    }
}

/// Checks each mirrored argument present in `arguments`.
fn check_arguments(
    headers: &HeaderMap,
    mirrored: &ParamHeaders,
    arguments: &Value,
) -> Result<(), McpError> {
    for param in mirrored.iter() {
        let Some(body) = param
            .declared
            .value_in(arguments)
            .filter(|v| is_primitive(v))
        else {
            continue;
        };
        let label = param.declared.header_name();
        let raw = headers
            .get(&param.header)
            .ok_or_else(|| headers::missing(&label))?;
        let header = headers::value(&label, raw)?;
        if !matches(&header, body) {
            return Err(headers::mismatch(&label, &header, &shown(body)));
        }
    }
    Ok(())
}

/// Values a header can carry; null means the header is not expected.
fn is_primitive(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// Whether a decoded header value stands for the body value.
fn matches(header: &str, body: &Value) -> bool {
    match body {
        Value::String(text) => header == text,
        Value::Bool(true) => header == "true",
        Value::Bool(false) => header == "false",
        Value::Number(number) => {
            serde_json::from_str::<Number>(header).is_ok_and(|parsed| same_number(&parsed, number))
        }
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    }
}

/// Numeric equality: exact between integers, as doubles otherwise (`42.0` is `42`).
fn same_number(a: &Number, b: &Number) -> bool {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => a == b,
        _ => matches!((a.as_f64(), b.as_f64()), (Some(a), Some(b)) if a == b),
    }
}

fn integer(number: &Number) -> Option<i128> {
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

/// The body value as quoted in an error message.
fn shown(body: &Value) -> String {
    match body {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;
    use typemcp_core::ErrorCode;

    fn mirrored() -> ParamHeaders {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry"},
        }});
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        ParamHeaders::new(crate::registry::param_headers::scan(&schema).unwrap())
    }

    fn check(headers: &[(&str, &[u8])], arguments: Value) -> Result<(), String> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let name = http::HeaderName::from_bytes(name.as_bytes()).unwrap();
            map.append(name, HeaderValue::from_bytes(value).unwrap());
        }
        check_arguments(&map, &mirrored(), &arguments).map_err(|error| {
            assert_eq!(error.code, ErrorCode::HEADER_MISMATCH);
            error.message.into_owned()
        })
    }

    #[test]
    fn strings_compare_exactly_after_decoding() {
        let body = json!({"region": "us-west1"});
        assert_eq!(
            check(&[("Mcp-Param-Region", b"us-west1")], body.clone()),
            Ok(())
        );
        // Names are case-insensitive, surrounding whitespace is not part of the value.
        assert_eq!(
            check(&[("mcp-param-region", b"  us-west1 ")], body.clone()),
            Ok(())
        );
        let err = check(&[("Mcp-Param-Region", b"US-WEST1")], body).unwrap_err();
        assert_eq!(
            err,
            "Header mismatch: Mcp-Param-Region header value 'US-WEST1' does not match body value 'us-west1'"
        );
        let body = json!({"region": " Hello, 世界 "});
        let encoded = b"=?base64?IEhlbGxvLCDkuJbnlYwg?=";
        assert_eq!(check(&[("Mcp-Param-Region", encoded)], body), Ok(()));
        // A value that merely looks like the form is literal when the body says so.
        let body = json!({"region": "=?base64?SGVsbG8="});
        assert_eq!(
            check(&[("Mcp-Param-Region", b"=?base64?SGVsbG8=")], body),
            Ok(())
        );
    }

    #[test]
    fn bad_encodings_and_characters_are_refused() {
        let body = json!({"region": "Hello"});
        for value in [
            &b"=?base64?SGVsbG8?="[..],
            b"=?base64?SGVs!!!bG8=?=",
            b"=?base64?/w==?=",
        ] {
            let err = check(&[("Mcp-Param-Region", value)], body.clone()).unwrap_err();
            assert!(err.contains("invalid base64"), "{err}");
        }
        let err = check(&[("Mcp-Param-Region", b"H\xe9llo")], body).unwrap_err();
        assert!(err.contains("invalid characters"), "{err}");
    }

    #[test]
    fn integers_compare_numerically() {
        let body = json!({"count": 42});
        for value in ["42", "42.0", "4.2e1"] {
            let header = [("Mcp-Param-Count", value.as_bytes())];
            assert_eq!(check(&header, body.clone()), Ok(()), "{value}");
        }
        for value in ["43", "042", "+42", "forty-two", "NaN", ""] {
            let header = [("Mcp-Param-Count", value.as_bytes())];
            assert!(check(&header, body.clone()).is_err(), "{value}");
        }
        let big = json!({"count": 9_007_199_254_740_993_u64});
        let header = [("Mcp-Param-Count", &b"9007199254740993"[..])];
        assert_eq!(check(&header, big.clone()), Ok(()));
        let header = [("Mcp-Param-Count", &b"9007199254740992"[..])];
        assert!(check(&header, big).is_err());
    }

    #[test]
    fn booleans_are_true_or_false() {
        assert_eq!(
            check(&[("Mcp-Param-Dry", b"true")], json!({"dry": true})),
            Ok(())
        );
        assert_eq!(
            check(&[("Mcp-Param-Dry", b"false")], json!({"dry": false})),
            Ok(())
        );
        for value in [&b"True"[..], b"1", b"false"] {
            let header = [("Mcp-Param-Dry", value)];
            assert!(check(&header, json!({"dry": true})).is_err());
        }
    }

    #[test]
    fn a_present_argument_needs_its_header() {
        let err = check(&[], json!({"count": 0})).unwrap_err();
        assert_eq!(
            err,
            "Header mismatch: missing required Mcp-Param-Count header"
        );
    }

    #[test]
    fn null_absent_or_unmirrorable_arguments_need_no_header() {
        assert_eq!(check(&[], json!({})), Ok(()));
        assert_eq!(check(&[], json!({"region": null, "dry": null})), Ok(()));
        assert_eq!(
            check(&[], json!({"region": ["a"], "count": {"n": 1}})),
            Ok(())
        );
        assert_eq!(check(&[], json!("not an object")), Ok(()));
        // A header without a body value is not checked.
        assert_eq!(check(&[("Mcp-Param-Region", b"x")], json!({})), Ok(()));
    }
}
