//! The errors every layer shares. The one internal error a client is shown: `-32603` with
//! the fixed message `Internal error`, whatever went wrong; the reason goes to the log only
//! (`internal_error!`), so that nothing the server keeps (a state, a store's error, a
//! handler's bug) leaks to the caller. And [`Rejection`], why a handler could not be called
//! (built by the extractors of [`crate::handler`] and [`crate::state`]).

use std::fmt;

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

/// Why a handler could not be called.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejection {
    /// The arguments do not fit the handler: reported to the model as a tool execution
    /// error (`isError: true`) for tools, and as `-32602` elsewhere.
    InvalidArguments(String),
    /// A protocol or server error answered as a JSON-RPC error.
    Error(McpError),
    /// The handler cannot run yet: ask the client this first (a multi-round extractor
    /// re-asking a question whose answer is missing or malformed).
    InputRequired(Box<typemcp_core::protocol::InputRequiredResult>),
}

impl From<McpError> for Rejection {
    fn from(value: McpError) -> Self {
        Self::Error(value)
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidArguments(message) => f.write_str(message),
            Self::Error(err) => write!(f, "{err}"),
            Self::InputRequired(_) => f.write_str("input required"),
        }
    }
}
