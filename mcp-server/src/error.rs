//! The one internal error a client is shown: `-32603` with the fixed message
//! `Internal error`, whatever went wrong. The reason goes to the log only
//! (`internal_error!`), so that nothing the server keeps (a state, a store's error, a
//! handler's bug) leaks to the caller.

use typemcp_core::McpError;

/// The message of every hidden internal error.
pub(crate) const INTERNAL_ERROR: &str = "Internal error";

/// Logs the reason (at `error`, in `tracing`'s syntax: fields, then a message) and evaluates
/// to the [`McpError`] the client sees: `-32603` "Internal error".
///
/// ```ignore
/// return Err(internal_error!(%reason, "a state did not verify"));
/// ```
macro_rules! internal_error {
    ($($reason:tt)+) => {{
        ::tracing::error!($($reason)+);
        $crate::error::hidden()
    }};
}

/// The error of `internal_error!`, for a reason logged already (such as a panic caught
/// at the edge, whose payload is reported where it is caught).
pub(crate) fn hidden() -> McpError {
    McpError::internal(INTERNAL_ERROR)
}
