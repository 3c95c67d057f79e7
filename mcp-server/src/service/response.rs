//! [`McpResponse`]: the transport-agnostic answer to one request.

use bytes::Bytes;
use mcp_core::{McpError, RequestId};

use crate::dispatch::Reply;

/// The serialized JSON-RPC response to one [`McpRequest`](super::McpRequest). Its HTTP status,
/// if any, is the HTTP transport's business.
///
/// A layer can answer by itself, without calling the service it wraps:
///
/// ```
/// use mcp_server::McpError;
/// use mcp_server::mcp_core::RequestId;
/// use mcp_server::service::McpResponse;
///
/// let refused = McpResponse::error(
///     RequestId::Number(7),
///     McpError::invalid_params("Forbidden: you may not call this tool"),
/// );
/// let json: serde_json::Value = serde_json::from_slice(refused.body()).unwrap();
/// assert_eq!(json["error"]["code"], -32602);
/// ```
#[derive(Debug, Clone)]
pub struct McpResponse {
    reply: Reply,
}

impl McpResponse {
    pub(crate) fn from_reply(reply: Reply) -> Self {
        Self { reply }
    }

    pub(crate) fn into_reply(self) -> Reply {
        self.reply
    }

    /// A JSON-RPC error response to the request `id`.
    pub fn error(id: RequestId, error: McpError) -> Self {
        Self::from_reply(Reply::error(Some(id), error))
    }

    /// The serialized JSON-RPC response. Empty when nothing is to be sent (a request the
    /// client cancelled).
    pub fn body(&self) -> &Bytes {
        &self.reply.body
    }
}
