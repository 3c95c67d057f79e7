//! Error codes and the error object carried by JSON-RPC error responses.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A JSON-RPC error code, with the codes MCP 2026-07-28 defines as constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist or is not offered (HTTP 404).
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Invalid method parameters (also: missing `_meta`, unknown tool, resource not found).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Internal server error.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// An HTTP header is missing, invalid, or does not match the body (HTTP 400).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// The request needs a client capability the client did not declare (HTTP 400).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// The requested protocol version is not supported (HTTP 400).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The `error` member of a JSON-RPC error response; also the error type handlers return.
///
/// ```
/// use typemcp_core::{ErrorCode, McpError};
/// let err = McpError::invalid_params("Unknown tool: nope");
/// assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
/// assert_eq!(serde_json::to_value(&err).unwrap()["message"], "Unknown tool: nope");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message} ({code})")]
pub struct McpError {
    /// The error code.
    pub code: ErrorCode,
    /// One concise sentence.
    pub message: Cow<'static, str>,
    /// Structured detail, such as `requiredCapabilities` or `supported`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl McpError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the text is not JSON.
    pub fn parse_error(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, message)
    }

    /// `-32600`: not a single, well-formed JSON-RPC request.
    pub fn invalid_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message)
    }

    /// `-32601`: unknown, removed or unadvertised method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// `-32602`: invalid parameters.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// `-32603`: an internal error. Keep internal details out of `message`.
    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// `-32602` for a resource that does not exist, with `data.uri` as the specification shows.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::invalid_params(format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
    }

    /// `-32020`: an HTTP header is missing, invalid or does not match the body.
    pub fn header_mismatch(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, message)
    }

    /// `-32021` with `data.requiredCapabilities`, a `ClientCapabilities` object. The message
    /// names each capability missing, e.g. ``Missing required client capability: the client
    /// did not declare the `elicitation.form` capability``.
    pub fn missing_client_capability(required: Value) -> Self {
        let mut names = Vec::new();
        capability_names(&required, &mut String::new(), &mut names);
        let message = match names.as_slice() {
            [] => "Missing required client capability".to_owned(),
            [one] => format!(
                "Missing required client capability: the client did not declare the {one} capability"
            ),
            [init @ .., last] => format!(
                "Missing required client capability: the client did not declare the {} and {last} capabilities",
                init.join(", ")
            ),
        };
        Self::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
            .with_data(json!({ "requiredCapabilities": required }))
    }

    /// `-32022` with `data.supported` and `data.requested`.
    pub fn unsupported_protocol_version(supported: &[&str], requested: &str) -> Self {
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(json!({ "supported": supported, "requested": requested }))
    }
}

/// The dotted path of each leaf of a `ClientCapabilities` fragment (`elicitation.form`,
/// `sampling`), in backticks; a key holding a dot or a slash, such as an extension's name, is
/// quoted (``extensions["io.modelcontextprotocol/tasks"]``).
fn capability_names(fragment: &Value, path: &mut String, names: &mut Vec<String>) {
    match fragment {
        Value::Object(map) if !map.is_empty() => {
            for (key, value) in map {
                let len = path.len();
                if key.contains(['.', '/']) {
                    path.push_str(&format!("[{key:?}]"));
                } else {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                capability_names(value, path, names);
                path.truncate(len);
            }
        }
        _ if !path.is_empty() => names.push(format!("`{path}`")),
        _ => {}
    }
}
