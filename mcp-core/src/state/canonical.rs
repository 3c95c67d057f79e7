//! Canonical JSON: the same value always gives the same bytes (object keys sorted, no
//! insignificant whitespace), so argument digests do not depend on key order.

use serde_json::Value;

/// Writes `value` canonically.
///
/// ```
/// use mcp_core::state::canonical_json;
/// let a = serde_json::json!({"b": 1, "a": [true, {"y": null, "x": "s"}]});
/// assert_eq!(canonical_json(&a), r#"{"a":[true,{"x":"s","y":null}],"b":1}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
