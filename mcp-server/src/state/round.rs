//! The typed multi-round API. A handler is a `match` over where the conversation stands:
//!
//! - a state enum derives [`Continuation`]; each variant lists, with `#[awaits(key: Type)]`,
//!   the questions it is waiting for, and the derive generates a twin enum whose variants
//!   carry those answers as typed fields ([`Reply<Type>`](super::Reply)), so reading an
//!   answer that was not asked in that state does not compile;
//! - [`Round<S>`] is the extractor: it reads the verified state and the newest round's
//!   answers, and asks again by itself when an awaited answer is missing or malformed, so the
//!   handler only ever sees accepted, declined or cancelled answers. Before acting, the
//!   handler can ask it whether this client can answer a kind of question at all
//!   ([`Round::can_ask`]);
//! - the handler returns a [`Step`]: done with a result, failed, or asking the next
//!   questions ([`Round::ask`]) with a new state (signed under the request's binding). The
//!   derive also generates the enum a handler asks with, `<Enum>Asking`: the same variants,
//!   each carrying beside its fields what each awaited question is asked with
//!   ([`Awaitable::AskedWith`](super::Awaitable::AskedWith)), so a question asked the wrong
//!   way, a missing question and a key the state does not await do not compile. Asking
//!   checks, before the handler returns, that the client can answer every question, that the
//!   round cap is not passed, and that the state fits the size cap.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::form::explain;
use typemcp_core::protocol::{
    ClientCapabilities, ElicitRequestParams, InputRequest, InputRequiredResult, Outcome,
};

use super::caps::{QuestionKind, merge_capability, missing_capability};
use super::envelope::{Answers, Asked, Envelope, REASK_MESSAGE};
use super::question::{AskError, Awaitable, Question, QuestionPrompt, Unsettled};
use super::verify::{StateContext, refuse};
use crate::error::Rejection;

/// A state enum of a multi-round handler. Derive it (`#[derive(Continuation)]`) next to
/// `Serialize`, `Deserialize` and `Clone`; mark each variant with the questions it awaits:
/// `#[awaits(confirm: Confirm)]`, where each type is [`Awaitable`](super::Awaitable) (a form,
/// a [`UrlVisit`](super::UrlVisit), a [`OneOf<T>`](super::OneOf) or
/// [`DynamicForm`](super::DynamicForm) built at run time, or the deprecated `Sampled` /
/// `Roots`). The key is the answer's key on the wire (a raw identifier unrawed: `r#type` is
/// `type`) and its field in the two generated enums (same visibility as the state enum):
///
/// - `<Enum>Answered`, what [`Round::resume`] hands back: each variant with its fields and a
///   [`Reply<T>`](super::Reply) per awaited key;
/// - `<Enum>Asking`, what [`Round::ask`] takes: each variant with its fields and, per awaited
///   key, what its question is asked with (`<T as Awaitable>::AskedWith`: a
///   [`Message`](super::Message) for a derived form, a [`Choice<T>`](super::Choice) for a
///   `OneOf<T>`, ...).
///
/// A crate that re-exports this one names itself with `#[continuation(crate = my_sdk::mcp)]`
/// on the enum. Mistakes in the derive are compile errors, all reported in one build, beside
/// stub items so that uses of the enum add no errors.
///
/// # Implementing it by hand
///
/// The derive is the way to write a state; a hand-written implementation names its own
/// [`Asking`](Self::Asking) type and [`split`](Self::split)s it into the next state and one
/// [`QuestionPrompt`] per question of [`questions`](Self::questions), in the same order, each
/// made with `.into()` from what its type is asked with. Nothing checks that at compile time: a
/// prompt of another kind, or not one prompt per question, fails the request at
/// [`Round::ask`] ([`AskError::Question`], logged).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use typemcp_server::ElicitForm;
/// use typemcp_server::state::{Answers, Continuation, Message, QuestionPrompt, Question, Reply};
///
/// /// Confirm.
/// #[derive(ElicitForm)]
/// struct Confirm {
///     ok: bool,
/// }
///
/// /// Waits for one confirmation.
/// #[derive(Serialize, Deserialize, Clone)]
/// struct Confirming;
///
/// impl Continuation for Confirming {
///     type Answered = Reply<Confirm>;
///     /// The message the confirmation is asked with.
///     type Asking = Message;
///
///     const VERSION: &'static str = "confirming-1";
///
///     fn questions(&self) -> Vec<Question> {
///         vec![Question::of::<Confirm>("confirm")]
///     }
///
///     fn split(asking: Message) -> (Self, Vec<QuestionPrompt>) {
///         (Confirming, vec![asking.into()])
///     }
///
///     fn answered(self, answers: &Answers<'_>) -> Option<Reply<Confirm>> {
///         answers.read::<Confirm>("confirm")
///     }
/// }
/// ```
pub trait Continuation: Serialize + DeserializeOwned + Clone + Send + Sync + 'static {
    /// The state with the answers it awaited attached as typed fields.
    type Answered;

    /// The next state with what each of its questions is asked with, as [`Round::ask`] takes
    /// it.
    type Asking;

    /// A fingerprint of the type's declaration (the derive hashes its name, its variants, their
    /// fields and types, what they await and their serde attributes). Every state carries it;
    /// one minted under another fingerprint is refused.
    const VERSION: &'static str;

    /// The questions this state waits for.
    fn questions(&self) -> Vec<Question>;

    /// The next state, and what each of its [`questions`](Self::questions) is asked with, in
    /// the same order.
    fn split(asking: Self::Asking) -> (Self, Vec<QuestionPrompt>);

    /// Attaches the answers; `None` when an awaited answer is missing or malformed (then the
    /// questions are asked again).
    fn answered(self, answers: &Answers<'_>) -> Option<Self::Answered>;
}

/// The extractor of a multi-round handler: the verified state (none on the first call), the
/// newest round's answers, and what this request's client declared it can answer.
///
/// ```
/// use typemcp_server::{tool, ElicitForm, Server};
/// use typemcp_server::state::{Continuation, Reply, Round, Step};
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
///         None => round.ask(FlowAsking::Confirming { confirm: format!("Deploy to {target}?").into() }),
///         Some(FlowAnswered::Confirming { confirm: Reply::Accepted(Confirm { ok: true }) }) => {
///             Step::done(format!("Deployed to {target}."))
///         }
///         Some(FlowAnswered::Confirming { confirm: Reply::Accepted(_) | Reply::Declined }) => {
///             Step::done("Deploy declined.".to_owned())
///         }
///         Some(FlowAnswered::Confirming { confirm: Reply::Cancelled }) => {
///             Step::done("Deploy cancelled.".to_owned())
///         }
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
    asked: BTreeMap<String, Asked>,
    context: StateContext,
    caps: ClientCapabilities,
    max_rounds: u32,
}

/// The version header of an envelope, read before the state (which may not even parse as
/// this handler's type when it was minted for another version).
#[derive(Deserialize)]
struct Versioned {
    #[serde(rename = "v", default)]
    version: Option<String>,
}

impl<S: Continuation> Round<S> {
    /// The round of a call whose echoed state (`request_state`, verified into `context`;
    /// none without a signer) is answered by `input_responses`: a state this type's version
    /// did not mint is refused, and a missing or malformed awaited answer asks again.
    pub(crate) fn verified(
        context: Option<StateContext>,
        input_responses: Option<&Value>,
        request_state: Option<&str>,
        caps: ClientCapabilities,
        max_rounds: u32,
    ) -> Result<Self, Rejection> {
        let Some(context) = context else {
            return Err(Rejection::Error(internal_error!(
                "a handler takes Round<S>, but the server was built without a request-state signer"
            )));
        };
        let responses = match input_responses {
            Some(Value::Object(map)) => map.clone(),
            _ => Map::new(),
        };
        let mut round = Self {
            state: None,
            round: 0,
            responses,
            asked: BTreeMap::new(),
            caps,
            max_rounds,
            context,
        };
        let Some(payload) = &round.context.payload else {
            return Ok(round);
        };
        let envelope = decode::<S>(payload, &round.context.target)?;
        let answers = Answers::new(&round.responses, &envelope.asked);
        if envelope.state.clone().answered(&answers).is_none() {
            return Err(reask(
                &envelope,
                &round.responses,
                request_state,
                &round.context,
            ));
        }
        round.state = Some(envelope.state);
        round.round = envelope.round;
        round.asked = envelope.asked;
        Ok(round)
    }
}

/// Reads a verified payload as this handler's envelope, in one parse: a state minted for
/// another version of the type, or for no typed flow at all, is refused like any other bad
/// state (its version header is read only then, to say why in the log).
fn decode<S: Continuation>(payload: &[u8], target: &str) -> Result<Envelope<S>, Rejection> {
    let refused = |reason: &dyn std::fmt::Display| Rejection::Error(refuse(reason, target));
    let error = match serde_json::from_slice::<Envelope<S>>(payload) {
        Ok(envelope) if envelope.version == S::VERSION => return Ok(envelope),
        // Another version's: said below.
        Ok(_) => None,
        Err(err) => Some(err),
    };
    let versioned: Versioned = serde_json::from_slice(payload)
        .map_err(|_| refused(&"its payload is not a multi-round state"))?;
    Err(match versioned.version {
        Some(version) if version != S::VERSION => refused(&format_args!(
            "minted for another version of {} (state version {version:?}, this build's is {:?}): the state type changed",
            std::any::type_name::<S>(),
            S::VERSION
        )),
        Some(_) => refused(&format_args!(
            "its payload does not hold a {}: {}",
            std::any::type_name::<S>(),
            error.map_or_else(String::new, |err| err.to_string())
        )),
        None => refused(&"its payload is not a multi-round state"),
    })
}

/// The same questions again, with the same (still valid) state: an awaited answer is missing
/// or malformed, and the question it answered says why in its message (see [`tell_why`]).
/// With single use, the echoed state was consumed: the same envelope is signed again, a new
/// state (with a new expiry).
fn reask<S: Continuation>(
    envelope: &Envelope<S>,
    responses: &Map<String, Value>,
    token: Option<&str>,
    context: &StateContext,
) -> Rejection {
    let mut result = InputRequiredResult::new();
    for question in envelope.state.questions() {
        let kept = envelope
            .asked
            .get(question.key)
            .cloned()
            .unwrap_or_default();
        let unsettled = question.unsettled(responses.get(question.key), kept.request.as_ref());
        let request = match kept.reask() {
            Some(request) => Ok(request),
            None => question.build(QuestionPrompt::message(kept.message())),
        };
        let request = request.map(|mut request| {
            if let Some(unsettled) = &unsettled {
                tell_why(&mut request, unsettled);
            }
            request
        });
        match request {
            Ok(request) => result = result.with_request(question.key, request),
            Err(err) => {
                return Rejection::Error(internal_error!(
                    error = %err,
                    "a question of a verified state cannot be asked again"
                ));
            }
        }
    }
    if context.consumed.is_some() {
        match seal(context, envelope) {
            Ok(token) => result = result.with_state(token),
            Err(err) => {
                return Rejection::Error(internal_error!(
                    error = %err,
                    "a verified state cannot be signed again"
                ));
            }
        }
    } else if let Some(token) = token {
        result = result.with_state(token.to_owned());
    }
    Rejection::InputRequired(Box::new(result))
}

/// Puts why `request` is asked again into its message, in the words of its form (field
/// titles where it has them), bounded whatever the client sent (see [`explain`]): after the
/// question's own message, or instead of the generic one when that was not kept. Only
/// elicitations carry a message a user reads; other questions are asked again as they were.
fn tell_why(request: &mut InputRequest, unsettled: &Unsettled) {
    let InputRequest::Elicitation(params) = request else {
        return;
    };
    let (message, form) = match params {
        ElicitRequestParams::Form {
            message,
            requested_schema,
            ..
        } => (message, Some(&*requested_schema)),
        ElicitRequestParams::Url { message, .. } => (message, None),
        _ => return,
    };
    let why = match unsettled {
        Unsettled::Missing => "No answer was received: please answer again.".to_owned(),
        Unsettled::Malformed(error) => format!(
            "The previous answer was not valid ({}). Please answer again.",
            explain(error, form)
        ),
    };
    *message = if message.is_empty() || message == REASK_MESSAGE {
        why
    } else {
        format!("{message}\n\n{why}")
    };
}

impl<S: Continuation> Round<S> {
    /// Where the conversation stands, with the answers its questions got; `None` on the
    /// first call.
    pub fn resume(&self) -> Option<S::Answered> {
        let answers = Answers::new(&self.responses, &self.asked);
        self.state
            .clone()
            .and_then(|state| state.answered(&answers))
    }

    /// The verified state without its answers; `None` on the first call.
    pub fn state(&self) -> Option<&S> {
        self.state.as_ref()
    }

    /// How many rounds came before this one.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Caps how many rounds this handler's request may ask, instead of the server's
    /// [`max_rounds`](crate::ServerBuilder::max_rounds) (at least one). The round number
    /// travels signed in the state, so a client cannot reset it.
    #[must_use]
    pub fn with_max_rounds(mut self, rounds: u32) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// The round cap in force.
    pub fn max_rounds(&self) -> u32 {
        self.max_rounds
    }

    /// What this request's client declared it can do.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.caps
    }

    /// Whether this request's client can answer a `T` (a form, a URL visit...). Check before
    /// acting: a question it cannot answer fails the request at [`ask`](Self::ask).
    pub fn can_ask<T: Awaitable>(&self) -> bool {
        T::KIND.supported_by(&self.caps)
    }

    /// Whether this request's client can answer a form (`elicitation`, form mode).
    pub fn can_ask_form(&self) -> bool {
        QuestionKind::Form.supported_by(&self.caps)
    }

    /// Whether this request's client can answer a URL visit (`elicitation.url`).
    pub fn can_ask_url(&self) -> bool {
        QuestionKind::Url.supported_by(&self.caps)
    }

    /// Asks the questions of the next state and moves to it; on any [`AskError`] the step
    /// fails the request with [`AskError::into_error`] (and the reason is logged).
    ///
    /// `asking` is a variant of the `<Enum>Asking` enum the derive generates: the next
    /// state's fields, and what each question it awaits is asked with, under its key (a
    /// [`Message`](super::Message) for a derived form, a [`Choice<T>`](super::Choice) from
    /// [`OneOf::prompt`](super::OneOf::prompt) for a `OneOf<T>`, a
    /// [`UrlVisitPrompt`](super::UrlVisitPrompt) from
    /// [`UrlVisit::prompt`](super::UrlVisit::prompt)...).
    ///
    /// ```
    /// use typemcp_server::state::{Continuation, OneOf, Round, Step, UrlVisit};
    /// use typemcp_server::ElicitForm;
    ///
    /// /// How to roll it out.
    /// #[derive(ElicitForm)]
    /// struct Rollout {
    ///     replicas: u8,
    /// }
    ///
    /// #[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
    /// enum Flow {
    ///     #[awaits(rollout: Rollout, region: OneOf<String>)]
    ///     Configuring { target: String },
    ///     #[awaits(approval: UrlVisit)]
    ///     Approving { change: u64 },
    /// }
    ///
    /// fn configure(round: &Round<Flow>, target: String) -> Step<Flow, String> {
    ///     let regions = [format!("{target}-eu"), format!("{target}-us")];
    ///     round.ask(FlowAsking::Configuring {
    ///         rollout: format!("How should {target} roll out?").into(),
    ///         region: OneOf::prompt("Which region?", regions),
    ///         target,
    ///     })
    /// }
    ///
    /// fn approve(round: &Round<Flow>, change: u64) -> Step<Flow, String> {
    ///     let url = format!("https://changes.example.com/c/{change}");
    ///     round.ask(FlowAsking::Approving { change, approval: UrlVisit::prompt("Approve it.", url) })
    /// }
    /// # let _ = (configure, approve);
    /// ```
    pub fn ask<T>(&self, asking: S::Asking) -> Step<S, T> {
        self.try_ask(asking).unwrap_or_else(|err| {
            match &err {
                AskError::TooManyRounds { max } => {
                    tracing::warn!(max_rounds = max, "a multi-round request went past its round limit");
                }
                AskError::MissingCapability { .. } => {
                    tracing::warn!(error = %err, "a multi-round handler asked what the client cannot answer");
                }
                _ => tracing::error!(error = %err, "a multi-round handler could not ask"),
            }
            Step::fail(err.into_error())
        })
    }

    /// Like [`ask`](Self::ask), but hands back why it cannot ask: the client lacks a
    /// capability, the round cap is reached, the state outgrew the size cap, or a question
    /// built at run time cannot be asked (options that cannot be offered, an empty URL). All
    /// of it is known before the handler returns.
    ///
    /// ```
    /// use typemcp_server::state::{AskError, Continuation, OneOf, Round, Step};
    ///
    /// #[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
    /// enum Flow {
    ///     #[awaits(region: OneOf<String>)]
    ///     Choosing,
    /// }
    ///
    /// /// Asks for a region among those free now; with none free, says so instead of failing.
    /// fn choose(round: &Round<Flow>, free: Vec<String>) -> Step<Flow, String> {
    ///     let region = OneOf::prompt("Which region?", free);
    ///     match round.try_ask(FlowAsking::Choosing { region }) {
    ///         Ok(step) => step,
    ///         Err(AskError::Question { .. }) => Step::done("No region is free."),
    ///         Err(err) => Step::fail(err.into_error()),
    ///     }
    /// }
    /// # let _ = choose;
    /// ```
    pub fn try_ask<T>(&self, asking: S::Asking) -> Result<Step<S, T>, AskError> {
        let round = self.round.saturating_add(1);
        if round > self.max_rounds {
            return Err(AskError::TooManyRounds {
                max: self.max_rounds,
            });
        }
        let (next, prompts) = S::split(asking);
        let questions = next.questions();
        if prompts.len() != questions.len() {
            let keys: Vec<&str> = questions.iter().map(|q| q.key).collect();
            return Err(AskError::question(
                &keys.join(", "),
                format!(
                    "{} prompts were given for {} questions (`Continuation::split` of a hand-written implementation)",
                    prompts.len(),
                    questions.len()
                ),
            ));
        }
        let keep_messages = self.context.signer.keeps_messages();
        let mut result = InputRequiredResult::new();
        let mut asked = BTreeMap::new();
        let (mut required, mut unanswerable) = (Map::new(), Vec::new());
        for (question, prompt) in questions.iter().zip(prompts) {
            let runtime = prompt.is_runtime();
            let request = question.build(prompt)?;
            if let Some(missing) = missing_capability(&request, &self.caps) {
                merge_capability(&mut required, missing);
                unanswerable.push(format!("`{}`", question.key));
            }
            let kept = Asked::new(&request, runtime, keep_messages);
            asked.insert(question.key.to_owned(), kept);
            result = result.with_request(question.key, request);
        }
        if !required.is_empty() {
            return Err(AskError::MissingCapability {
                keys: unanswerable.join(", "),
                required: Value::Object(required),
            });
        }
        let envelope = Envelope {
            version: S::VERSION.to_owned(),
            round,
            asked,
            state: next,
        };
        let token = seal(&self.context, &envelope)?;
        self.context.minted.checked();
        Ok(Step(StepKind::Ask(result.with_state(token)), PhantomData))
    }
}

/// Signs an envelope under the request's binding, refusing a state over the size cap.
pub(crate) fn seal<S: Serialize>(
    context: &StateContext,
    envelope: &Envelope<S>,
) -> Result<String, AskError> {
    let payload =
        serde_json::to_vec(envelope).map_err(|err| AskError::Serialize(err.to_string()))?;
    let token = context.minted.sign(context, &payload);
    let max = context.signer.state_bytes_cap();
    if token.len() > max {
        return Err(AskError::StateTooLarge {
            len: token.len(),
            max,
        });
    }
    Ok(token)
}

/// What a multi-round handler returns: done, failed, or asking for more. Built with
/// [`Step::done`], [`Step::fail`], or [`Round::ask`] (the only way to ask, so every asking
/// step carries a state `Round` can read back).
pub struct Step<S, T>(StepKind<T>, PhantomData<fn() -> S>);

/// The three ends of a step.
#[derive(Debug)]
enum StepKind<T> {
    Done(T),
    Ask(InputRequiredResult),
    Fail(McpError),
}

impl<S, T: std::fmt::Debug> std::fmt::Debug for Step<S, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl<S, T> Step<S, T> {
    /// Completes the request.
    pub fn done(value: impl Into<T>) -> Self {
        Self(StepKind::Done(value.into()), PhantomData)
    }

    /// Fails the request with `error`.
    pub fn fail(error: McpError) -> Self {
        Self(StepKind::Fail(error), PhantomData)
    }

    /// The error, when the step fails the request.
    pub fn error(&self) -> Option<&McpError> {
        match &self.0 {
            StepKind::Fail(err) => Some(err),
            _ => None,
        }
    }

    /// The questions and state, when the step asks.
    pub fn asking(&self) -> Option<&InputRequiredResult> {
        match &self.0 {
            StepKind::Ask(result) => Some(result),
            _ => None,
        }
    }

    /// The outcome of this step: `done` of a finished value, the questions, or the error.
    pub(crate) fn into_outcome<R>(
        self,
        done: impl FnOnce(T) -> Result<Outcome<R>, McpError>,
    ) -> Result<Outcome<R>, McpError> {
        match self.0 {
            StepKind::Done(value) => done(value),
            StepKind::Ask(result) => Ok(Outcome::InputRequired(result)),
            StepKind::Fail(err) => Err(err),
        }
    }
}
