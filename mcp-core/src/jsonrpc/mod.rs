//! The JSON-RPC 2.0 layer: request ids, incoming messages, outgoing responses and errors.
//!
//! [`parse_message`] turns raw bytes into an [`IncomingMessage`] or a ready-to-send error
//! response carrying the code the specification asks for: `-32700` for text that is not JSON,
//! `-32600` for JSON that is not a single, well-formed JSON-RPC message (batch arrays included,
//! and string ids longer than [`MAX_REQUEST_ID_BYTES`]).

mod error;
mod id;
mod message;
mod params;

pub use error::{ErrorCode, McpError};
pub use id::RequestId;
pub use message::{
    ErrorResponse, IncomingMessage, IncomingNotification, IncomingRequest, MAX_REQUEST_ID_BYTES,
    Notification, ResultResponse, parse_message,
};
pub use params::{Params, as_str, without_position};
