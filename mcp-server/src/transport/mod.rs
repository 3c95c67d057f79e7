//! Transports: newline-delimited JSON over stdio, Streamable HTTP, and in-process calls.

#[cfg(feature = "http")]
pub mod http;
mod in_process;
#[cfg(any(feature = "http", feature = "stdio"))]
mod signal;
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) use signal::Signals;
#[cfg(any(feature = "http", feature = "stdio"))]
pub use signal::shutdown_signal;
#[cfg(feature = "stdio")]
mod stdio;

pub use crate::budget::{DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_MESSAGE_BYTES};

/// What a `notifications/cancelled` names (`None` for any other notification, and for a
/// malformed one, which is logged and ignored).
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) fn cancelled(
    notification: typemcp_core::jsonrpc::IncomingNotification,
) -> Option<typemcp_core::protocol::CancelledParams> {
    if notification.method != typemcp_core::protocol::methods::CANCELLED {
        return None;
    }
    let params = notification.params.parse();
    params
        .inspect_err(|_| tracing::debug!("ignoring a malformed notifications/cancelled"))
        .ok()
}
