//! The typed multi-round API. A handler is a `match` over where the conversation stands:
//!
//! - a state enum derives [`Continuation`]; each variant lists, with `#[awaits(key: Form)]`,
//!   the questions it is waiting for, and the derive generates a twin enum whose variants
//!   carry those answers as typed fields (`Answer<Form>`), so reading an answer that was not
//!   asked in that state does not compile;
//! - [`Round<S>`] is the extractor: it reads the verified state and the newest round's
//!   answers, and re-asks by itself when an awaited answer is missing or malformed, so the
//!   handler only ever sees accepted, declined or cancelled answers;
//! - the handler returns a [`Step`]: done with a result, or asking the next questions with a
//!   new state (signed under the request's binding).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use mcp_core::McpError;
use mcp_core::protocol::{
    CallToolResult, GetPromptResult, InputRequest, InputRequiredResult, Outcome, ReadResourceResult,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::verify::{INVALID_STATE, StateContext};
use crate::handler::{
    FromInvocation, IntoPromptResult, IntoResourceResult, IntoToolResult, Invocation, Rejection,
};

/// One question a state waits for: its key in `inputRequests`, and how to ask it.
#[derive(Debug, Clone, Copy)]
pub struct Question {
    /// The key in `inputRequests` / `inputResponses`.
    pub key: &'static str,
    /// Builds the input request with a message.
    pub request: fn(String) -> InputRequest,
}

/// A state enum of a multi-round handler. Derive it (`#[derive(Continuation)]`) next to
/// `Serialize`, `Deserialize` and `Clone`; mark each variant with the questions it awaits:
/// `#[awaits(confirm: Confirm)]`, where each type is [`Awaitable`](super::Awaitable) (a form,
/// or the deprecated `Sampled` / `Roots`). The key is the answer's key on the wire (a raw
/// identifier unrawed: `r#type` is `type`) and its field in the generated `<Enum>Answered`.
/// A crate that re-exports this one names itself with `#[continuation(crate = my_sdk::mcp)]`
/// on the enum. Mistakes in the derive are compile errors, all reported in one build, beside
/// stub items so that uses of the enum add no errors.
pub trait Continuation: Serialize + DeserializeOwned + Clone + Send + Sync + 'static {
    /// The state with the answers it awaited attached as typed fields.
    type Answered;

    /// The questions this state waits for.
    fn questions(&self) -> Vec<Question>;

    /// Whether an awaited answer is missing or malformed (then the questions are asked again).
    fn needs_reask(&self, responses: &Map<String, Value>) -> bool;

    /// Attaches the answers.
    fn answered(self, responses: &Map<String, Value>) -> Self::Answered;
}

/// What travels inside the signed token: the state, the messages it was asked with, and the
/// round number.
#[derive(Serialize, Deserialize)]
struct Envelope<S> {
    #[serde(rename = "s")]
    state: S,
    #[serde(rename = "m", default)]
    messages: BTreeMap<String, String>,
    #[serde(rename = "r", default)]
    round: u32,
}

/// The extractor of a multi-round handler: the verified state (none on the first call) and
/// the newest round's answers.
///
/// ```
/// use mcp_server::{tool, ElicitForm, Server};
/// use mcp_server::state::{Continuation, Round, Step};
/// use mcp_server::Answer;
///
/// /// Confirm the deploy.
/// #[derive(ElicitForm)]
/// struct Confirm {
///     /// Go ahead?
///     ok: bool,
/// }
///
/// #[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
/// enum Flow {
///     #[awaits(confirm: Confirm)]
///     Confirming,
/// }
///
/// /// Deploy the service.
/// #[tool(destructive)]
/// async fn deploy(target: String, round: Round<Flow>) -> Step<Flow, String> {
///     match round.resume() {
///         None => round.ask(Flow::Confirming, format!("Deploy to {target}?")),
///         Some(FlowAnswered::Confirming { confirm: Answer::Accepted(Confirm { ok: true }) }) => {
///             Step::done(format!("Deployed to {target}."))
///         }
///         Some(FlowAnswered::Confirming { .. }) => Step::done("Deploy cancelled.".to_owned()),
///     }
/// }
///
/// let server = Server::builder().tool(deploy).build().unwrap();
/// # let _ = server;
/// ```
#[derive(Debug)]
pub struct Round<S> {
    state: Option<S>,
    round: u32,
    responses: Map<String, Value>,
    context: StateContext,
    max_rounds: u32,
}

impl<S: Continuation> FromInvocation for Round<S> {
    fn requirements(requirements: &mut crate::handler::Requirements) {
        requirements.request_state_signer(std::any::type_name::<Self>());
    }

    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        let Some(context) = invocation.state.clone() else {
            tracing::error!(
                "a handler takes Round<S>, but the server was built without a request-state signer"
            );
            return Err(Rejection::Error(McpError::internal("Internal error")));
        };
        let responses = match &invocation.input_responses {
            Some(Value::Object(map)) => map.clone(),
            _ => Map::new(),
        };
        let max_rounds = invocation.context.server().config().max_rounds;
        let Some(payload) = &context.payload else {
            return Ok(Self {
                state: None,
                round: 0,
                responses,
                context,
                max_rounds,
            });
        };
        let envelope: Envelope<S> = serde_json::from_slice(payload).map_err(|err| {
            tracing::warn!(error = %err, "a verified requestState does not hold this handler's state type");
            Rejection::Error(McpError::invalid_params(INVALID_STATE))
        })?;
        if envelope.state.needs_reask(&responses) {
            // Ask the same questions again, with the same (still valid) state.
            let mut result = InputRequiredResult::new();
            for question in envelope.state.questions() {
                let message = envelope
                    .messages
                    .get(question.key)
                    .cloned()
                    .unwrap_or_default();
                result = result.with_request(question.key, (question.request)(message));
            }
            if let Some(token) = &invocation.request_state {
                result = result.with_state(token.clone());
            }
            return Err(Rejection::InputRequired(Box::new(result)));
        }
        Ok(Self {
            state: Some(envelope.state),
            round: envelope.round,
            responses,
            context,
            max_rounds,
        })
    }
}

impl<S: Continuation> Round<S> {
    /// Where the conversation stands, with the answers its questions got; `None` on the
    /// first call.
    pub fn resume(&self) -> Option<S::Answered> {
        self.state
            .clone()
            .map(|state| state.answered(&self.responses))
    }

    /// The verified state without its answers; `None` on the first call.
    pub fn state(&self) -> Option<&S> {
        self.state.as_ref()
    }

    /// How many rounds came before this one.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Asks the questions `next` awaits, all with `message`, and moves to `next`.
    pub fn ask<T>(&self, next: S, message: impl Into<String>) -> Step<S, T> {
        let message = message.into();
        self.ask_each(next, |_| message.clone())
    }

    /// Asks the questions `next` awaits, each with its own message, and moves to `next`.
    pub fn ask_each<T>(&self, next: S, message: impl Fn(&str) -> String) -> Step<S, T> {
        let round = self.round.saturating_add(1);
        if round > self.max_rounds {
            tracing::warn!(
                max_rounds = self.max_rounds,
                "a multi-round request went past its round limit"
            );
            return Step::Fail(McpError::invalid_request("Too many rounds for one request"));
        }
        let questions = next.questions();
        let mut result = InputRequiredResult::new();
        let mut messages = BTreeMap::new();
        for question in &questions {
            let text = message(question.key);
            messages.insert(question.key.to_owned(), text.clone());
            result = result.with_request(question.key, (question.request)(text));
        }
        let envelope = Envelope {
            state: next,
            messages,
            round,
        };
        match serde_json::to_vec(&envelope) {
            Ok(payload) => {
                let token = self
                    .context
                    .signer
                    .sign(&payload, Some(&self.context.binding));
                Step::Ask(result.with_state(token), PhantomData)
            }
            Err(err) => {
                tracing::error!(error = %err, "a multi-round state could not be serialized");
                Step::Fail(McpError::internal("Internal error"))
            }
        }
    }
}

/// What a multi-round handler returns: done, or asking for more.
#[derive(Debug)]
pub enum Step<S, T> {
    /// The request is complete with this result.
    Done(T),
    /// The client must answer these questions and retry with this state.
    Ask(InputRequiredResult, PhantomData<fn() -> S>),
    /// The request fails.
    Fail(McpError),
}

impl<S, T> Step<S, T> {
    /// Completes the request.
    pub fn done(value: impl Into<T>) -> Self {
        Self::Done(value.into())
    }
}

impl<S, T: IntoToolResult> IntoToolResult for Step<S, T> {
    fn into_tool_result(self) -> Result<Outcome<CallToolResult>, McpError> {
        match self {
            Self::Done(value) => value.into_tool_result(),
            Self::Ask(result, _) => Ok(Outcome::InputRequired(result)),
            Self::Fail(err) => Err(err),
        }
    }

    fn output_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema> {
        T::output_schema(generator)
    }
}

impl<S, T: IntoPromptResult> IntoPromptResult for Step<S, T> {
    fn into_prompt_result(self) -> Result<Outcome<GetPromptResult>, McpError> {
        match self {
            Self::Done(value) => value.into_prompt_result(),
            Self::Ask(result, _) => Ok(Outcome::InputRequired(result)),
            Self::Fail(err) => Err(err),
        }
    }
}

impl<S, T: IntoResourceResult> IntoResourceResult for Step<S, T> {
    fn into_resource_result(self, uri: &str) -> Result<Outcome<ReadResourceResult>, McpError> {
        match self {
            Self::Done(value) => value.into_resource_result(uri),
            Self::Ask(result, _) => Ok(Outcome::InputRequired(result)),
            Self::Fail(err) => Err(err),
        }
    }
}
