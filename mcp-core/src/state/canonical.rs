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

/// Writes `value` canonically to `out` (a hasher, say, so that no text is kept).
pub(crate) fn write<W: std::io::Write>(value: &Value, out: &mut W) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            push(out, b'{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    push(out, b',');
                }
                scalar(key, out);
                push(out, b':');
                write(value, out);
            }
            push(out, b'}');
        }
        Value::Array(items) => {
            push(out, b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    push(out, b',');
                }
                write(item, out);
            }
            push(out, b']');
        }
        other => scalar(other, out),
    }
}

/// Writes a string or scalar with serde_json's own escaping and number formatting.
fn scalar<T: serde::Serialize + ?Sized, W: std::io::Write>(value: &T, out: &mut W) {
    // Writing plain JSON scalars to a Vec or a hasher cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Writes one byte of punctuation.
fn push<W: std::io::Write>(out: &mut W, byte: u8) {
    // As above: the writers here cannot fail.
    let _ = out.write_all(&[byte]);
}
