//! The mirrored request headers of 2026-07-28: `MCP-Protocol-Version`, `Mcp-Method` and
//! `Mcp-Name` (the tool or prompt name, the resource URI, or the task id of `tasks/*`) must be
//! present and agree with the body (`-32020` otherwise). The tool arguments mirrored into
//! `Mcp-Param-*` headers are checked by [`super::param_headers`], which reads values the same
//! way ([`value`]). Only the HTTP transport mirrors anything.

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, HeaderValue};
use typemcp_core::McpError;
use typemcp_core::protocol::{methods, task_methods};

use typemcp_core::jsonrpc::IncomingRequest;
use typemcp_core::protocol::RequestMeta;

use crate::dispatch::meta::MetaView;
use crate::header_names::{METHOD, Mirrored, NAME, PROTOCOL_VERSION};

/// Checks the mirrored headers against the request body.
pub(super) fn check(
    headers: &HeaderMap,
    request: &IncomingRequest,
    view: &MetaView<'_>,
    meta: &RequestMeta,
) -> Result<(), McpError> {
    let version = required(headers, &PROTOCOL_VERSION)?;
    compare(PROTOCOL_VERSION.label, &version, &meta.protocol_version)?;
    let method = required(headers, &METHOD)?;
    compare(METHOD.label, &method, &request.method)?;
    let name_param = match request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        // The tasks extension routes `tasks/*` by task id.
        method if task_methods::is_task_request(method) => Some("taskId"),
        _ => None,
    };
    if let Some(param) = name_param {
        let header = required(headers, &NAME)?;
        if let Some(body) = view.str_member(param) {
            compare(NAME.label, &header, &body)?;
        }
    }
    Ok(())
}

fn compare(name: &str, header: &str, body: &str) -> Result<(), McpError> {
    if header == body {
        Ok(())
    } else {
        Err(mismatch(name, header, body))
    }
}

/// The `-32020` error of a header whose value differs from the body's.
pub(super) fn mismatch(name: &str, header: &str, body: &str) -> McpError {
    McpError::header_mismatch(format!(
        "Header mismatch: {name} header value '{header}' does not match body value '{body}'"
    ))
}

/// The `-32020` error of a header the body requires and the request lacks.
pub(super) fn missing(name: &str) -> McpError {
    McpError::header_mismatch(format!("Header mismatch: missing required {name} header"))
}

/// Reads a required header (see [`value`]).
fn required<'h>(headers: &'h HeaderMap, header: &Mirrored) -> Result<Cow<'h, str>, McpError> {
    let raw = headers
        .get(&header.key)
        .ok_or_else(|| missing(header.label))?;
    value(header.label, raw)
}

/// Reads the value of the header `name`: visible ASCII, surrounding whitespace ignored, and
/// the `=?base64?…?=` form decoded (strictly: canonical padding, UTF-8).
pub(super) fn value<'h>(name: &str, raw: &'h HeaderValue) -> Result<Cow<'h, str>, McpError> {
    let text = raw
        .to_str()
        .map_err(|_| {
            McpError::header_mismatch(format!(
                "Header mismatch: {name} header has invalid characters"
            ))
        })?
        .trim();
    decode(text).ok_or_else(|| {
        McpError::header_mismatch(format!(
            "Header mismatch: {name} header has an invalid base64 value"
        ))
    })
}

/// Decodes the `=?base64?{…}?=` sentinel; other values pass through (borrowed).
fn decode(value: &str) -> Option<Cow<'_, str>> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        None => Some(Cow::Borrowed(value)),
        Some(encoded) => STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Cow::Owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_sentinels() {
        assert_eq!(decode("plain").as_deref(), Some("plain"));
        assert_eq!(decode("=?base64?aMOpbGxv?=").as_deref(), Some("héllo"));
        assert_eq!(decode("=?base64?!!!?="), None);
        // Padding is required, and only the exact markers make the form.
        assert_eq!(decode("=?base64?SGVsbG8?="), None);
        assert_eq!(decode("=?base64?SGVsbG8=?=").as_deref(), Some("Hello"));
        assert_eq!(
            decode("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
        assert_eq!(
            decode("=?BASE64?SGVsbG8=?=").as_deref(),
            Some("=?BASE64?SGVsbG8=?=")
        );
        // Not UTF-8 once decoded.
        assert_eq!(decode("=?base64?/w==?="), None);
    }
}
