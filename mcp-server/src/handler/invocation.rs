//! One call of a tool, prompt or resource handler, as the extractors see it.

use serde_json::Value;
use typemcp_core::jsonrpc::Params;

use crate::RequestContext;

/// The input of one handler call: the request context plus what the method carried.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The request context.
    pub context: RequestContext,
    /// The `arguments` object of `tools/call` or `prompts/get` (an empty object when absent),
    /// as the client's JSON text: read it with [`Params::parse`] into a type, or one member
    /// with [`Params::member`]; no tree is built unless you ask ([`Params::to_object`]).
    /// Changed in 0.1: it was a `serde_json::Value`.
    pub arguments: Params,
    /// The URI of `resources/read`.
    pub uri: Option<String>,
    /// Variables a resource template matched in the URI.
    pub uri_params: Vec<(String, String)>,
    /// The raw `inputResponses` of a multi-round retry.
    pub input_responses: Option<Value>,
    /// The raw `requestState` of a multi-round retry (attacker-controlled: with a signer
    /// configured, read [`state_payload`](Self::state_payload) instead).
    pub request_state: Option<String>,
    pub(crate) state: Option<crate::state::StateContext>,
}

impl Invocation {
    /// An invocation with arguments and nothing else.
    pub fn new(context: RequestContext, arguments: Params) -> Self {
        Self {
            context,
            arguments,
            uri: None,
            uri_params: Vec::new(),
            input_responses: None,
            request_state: None,
            state: None,
        }
    }

    /// The payload of the echoed `requestState`, verified by the server's signer (binding,
    /// expiry, key) before the handler runs; `None` on a first call or without a signer.
    pub fn state_payload(&self) -> Option<&[u8]> {
        self.state.as_ref().and_then(|s| s.payload.as_deref())
    }
}
