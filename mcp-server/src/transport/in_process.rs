//! Calling a server in the same process, without a transport (tests, embedding, benches).
//!
//! Each call stands alone, so no 2025-11-25 session can be kept: every request is served
//! on the stateless 2026-07-28 wire (`initialize` is `-32601`).

use bytes::Bytes;
use typemcp_core::jsonrpc::{IncomingMessage, parse_message};

use crate::Server;
use crate::context::TransportInfo;
use crate::dispatch::Reply;
use crate::service::McpRequest;

impl Server {
    /// Handles one serialized JSON-RPC message and returns the serialized response
    /// (`None` for notifications). Notifications the request emits are dropped; use a
    /// transport to receive them.
    ///
    /// ```
    /// # tokio_test_block(async {
    /// use typemcp_server::{Server, ToolRoute};
    /// let server = Server::builder().tool(ToolRoute::new("hi", || async { "hello" }).description("Greets.")).build().unwrap();
    /// let reply = server.handle_message(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hi",
    ///     "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ///     typemcp_server::TransportInfo::in_process()).await.unwrap();
    /// let json: serde_json::Value = serde_json::from_slice(&reply).unwrap();
    /// assert_eq!(json["result"]["content"][0]["text"], "hello");
    /// # });
    /// # fn tokio_test_block<F: std::future::Future>(f: F) { tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f); }
    /// ```
    pub async fn handle_message(&self, message: &[u8], transport: TransportInfo) -> Option<Bytes> {
        let response = match parse_message(message) {
            Err(error) => return Some(Reply::error(error.id.clone(), error.error).body),
            Ok(IncomingMessage::Notification(_) | IncomingMessage::Response { .. }) => return None,
            Ok(IncomingMessage::Request(request)) => {
                match McpRequest::stateless(self, request, transport) {
                    // Boxed once, as the other transports box theirs (see `call_service`).
                    Ok(request) => Box::pin(self.call_service(request)).await,
                    Err(response) => response,
                }
            }
        };
        Some(response.into_reply().body)
    }
}
