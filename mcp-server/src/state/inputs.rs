//! The untyped extractors: the answers a verified state awaits ([`InputResponses`]), every
//! answer as sent ([`RawInputResponses`]), and the echoed state itself ([`RequestState`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::form::Answer;
use typemcp_core::protocol::{ClientCapabilities, InputRequiredResult, Outcome};

use super::StateContext;
use super::caps::{merge_capability, missing_capability};
use super::envelope::{Answers, Asked, Envelope, awaited};
use super::question::{AskError, Awaitable};
use super::round::seal;

/// The newest round's answers **to the questions the verified state awaits**, for handlers
/// that read answers without a state enum. On a first call (no state) it holds nothing, and
/// an answer under a key the state did not ask is never seen: a client cannot slip in an
/// answer to a question it was not asked.
///
/// Ask with [`InputResponses::ask`]: it signs a state recording which keys are awaited (and
/// the questions themselves, so answers to questions built at run time can be checked).
/// It needs the server's request-state signer. [`RawInputResponses`] is the unverified
/// escape hatch.
///
/// ```
/// use typemcp_server::{tool, Answer, ElicitForm, McpError};
/// use typemcp_server::state::InputResponses;
/// use typemcp_server::typemcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
/// use typemcp_server::typemcp_core::form::form_request;
///
/// /// Who is asking.
/// #[derive(ElicitForm)]
/// struct Name {
///     name: String,
/// }
///
/// /// Greets the user.
/// #[tool]
/// async fn greet(answers: InputResponses) -> Result<Outcome<CallToolResult>, McpError> {
///     match answers.answer::<Name>("user_name") {
///         Answer::Accepted(Name { name }) => Ok(Outcome::Complete(CallToolResult::text(format!("Hello, {name}!")))),
///         Answer::Declined | Answer::Cancelled => Ok(Outcome::Complete(CallToolResult::text("Hello!"))),
///         Answer::Missing | Answer::Malformed(_) => answers.ask(
///             InputRequiredResult::new().with_request("user_name", form_request::<Name>("What is your name?")),
///         ),
///     }
/// }
/// # let _ = greet;
/// ```
#[derive(Debug, Clone)]
pub struct InputResponses {
    responses: Map<String, Value>,
    asked: BTreeMap<String, Asked>,
    round: u32,
    context: Option<StateContext>,
    caps: typemcp_core::protocol::ClientCapabilities,
    max_rounds: u32,
}

impl InputResponses {
    /// The typed answer under `key`: [`Answer::Missing`] when the verified state does not
    /// await `key` (or there is no state).
    pub fn answer<T: Awaitable>(&self, key: &str) -> Answer<T> {
        Answers::new(&self.responses, &self.asked).answer(key)
    }

    /// The answer under `key` as sent, when the state awaits `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.responses.get(key)
    }

    /// The keys the verified state awaits (none on a first call).
    pub fn awaited(&self) -> impl Iterator<Item = &str> {
        self.asked.keys().map(String::as_str)
    }

    /// How many rounds came before this one.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Asks the questions of `result`: signs a state that awaits exactly its keys (replacing
    /// any state it carries), after the same checks as `Round::ask` (the client's
    /// capabilities, the round cap, the state's size cap).
    pub fn ask<R>(&self, result: InputRequiredResult) -> Result<Outcome<R>, McpError> {
        self.try_ask(result)
            .map(Outcome::InputRequired)
            .map_err(|err| {
                tracing::warn!(error = %err, "a handler could not ask");
                err.into_error()
            })
    }

    /// Like [`ask`](Self::ask), with the reason it cannot ask.
    pub fn try_ask(&self, result: InputRequiredResult) -> Result<InputRequiredResult, AskError> {
        let Some(context) = &self.context else {
            return Err(AskError::Serialize(
                "the server has no request-state signer".to_owned(),
            ));
        };
        let round = self.round.saturating_add(1);
        if round > self.max_rounds {
            return Err(AskError::TooManyRounds {
                max: self.max_rounds,
            });
        }
        let keep = context.signer.keeps_messages();
        let (mut required, mut keys, mut asked) = (Map::new(), Vec::new(), BTreeMap::new());
        for (key, request) in result.input_requests.iter().flatten() {
            if let Some(missing) = missing_capability(request, &self.caps) {
                merge_capability(&mut required, missing);
                keys.push(format!("`{key}`"));
            }
            asked.insert(key.clone(), Asked::new(request, true, keep));
        }
        if !required.is_empty() {
            return Err(AskError::MissingCapability {
                keys: keys.join(", "),
                required: Value::Object(required),
            });
        }
        let envelope = Envelope {
            version: String::new(),
            round,
            asked,
            state: (),
        };
        let token = seal(context, &envelope)?;
        context.minted.checked();
        Ok(result.with_state(token))
    }
}

impl InputResponses {
    /// The answers of `input_responses` to what the state verified into `context` awaits
    /// (nothing on a first call).
    pub(crate) fn verified(
        context: Option<StateContext>,
        input_responses: Option<&Value>,
        caps: ClientCapabilities,
        max_rounds: u32,
    ) -> Self {
        let (round, asked) = context
            .as_ref()
            .and_then(|c| c.payload.as_deref())
            .and_then(awaited)
            .unwrap_or_default();
        let responses = match input_responses {
            Some(Value::Object(map)) => map
                .iter()
                .filter(|(key, _)| asked.contains_key(key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
            _ => Map::new(),
        };
        Self {
            responses,
            asked,
            round,
            context,
            caps,
            max_rounds,
        }
    }
}

/// Every answer of the newest round's `inputResponses`, **unverified**: whatever the client
/// sent, under any key, whether or not a state asked for it, and on a first call too.
///
/// The escape hatch for stateless flows (a handler that asks one question and completes from
/// the answer alone, trusting nothing about it but its shape). Prefer [`InputResponses`] or
/// `Round`, which only ever give answers to questions the signed state asked.
///
/// ```
/// use typemcp_server::{tool, Answer, ElicitForm};
/// use typemcp_server::state::RawInputResponses;
/// use typemcp_server::typemcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
/// use typemcp_server::typemcp_core::form::form_request;
///
/// /// Who is asking.
/// #[derive(ElicitForm)]
/// struct Name {
///     name: String,
/// }
///
/// /// Greets the user.
/// #[tool]
/// async fn greet(answers: RawInputResponses) -> Outcome<CallToolResult> {
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
pub struct RawInputResponses(Map<String, Value>);

impl RawInputResponses {
    /// The typed answer under `key` (a question built at run time cannot be checked here:
    /// nothing recorded what was asked).
    pub fn answer<T: Awaitable>(&self, key: &str) -> Answer<T> {
        T::read(self.0.get(key), None)
    }

    /// The raw map, as the client sent it.
    pub fn unverified(&self) -> &Map<String, Value> {
        &self.0
    }
}

impl RawInputResponses {
    /// Every answer of `input_responses` (none unless it is an object).
    pub(crate) fn of(input_responses: Option<&Value>) -> Self {
        Self(match input_responses {
            Some(Value::Object(map)) => map.clone(),
            _ => Map::new(),
        })
    }
}

/// The echoed `requestState`, for handlers that manage their own state instead of using
/// [`Round`](super::Round): its verified payload, the raw string, and signing under this
/// request's binding.
///
/// ```
/// use typemcp_server::tool;
/// use typemcp_server::state::RequestState;
/// use typemcp_server::typemcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
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
    context: Option<StateContext>,
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
        self.context.as_ref().map(|c| c.minted.sign(c, payload))
    }

    /// The server's signer, for signing or verifying under an explicit binding.
    pub fn signer(&self) -> Option<&super::RequestStateSigner> {
        self.context.as_ref().map(|c| c.signer.as_ref())
    }
}

impl RequestState {
    /// The state the client echoed (`raw`), verified into `context`.
    pub(crate) fn of(raw: Option<String>, context: Option<StateContext>) -> Self {
        Self { raw, context }
    }
}
