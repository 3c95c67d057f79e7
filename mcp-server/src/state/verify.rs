//! The checks around a handler that can take part in a multi-round request: the echoed
//! state is verified (and, with single use, consumed) before it runs, `inputResponses` must
//! be an object, and a state it returns must verify under the request's own binding.

use std::sync::Arc;

use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::protocol::{InputRequiredResult, Outcome};
use typemcp_core::state::Binding;

use super::RequestStateSigner;
use super::single_use::{self, Consumption, StateDigest};

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
    /// The digest of the echoed state, when single use consumed it.
    pub(crate) consumed: Option<StateDigest>,
    /// The state last minted under this context (by `Round::ask`, `Inputs::ask`,
    /// `RequestState::sign`): returned by the handler, it is known good and not verified
    /// again.
    pub(crate) minted: Minted,
}

/// The state last minted in this request, shared by the copies of its [`StateContext`], and
/// whether the input requests asked with it were checked against the client's capabilities.
#[derive(Debug, Clone, Default)]
pub(crate) struct Minted(Arc<std::sync::Mutex<Option<(String, bool)>>>);

impl Minted {
    /// Signs `payload` under the context's binding, and remembers the token.
    pub(crate) fn sign(&self, context: &StateContext, payload: &[u8]) -> String {
        let token = context.signer.sign(payload, Some(&context.binding));
        *self.lock() = Some((token.clone(), false));
        token
    }

    /// Records that the input requests asked with the state last minted were checked against
    /// the client's capabilities (`Round::ask`, `Inputs::ask`), so the gate need not again.
    pub(crate) fn checked(&self) {
        if let Some((_, checked)) = self.lock().as_mut() {
            *checked = true;
        }
    }

    /// Whether `token` is the state last minted here.
    fn is(&self, token: &str) -> bool {
        self.lock()
            .as_ref()
            .is_some_and(|(minted, _)| minted == token)
    }

    /// Whether `outcome` hands out the state last minted here, with input requests checked
    /// when it was minted.
    pub(crate) fn vouches_for<T>(&self, outcome: &Outcome<T>) -> bool {
        let Outcome::InputRequired(InputRequiredResult {
            request_state: Some(token),
            ..
        }) = outcome
        else {
            return false;
        };
        self.lock()
            .as_ref()
            .is_some_and(|(minted, checked)| *checked && minted == token)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(String, bool)>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// An echoed state that verified (and was consumed, with single use).
#[derive(Debug)]
pub(crate) struct Incoming {
    pub(crate) payload: Vec<u8>,
    pub(crate) consumed: Option<StateDigest>,
}

/// Verifies an echoed state, then consumes it when the signer is single use; `Ok(None)` when
/// none was sent. A replay, or a state minted before the store's epoch (a store that lost
/// its data), is refused like any bad state; a store that fails refuses the request as an
/// internal error (fail closed), logged.
pub(crate) async fn verify_incoming(
    signer: &RequestStateSigner,
    binding: &Binding,
    state: Option<&str>,
    target: &str,
) -> Result<Option<Incoming>, McpError> {
    let Some(token) = state else { return Ok(None) };
    let verified = signer
        .verify_state(token, Some(binding))
        .map_err(|reason| refuse(&reason, target))?;
    let Some(store) = signer.single_use_store() else {
        return Ok(Some(Incoming {
            payload: verified.payload,
            consumed: None,
        }));
    };
    let digest = single_use::digest(token);
    let minted_at = signer.minted_at(verified.expires_at);
    let until = signer.remember_until(verified.expires_at);
    match store.consume(digest, minted_at, until).await {
        Ok(Consumption::Fresh) => Ok(Some(Incoming {
            payload: verified.payload,
            consumed: Some(digest),
        })),
        Ok(Consumption::AlreadyUsed) => Err(refuse(&"replayed: consumed already", target)),
        Ok(Consumption::MintedBeforeEpoch { epoch }) => Err(refuse(
            &format_args!(
                "minted at {minted_at}, before the single-use store's epoch {epoch} (the store \
                 lost its data since, or is newer than the state): it cannot tell whether the \
                 state was consumed"
            ),
            target,
        )),
        Err(error) => Err(internal_error!(
            %error,
            target,
            "the single-use store failed; refusing the request (fail closed)"
        )),
    }
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
/// mint under a binding of its own. With single use, it must not be the state this request
/// consumed (no client could ever use it). Verifying it here does not consume it; the state
/// the request minted itself is known good and not verified again.
pub(crate) fn check_outgoing<T>(
    outcome: &Outcome<T>,
    state: &StateContext,
) -> Result<(), McpError> {
    let Outcome::InputRequired(InputRequiredResult {
        request_state: Some(token),
        ..
    }) = outcome
    else {
        return Ok(());
    };
    // Minted in this request, under this binding: nothing to verify.
    if !state.minted.is(token)
        && let Err(reason) = state.signer.verify(token, Some(&state.binding))
    {
        return Err(
            internal_error!(%reason, "a handler returned a requestState that does not verify under this request's binding"),
        );
    }
    if state
        .consumed
        .is_some_and(|consumed| consumed == single_use::digest(token))
    {
        return Err(internal_error!(
            target = %state.target,
            "a handler returned the requestState this request consumed (single use): it can never be \
             used again; mint a new one (RequestState::sign, Round::ask)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use typemcp_core::protocol::CallToolResult;

    fn asking(state: &str) -> Outcome<CallToolResult> {
        Outcome::InputRequired(InputRequiredResult::new().with_state(state.to_owned()))
    }

    #[test]
    fn only_a_checked_state_minted_here_is_vouched_for() {
        let minted = Minted::default();
        assert!(!minted.vouches_for(&asking("t")), "nothing minted yet");
        *minted.lock() = Some(("t".to_owned(), false));
        assert!(
            !minted.vouches_for(&asking("t")),
            "minted, but its requests were not checked (RequestState::sign)"
        );
        minted.checked();
        assert!(minted.vouches_for(&asking("t")));
        assert!(!minted.vouches_for(&asking("other")), "another state");
        let done = Outcome::Complete(CallToolResult::default());
        assert!(!minted.vouches_for(&done), "nothing asked");
    }
}
