//! The checks around a handler that can take part in a multi-round request: the echoed
//! state is verified before it runs, `inputResponses` must be an object, and a state it
//! returns must verify under the request's own binding.

use std::sync::Arc;

use mcp_core::McpError;
use mcp_core::protocol::{InputRequiredResult, Outcome};
use mcp_core::state::Binding;
use serde_json::Value;

use super::RequestStateSigner;

/// The one message every refused state gets. The reason goes to the log only.
pub(crate) const INVALID_STATE: &str = "Invalid or expired \"requestState\"";

/// What a handler's invocation knows about request state.
#[derive(Debug, Clone)]
pub(crate) struct StateContext {
    pub(crate) signer: Arc<RequestStateSigner>,
    pub(crate) binding: Binding,
    /// The tool name, prompt name or resource URI (for the log).
    pub(crate) target: String,
    /// The verified payload of the echoed state, when there was one.
    pub(crate) payload: Option<Vec<u8>>,
}

/// Verifies an echoed state; `Ok(None)` when none was sent.
pub(crate) fn verify_incoming(
    signer: &RequestStateSigner,
    binding: &Binding,
    state: Option<&str>,
    target: &str,
) -> Result<Option<Vec<u8>>, McpError> {
    let Some(token) = state else { return Ok(None) };
    signer
        .verify(token, Some(binding))
        .map(Some)
        .map_err(|reason| refuse(&reason, target))
}

/// Logs why a state was refused (a warning, never the token) and returns the one error every
/// refused state gets.
pub(crate) fn refuse(reason: &dyn std::fmt::Display, target: &str) -> McpError {
    tracing::warn!(%reason, target, "refused a requestState");
    McpError::invalid_params(INVALID_STATE)
}

/// `inputResponses`, when present, must be an object (`null` and other values are refused).
pub(crate) fn check_input_responses(responses: Option<&Value>) -> Result<(), McpError> {
    match responses {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(McpError::invalid_params(
            "Invalid params: inputResponses must be an object",
        )),
    }
}

/// A state a handler returns must verify under this request's binding: a handler cannot
/// mint under a binding of its own.
pub(crate) fn check_outgoing<T>(
    outcome: &Outcome<T>,
    signer: &RequestStateSigner,
    binding: &Binding,
) -> Result<(), McpError> {
    if let Outcome::InputRequired(InputRequiredResult {
        request_state: Some(token),
        ..
    }) = outcome
        && let Err(reason) = signer.verify(token, Some(binding))
    {
        tracing::error!(%reason, "a handler returned a requestState that does not verify under this request's binding");
        return Err(McpError::internal("Internal error"));
    }
    Ok(())
}
