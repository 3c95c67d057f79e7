//! What a handler can wait for, and typed access to the newest round's answers.

use mcp_core::form::{Answer, ElicitForm, FormError, form_request};
use mcp_core::protocol::{
    CreateMessageParams, CreateMessageResult, InputRequest, ListRootsResult, SamplingMessage,
};
use serde_json::{Map, Value};

use crate::handler::{FromInvocation, Invocation, Rejection};

/// Something a multi-round handler can ask the client for, and read back typed: a form
/// (any [`ElicitForm`]), or the deprecated [`Sampled`] and [`Roots`].
pub trait Awaitable: Sized {
    /// The input request asking for it, with `message`.
    fn request(message: String) -> InputRequest;

    /// Reads the `inputResponses` entry that answers it.
    fn read(response: Option<&Value>) -> Answer<Self>;
}

impl<T: ElicitForm> Awaitable for T {
    fn request(message: String) -> InputRequest {
        form_request::<T>(message)
    }

    fn read(response: Option<&Value>) -> Answer<Self> {
        Answer::read(response)
    }
}

fn parse<T: serde::de::DeserializeOwned>(response: Option<&Value>, what: &str) -> Answer<T> {
    match response {
        None => Answer::Missing,
        Some(value) => T::deserialize(value).map_or_else(
            |err| Answer::Malformed(FormError::whole(format!("not a {what}: {err}"))),
            Answer::Accepted,
        ),
    }
}

/// The client's model's reply to a prompt (`sampling/createMessage`).
///
/// Deprecated by SEP-2577: new servers should call a model provider themselves. Kept so
/// 2026-07-28 clients that still offer sampling can be asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled(pub CreateMessageResult);

impl Sampled {
    /// The token limit of the sampling requests built from a message.
    pub const MAX_TOKENS: u64 = 100;

    /// The reply's text.
    pub fn text(&self) -> &str {
        self.0.text().unwrap_or_default()
    }
}

impl Awaitable for Sampled {
    fn request(message: String) -> InputRequest {
        InputRequest::Sampling(CreateMessageParams::new(
            vec![SamplingMessage::user_text(message)],
            Self::MAX_TOKENS,
        ))
    }

    fn read(response: Option<&Value>) -> Answer<Self> {
        match parse::<CreateMessageResult>(response, "sampling result") {
            Answer::Accepted(result) => Answer::Accepted(Self(result)),
            Answer::Malformed(err) => Answer::Malformed(err),
            _ => Answer::Missing,
        }
    }
}

/// The client's roots (`roots/list`).
///
/// Deprecated by SEP-2577: take directories as tool arguments or configuration instead.
#[derive(Debug, Clone, PartialEq)]
pub struct Roots(pub ListRootsResult);

impl Awaitable for Roots {
    fn request(_message: String) -> InputRequest {
        InputRequest::list_roots()
    }

    fn read(response: Option<&Value>) -> Answer<Self> {
        match parse::<ListRootsResult>(response, "roots list") {
            Answer::Accepted(result) => Answer::Accepted(Self(result)),
            Answer::Malformed(err) => Answer::Malformed(err),
            _ => Answer::Missing,
        }
    }
}

/// The newest round's `inputResponses`, for handlers that read answers without a state
/// machine. Unknown keys are simply never read.
///
/// ```
/// use mcp_server::{tool, Answer, ElicitForm};
/// use mcp_server::state::InputResponses;
/// use mcp_server::mcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
/// use mcp_server::mcp_core::form::form_request;
///
/// /// Who is asking.
/// #[derive(ElicitForm)]
/// struct Name {
///     name: String,
/// }
///
/// /// Greets the user.
/// #[tool]
/// async fn greet(answers: InputResponses) -> Outcome<CallToolResult> {
///     match answers.answer::<Name>("user_name") {
///         Answer::Accepted(Name { name }) => Outcome::Complete(CallToolResult::text(format!("Hello, {name}!"))),
///         Answer::Declined | Answer::Cancelled => Outcome::Complete(CallToolResult::text("Hello!")),
///         Answer::Missing | Answer::Malformed(_) => Outcome::InputRequired(
///             InputRequiredResult::new().with_request("user_name", form_request::<Name>("What is your name?")),
///         ),
///     }
/// }
/// # let _ = greet;
/// ```
#[derive(Debug, Clone, Default)]
pub struct InputResponses(Map<String, Value>);

impl InputResponses {
    /// The typed answer under `key`.
    pub fn answer<T: Awaitable>(&self, key: &str) -> Answer<T> {
        T::read(self.0.get(key))
    }

    /// The raw map.
    pub fn raw(&self) -> &Map<String, Value> {
        &self.0
    }
}

impl FromInvocation for InputResponses {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(Self(match &invocation.input_responses {
            Some(Value::Object(map)) => map.clone(),
            _ => Map::new(),
        }))
    }
}

/// The echoed `requestState`, for handlers that manage their own state instead of using
/// [`Round`](super::Round): its verified payload, the raw string, and signing under this
/// request's binding.
///
/// ```
/// use mcp_server::tool;
/// use mcp_server::state::RequestState;
/// use mcp_server::mcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
///
/// /// Counts how many times it was called in one conversation.
/// #[tool]
/// async fn counter(state: RequestState) -> Outcome<CallToolResult> {
///     let count = state.payload().map_or(0, |p| p.len());
///     if count >= 3 {
///         return Outcome::Complete(CallToolResult::text("done"));
///     }
///     match state.sign(&vec![b'x'; count + 1]) {
///         Some(token) => Outcome::InputRequired(InputRequiredResult::new().with_state(token)),
///         None => Outcome::Complete(CallToolResult::error("no signer")),
///     }
/// }
/// # let _ = counter;
/// ```
#[derive(Debug, Clone)]
pub struct RequestState {
    raw: Option<String>,
    context: Option<super::StateContext>,
}

impl RequestState {
    /// The payload, verified (binding, expiry, key) before the handler ran; `None` on a first
    /// call, and always `None` without a signer.
    pub fn payload(&self) -> Option<&[u8]> {
        self.context.as_ref().and_then(|c| c.payload.as_deref())
    }

    /// The string the client echoed, as sent (attacker-controlled).
    pub fn raw(&self) -> Option<&str> {
        self.raw.as_deref()
    }

    /// Signs `payload` under this request's binding; `None` without a signer.
    pub fn sign(&self, payload: &[u8]) -> Option<String> {
        self.context
            .as_ref()
            .map(|c| c.signer.sign(payload, Some(&c.binding)))
    }

    /// The server's signer, for signing or verifying under an explicit binding.
    pub fn signer(&self) -> Option<&super::RequestStateSigner> {
        self.context.as_ref().map(|c| c.signer.as_ref())
    }
}

impl FromInvocation for RequestState {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(Self {
            raw: invocation.request_state.clone(),
            context: invocation.state.clone(),
        })
    }
}
