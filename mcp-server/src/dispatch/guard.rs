//! The multi-round guard, in one place: around every handler that may take part in a
//! multi-round request (`tools/call`, `prompts/get`, `resources/read`, on either era, and on
//! every round the server pushes to an older client), in this order:
//!
//! 1. `inputResponses` must be an object, and an echoed `requestState` must verify under this
//!    request's binding (with single use, it is consumed) — [`Server::guard`];
//! 2. the handler runs — [`Guard::run`];
//! 3. a state it returns must verify under the same binding, and
//! 4. every input request it asks must be one the client declared it can answer (the
//!    capability gate, [`super::gate`]).
//!
//! The checks themselves live in `crate::state` (verification) and [`super::gate`]; this
//! module only puts them in order, so that no method can skip one.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::jsonrpc::Params;
use typemcp_core::protocol::{ClientCapabilities, InputRequiredResult, Outcome};

use super::gate::check_input_requests;
use crate::handler::Invocation;
use crate::state::{
    BindingContext, Minted, StateContext, check_input_responses, check_outgoing, verify_incoming,
};
use crate::{PromptRoute, RequestContext, Server, ToolRoute};

/// What the guard keeps between the handler's invocation and its outcome.
#[derive(Debug)]
pub(super) struct Guard {
    /// The request's state context (`None` when the server keeps no state, or when neither
    /// the request nor the handler deals in states).
    state: Option<StateContext>,
    /// Whether a state the handler returns must be refused: the server signs states, but the
    /// handler takes no part in rounds, so no binding was derived and none can be its own.
    refuse_states: bool,
    /// The capabilities the client declared for this request.
    caps: ClientCapabilities,
}

/// What one round of a multi-round request carries besides its target: from the request
/// (the client's retry), or handed over in memory by the round before (a pushed round, a
/// task's next round).
#[derive(Debug)]
pub(super) struct Rounds {
    /// The `arguments` object, as the client's text.
    pub(super) arguments: Params,
    pub(super) input_responses: Option<Value>,
    pub(super) request_state: Option<String>,
}

impl Rounds {
    pub(super) fn new(
        arguments: Params,
        input_responses: Option<Value>,
        request_state: Option<String>,
    ) -> Self {
        Self {
            arguments,
            input_responses,
            request_state,
        }
    }
}

/// What the guard needs of the route a handler runs behind.
#[derive(Debug, Clone, Copy)]
pub(super) struct Target<'a> {
    /// The tool name, prompt name or resource URI its states are bound to.
    pub(super) name: &'a str,
    /// Whether the handler takes part in rounds (and so may mint a state).
    pub(super) takes_part_in_rounds: bool,
}

impl<'a> From<&'a ToolRoute> for Target<'a> {
    fn from(route: &'a ToolRoute) -> Self {
        Self::new(&route.tool().name, route.requirements())
    }
}

impl<'a> From<&'a PromptRoute> for Target<'a> {
    fn from(route: &'a PromptRoute) -> Self {
        Self::new(&route.prompt().name, route.requirements())
    }
}

impl<'a> Target<'a> {
    pub(super) fn new(name: &'a str, requirements: &crate::handler::Requirements) -> Self {
        Self {
            name,
            takes_part_in_rounds: requirements.takes_part_in_rounds(),
        }
    }
}

impl Server {
    /// Step 1 of the guard, the one setup of every handler that may take part in rounds:
    /// checks `inputResponses` and verifies an echoed state for `target`, and returns the
    /// handler's invocation with the guard for the steps after it.
    pub(super) async fn guard<'t>(
        &self,
        ctx: RequestContext,
        target: impl Into<Target<'t>>,
        rounds: Rounds,
    ) -> Result<(Invocation, Guard), McpError> {
        let Target {
            name: target,
            takes_part_in_rounds,
        } = target.into();
        let Rounds {
            arguments,
            input_responses,
            request_state,
        } = rounds;
        check_input_responses(input_responses.as_ref())?;
        // Deriving the binding costs a hash of the request: only when a state came in, or the
        // handler may mint one.
        let needs_state = takes_part_in_rounds || request_state.is_some();
        let state = if needs_state {
            self.prepare_state(&ctx, target, &arguments, request_state.as_deref())
                .await?
        } else {
            None
        };
        let refuse_states = state.is_none() && self.config().state_signer.is_some();
        let caps = ctx.client_capabilities().clone();
        let invocation = Invocation {
            input_responses,
            request_state,
            state: state.clone(),
            ..Invocation::new(ctx, arguments)
        };
        Ok((
            invocation,
            Guard {
                state,
                refuse_states,
                caps,
            },
        ))
    }

    /// An echoed state must verify under this request's binding (and, with single use, is
    /// consumed).
    async fn prepare_state(
        &self,
        ctx: &RequestContext,
        target: &str,
        arguments: &Params,
        request_state: Option<&str>,
    ) -> Result<Option<StateContext>, McpError> {
        let Some(signer) = &self.config().state_signer else {
            return Ok(None);
        };
        // A binding policy reads the arguments as a tree.
        let arguments = Value::Object(arguments.to_object());
        let binding = signer.bind_for(&BindingContext {
            request: ctx,
            target,
            arguments: &arguments,
        });
        let incoming = verify_incoming(signer, &binding, request_state, target).await?;
        let (payload, consumed) = match incoming {
            Some(incoming) => (Some(incoming.payload), incoming.consumed),
            None => (None, None),
        };
        Ok(Some(StateContext {
            signer: Arc::clone(signer),
            binding,
            target: target.to_owned(),
            payload,
            consumed,
            minted: Minted::default(),
        }))
    }
}

impl Guard {
    /// Steps 2 to 4: runs the handler, then checks its outcome.
    pub(super) async fn run<T>(
        self,
        handler: impl Future<Output = Result<Outcome<T>, McpError>>,
    ) -> Result<Outcome<T>, McpError> {
        let outcome = handler.await?;
        self.finish(&outcome)?;
        Ok(outcome)
    }

    /// After the handler: a returned state must verify under the request's binding, and
    /// every input request must be one the client declared it can answer (checked here
    /// unless `Round::ask` or `Inputs::ask` checked them when they minted the state).
    pub(super) fn finish<T>(&self, outcome: &Outcome<T>) -> Result<(), McpError> {
        if let Some(state) = &self.state {
            check_outgoing(outcome, state)?;
            if state.minted.vouches_for(outcome) {
                return Ok(());
            }
        } else if self.refuse_states && returns_state(outcome) {
            return Err(internal_error!(
                "a handler without a Round, RequestState or InputResponses parameter returned a \
                 requestState: it cannot have been minted for this request"
            ));
        }
        check_input_requests(outcome, &self.caps)
    }
}

/// Whether `outcome` hands the client a `requestState`.
fn returns_state<T>(outcome: &Outcome<T>) -> bool {
    matches!(
        outcome,
        Outcome::InputRequired(InputRequiredResult {
            request_state: Some(_),
            ..
        })
    )
}
