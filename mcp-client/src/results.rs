//! What a test reads of a tool's result: [`ToolResultExt`].

use serde::de::DeserializeOwned;
use typemcp_core::protocol::{CallToolResult, ContentBlock};

use crate::error::ClientError;

/// Reading a [`CallToolResult`]: its text, its structured content as a type, whether it is a
/// tool error.
///
/// ```
/// use typemcp_client::ToolResultExt;
/// use typemcp_client::typemcp_core::protocol::CallToolResult;
///
/// let result = CallToolResult::text("Deployed.");
/// assert_eq!(result.text(), "Deployed.");
/// assert!(!result.is_tool_error());
/// ```
pub trait ToolResultExt {
    /// The text blocks of the content, joined by newlines.
    fn text(&self) -> String;

    /// The structured content as `T`.
    fn structured<T: DeserializeOwned>(&self) -> Result<T, ClientError>;

    /// Whether the tool reported an error (`isError: true`).
    fn is_tool_error(&self) -> bool;
}

impl ToolResultExt for CallToolResult {
    fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    fn structured<T: DeserializeOwned>(&self) -> Result<T, ClientError> {
        let malformed = |reason: String| ClientError::Malformed {
            method: "tools/call".to_owned(),
            reason,
        };
        let content = self
            .structured_content
            .clone()
            .ok_or_else(|| malformed("the result has no structured content".to_owned()))?;
        serde_json::from_value(content).map_err(|error| malformed(error.to_string()))
    }

    fn is_tool_error(&self) -> bool {
        self.is_error == Some(true)
    }
}
