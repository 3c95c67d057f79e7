//! How the multi-round types of [`crate::state`] meet handlers: the extractors
//! [`Round`], [`InputResponses`], [`RawInputResponses`] and [`RequestState`], built from the
//! state the server verified before the call, and [`Step`] as a handler's result.

use typemcp_core::McpError;
use typemcp_core::protocol::{CallToolResult, GetPromptResult, Outcome, ReadResourceResult};

use super::{
    FromInvocation, IntoPromptResult, IntoResourceResult, IntoToolResult, Invocation, Rejection,
    Requirements,
};
use crate::state::{Continuation, InputResponses, RawInputResponses, RequestState, Round, Step};

impl<S: Continuation> FromInvocation for Round<S> {
    fn requirements(requirements: &mut Requirements) {
        requirements.request_state_signer(std::any::type_name::<Self>());
    }

    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Round::verified(
            invocation.state.clone(),
            invocation.input_responses.as_ref(),
            invocation.request_state.as_deref(),
            invocation.context.client_capabilities().clone(),
            invocation.context.server().config().max_rounds,
        )
    }
}

impl FromInvocation for InputResponses {
    fn requirements(requirements: &mut Requirements) {
        requirements.request_state_signer(std::any::type_name::<Self>());
    }

    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(InputResponses::verified(
            invocation.state.clone(),
            invocation.input_responses.as_ref(),
            invocation.context.client_capabilities().clone(),
            invocation.context.server().config().max_rounds,
        ))
    }
}

impl FromInvocation for RawInputResponses {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(RawInputResponses::of(invocation.input_responses.as_ref()))
    }
}

impl FromInvocation for RequestState {
    fn requirements(requirements: &mut Requirements) {
        requirements.reads_request_state();
    }

    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(RequestState::of(
            invocation.request_state.clone(),
            invocation.state.clone(),
        ))
    }
}

impl<S, T: IntoToolResult> IntoToolResult for Step<S, T> {
    fn into_tool_result(self) -> Result<Outcome<CallToolResult>, McpError> {
        self.into_outcome(T::into_tool_result)
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        T::output_schema(generator)
    }
}

impl<S, T: IntoPromptResult> IntoPromptResult for Step<S, T> {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, McpError> {
        self.into_outcome(T::into_prompt_result)
    }
}

impl<S, T: IntoResourceResult> IntoResourceResult for Step<S, T> {
    fn into_resource_result(self, uri: &str) -> Result<Outcome<ReadResourceResult>, McpError> {
        self.into_outcome(|value| value.into_resource_result(uri))
    }
}
