//! The mirrored request headers of 2026-07-28: `MCP-Protocol-Version`, `Mcp-Method` and
//! `Mcp-Name` (the tool or prompt name, the resource URI, or the task id of `tasks/*`) must be
//! present and agree with the body (`-32020` otherwise).

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::HeaderMap;
use mcp_core::McpError;
use mcp_core::protocol::{methods, task_methods};
use serde_json::Value;

use crate::dispatch::CheckedRequest;

/// Checks the mirrored headers against the request body.
pub(crate) fn check(headers: &HeaderMap, checked: &CheckedRequest) -> Result<(), McpError> {
    let version = required(headers, "MCP-Protocol-Version")?;
    compare(
        "MCP-Protocol-Version",
        &version,
        &checked.meta.protocol_version,
    )?;
    let method = required(headers, "Mcp-Method")?;
    compare("Mcp-Method", &method, &checked.request.method)?;
    let name_param = match checked.request.method.as_str() {
        methods::TOOLS_CALL | methods::PROMPTS_GET => Some("name"),
        methods::RESOURCES_READ => Some("uri"),
        // The tasks extension routes `tasks/*` by task id.
        method if task_methods::is_task_request(method) => Some("taskId"),
        _ => None,
    };
    if let Some(param) = name_param {
        let header = required(headers, "Mcp-Name")?;
        if let Some(Value::String(body)) = checked.request.params.get(param) {
            compare("Mcp-Name", &header, body)?;
        }
    }
    Ok(())
}

fn compare(name: &str, header: &str, body: &str) -> Result<(), McpError> {
    if header == body {
        Ok(())
    } else {
        Err(McpError::header_mismatch(format!(
            "Header mismatch: {name} header value '{header}' does not match body value '{body}'"
        )))
    }
}

/// Reads a header: present, visible ASCII, surrounding whitespace ignored, and the
/// `=?base64?…?=` form decoded.
fn required<'h>(headers: &'h HeaderMap, name: &str) -> Result<Cow<'h, str>, McpError> {
    let raw = headers.get(name).ok_or_else(|| {
        McpError::header_mismatch(format!("Header mismatch: missing required {name} header"))
    })?;
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
    }
}
