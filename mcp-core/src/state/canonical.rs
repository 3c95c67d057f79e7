//! Canonical JSON: the same value always gives the same bytes (object keys sorted, no
//! insignificant whitespace), so argument digests do not depend on key order.

use serde_json::Value;

/// Writes `value` canonically.
///
/// ```
/// use typemcp_core::state::canonical_json;
/// let a = serde_json::json!({"b": 1, "a": [true, {"y": null, "x": "s"}]});
/// assert_eq!(canonical_json(&a), r#"{"a":[true,{"x":"s","y":null}],"b":1}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::with_capacity(128);
    write(value, &mut out);
    // Only JSON text was written: always UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                scalar(key, out);
                out.push(b':');
                write(value, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        other => scalar(other, out),
    }
}

/// Writes a string or scalar with serde_json's own escaping and number formatting.
fn scalar<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Writing plain JSON scalars to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}
