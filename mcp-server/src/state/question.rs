//! What a multi-round handler can ask, and what it reads back: the [`Awaitable`] trait (each
//! kind knows how to build its own input request, what it is asked with, and how to read its
//! own answer), the [`Message`] that questions whose shape their type fixes are asked with,
//! the type-erased [`QuestionPrompt`] every question is carried as at run time, the static
//! [`Question`] slots a state enum lists, the [`Reply`] a handler matches on, and why asking
//! can fail ([`AskError`]).

use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::form::{Answer, FormError};
use typemcp_core::protocol::{InputRequest, RequestedSchema};

use super::caps::QuestionKind;

/// Something a multi-round handler can ask the client for, and read back typed.
///
/// Each kind builds its own input request, so a type can only be sent the way it is answered,
/// and names what it is asked with ([`AskedWith`](Self::AskedWith)): the field of the
/// `<Enum>Asking` variant that the `Continuation` derive generates for it has that type, so a
/// question asked the wrong way does not compile.
///
/// | awaited type | sent as | asked with ([`AskedWith`](Self::AskedWith)) |
/// |---|---|---|
/// | a form (`#[derive(ElicitForm)]`) | `elicitation/create`, form mode, the derived schema | a [`Message`] (`"text".into()`) |
/// | [`UrlVisit`](super::UrlVisit) | `elicitation/create`, URL mode | a [`UrlVisitPrompt`](super::UrlVisitPrompt): [`UrlVisit::prompt(message, url)`](super::UrlVisit::prompt) |
/// | [`OneOf<T>`](super::OneOf) | a one-field form whose options are given at run time | a [`Choice<T>`](super::Choice): [`OneOf::prompt`](super::OneOf::prompt) or [`OneOf::titled`](super::OneOf::titled), options of type `T` |
/// | [`DynamicForm`](super::DynamicForm) | a form whose schema is built at run time | a [`DynamicFormPrompt`](super::DynamicFormPrompt): [`DynamicForm::prompt(message, schema)`](super::DynamicForm::prompt) |
/// | `Sampled`, `Roots` (deprecated) | `sampling/createMessage`, `roots/list` | a [`Message`] (ignored by `Roots`) |
///
/// `#[awaits(key: T)]` requires `T: Awaitable`, so a type that cannot be asked does not
/// compile.
///
/// ```
/// use typemcp_server::ElicitForm;
/// use typemcp_server::state::{Awaitable, Choice, Message, OneOf, UrlVisit, UrlVisitPrompt};
///
/// /// Confirm.
/// #[derive(ElicitForm)]
/// struct Confirm {
///     ok: bool,
/// }
///
/// // What the `<Enum>Asking` field of each key holds:
/// let confirm: <Confirm as Awaitable>::AskedWith = "Deploy?".into();
/// let _: Message = confirm;
/// let url = "https://changes.example.com/c/1";
/// let approval: <UrlVisit as Awaitable>::AskedWith = UrlVisit::prompt("Approve it.", url);
/// let _: UrlVisitPrompt = approval;
/// let replicas: <OneOf<u8> as Awaitable>::AskedWith = OneOf::prompt("How many?", [1, 2, 3]);
/// let _: Choice<u8> = replicas;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be awaited: it is not a question a multi-round handler can ask",
    label = "not a question",
    note = "an awaited answer is a form (`#[derive(ElicitForm)]`), a URL visit (`UrlVisit`), a choice among options given at run time (`OneOf<T>`), a form built at run time (`DynamicForm`), or the deprecated `Sampled` / `Roots`"
)]
pub trait Awaitable: Sized {
    /// The capability-bearing kind of question it is.
    const KIND: QuestionKind;

    /// What the question is asked with: a [`Message`] when the type fixes the question's
    /// shape, or the whole question built per call ([`Choice<T>`](super::Choice),
    /// [`UrlVisitPrompt`](super::UrlVisitPrompt), [`DynamicFormPrompt`](super::DynamicFormPrompt)).
    type AskedWith: Into<QuestionPrompt>;

    /// The input request asking it under `key`, built from what the handler gave (a
    /// [`QuestionPrompt`] made from an [`AskedWith`](Self::AskedWith)).
    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError>;

    /// Reads the `inputResponses` entry that answers it; `asked` is the request as it was
    /// sent when the signed state kept it (questions built at run time always keep it).
    fn read(response: Option<&Value>, asked: Option<&InputRequest>) -> Answer<Self>;
}

/// The message text a question whose shape its type fixes is asked with: a derived form
/// (its schema is the type's own), or the deprecated sampling and roots kinds.
///
/// Built from a `&str`, a `String` or a `&String`, usually with `.into()`:
///
/// ```
/// use typemcp_server::state::Message;
///
/// let target = "staging";
/// let message: Message = format!("Deploy to {target}?").into();
/// assert_eq!(message.text(), "Deploy to staging?");
/// assert_eq!(Message::from("Sure?").text(), "Sure?");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Message(String);

impl Message {
    /// A message of `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The text shown to the user.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_text(self) -> String {
        self.0
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        Self(text.to_owned())
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Self(text)
    }
}

impl From<&String> for Message {
    fn from(text: &String) -> Self {
        Self(text.clone())
    }
}

impl From<Message> for QuestionPrompt {
    fn from(message: Message) -> Self {
        Self(PromptKind::Message(message.0))
    }
}

/// One question as it is carried at run time, whatever its kind: what an
/// [`Awaitable::AskedWith`] value turns into. The typed API never shows it; a hand-written
/// [`Continuation`](super::Continuation) returns one per question from
/// [`Continuation::split`](super::Continuation::split), made with `.into()` from a
/// [`Message`], a [`Choice<T>`](super::Choice), a [`UrlVisitPrompt`](super::UrlVisitPrompt)
/// or a [`DynamicFormPrompt`](super::DynamicFormPrompt).
///
/// ```
/// use typemcp_server::state::{Message, OneOf, QuestionPrompt, UrlVisit};
///
/// let prompts: Vec<QuestionPrompt> = vec![
///     Message::from("Deploy to staging?").into(),
///     UrlVisit::prompt("Approve the change.", "https://changes.example.com/c/42").into(),
///     OneOf::prompt("How many replicas?", [1u8, 2, 3]).into(),
/// ];
/// assert_eq!(prompts[0].text(), "Deploy to staging?");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionPrompt(pub(crate) PromptKind);

/// The shapes of a [`QuestionPrompt`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PromptKind {
    /// A message only.
    Message(String),
    /// A URL to visit.
    Url { message: String, url: String },
    /// A form with a schema built at run time.
    Form {
        message: String,
        schema: RequestedSchema,
    },
    /// One choice among options built at run time (`(value, label)` pairs).
    Choice {
        message: String,
        options: Vec<(String, Option<String>)>,
        answer_type: &'static str,
    },
    /// A question that could not be built (reported when it is asked).
    Invalid(String),
}

impl QuestionPrompt {
    /// A message, for a form derived from a type (its schema is the type's) or the
    /// deprecated sampling and roots kinds.
    pub(crate) fn message(text: impl Into<String>) -> Self {
        Self(PromptKind::Message(text.into()))
    }

    /// The text shown to the user (empty for a question that could not be built).
    pub fn text(&self) -> &str {
        match &self.0 {
            PromptKind::Message(message)
            | PromptKind::Url { message, .. }
            | PromptKind::Form { message, .. }
            | PromptKind::Choice { message, .. } => message,
            PromptKind::Invalid(_) => "",
        }
    }

    /// Whether the whole question is built at run time (then the signed state keeps it, to
    /// ask it again and to check its answer).
    pub(crate) fn is_runtime(&self) -> bool {
        !matches!(self.0, PromptKind::Message(_))
    }

    /// What kind of prompt this is, for error messages.
    pub(crate) fn describe(&self) -> &'static str {
        match &self.0 {
            PromptKind::Message(_) => "a message",
            PromptKind::Url { .. } => "a URL (`UrlVisit::prompt`)",
            PromptKind::Form { .. } => "a form schema (`DynamicForm::prompt`)",
            PromptKind::Choice { .. } => "options (`OneOf::prompt`)",
            PromptKind::Invalid(_) => "an invalid question",
        }
    }
}

/// One question a state waits for: its key in `inputRequests` / `inputResponses`, its kind,
/// and how to build it. The `Continuation` derive lists them; a hand-written implementation
/// builds them with [`Question::of`].
#[derive(Clone, Copy)]
pub struct Question {
    /// The key in `inputRequests` / `inputResponses`.
    pub key: &'static str,
    kind: QuestionKind,
    build: fn(&str, QuestionPrompt) -> Result<InputRequest, AskError>,
    unsettled: fn(Option<&Value>, Option<&InputRequest>) -> Option<Unsettled>,
}

/// Why an awaited answer cannot be read, so its question is asked again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Unsettled {
    /// No answer came under the question's key.
    Missing,
    /// The answer broke the question's rules.
    Malformed(FormError),
}

/// Why the answer `response` to a question answered with a `T` cannot be read; `None` when
/// it is settled (accepted, declined or cancelled).
fn unsettled<T: Awaitable>(
    response: Option<&Value>,
    asked: Option<&InputRequest>,
) -> Option<Unsettled> {
    match T::read(response, asked) {
        Answer::Missing => Some(Unsettled::Missing),
        Answer::Malformed(error) => Some(Unsettled::Malformed(error)),
        Answer::Accepted(_) | Answer::Declined | Answer::Cancelled => None,
    }
}

debug_fields!(Question, key, kind);

impl Question {
    /// The question `key`, answered with a `T`.
    pub fn of<T: Awaitable>(key: &'static str) -> Self {
        Self {
            key,
            kind: T::KIND,
            build: T::request,
            unsettled: unsettled::<T>,
        }
    }

    /// Its kind (the capability it needs).
    pub fn kind(&self) -> QuestionKind {
        self.kind
    }

    /// Why `response` does not settle it (`asked`: the request kept for a question built at
    /// run time); `None` when it does.
    pub(crate) fn unsettled(
        &self,
        response: Option<&Value>,
        asked: Option<&InputRequest>,
    ) -> Option<Unsettled> {
        (self.unsettled)(response, asked)
    }

    /// The input request asking it with `prompt`.
    pub(crate) fn build(&self, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        (self.build)(self.key, prompt)
    }
}

/// An answer as a multi-round handler sees it: accepted (typed and checked), declined or
/// cancelled. A missing or malformed answer never reaches it: `Round` asks again by itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<T> {
    /// The user answered; the value passed every check of the question.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the question without choosing.
    Cancelled,
}

impl<T> Reply<T> {
    /// The settled answer, or `None` for a missing or malformed one.
    pub fn settled(answer: Answer<T>) -> Option<Self> {
        match answer {
            Answer::Accepted(value) => Some(Self::Accepted(value)),
            Answer::Declined => Some(Self::Declined),
            Answer::Cancelled => Some(Self::Cancelled),
            _ => None,
        }
    }

    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(value) => Some(value),
            Self::Declined | Self::Cancelled => None,
        }
    }

    /// Whether the user answered.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Self::Accepted(_))
    }
}

impl<T> From<Reply<T>> for Answer<T> {
    fn from(reply: Reply<T>) -> Self {
        match reply {
            Reply::Accepted(value) => Self::Accepted(value),
            Reply::Declined => Self::Declined,
            Reply::Cancelled => Self::Cancelled,
        }
    }
}

/// Why [`Round::try_ask`](super::Round::try_ask) (or `InputResponses::ask`) could not ask:
/// found before the handler returns, so it can still act on it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// This request's client did not declare what a question needs.
    #[error("this request's client cannot answer {keys}: it did not declare {required}")]
    MissingCapability {
        /// The keys of the questions it cannot answer.
        keys: String,
        /// The capabilities needed, as a `ClientCapabilities` fragment.
        required: Value,
    },
    /// The signed state would exceed the signer's size cap.
    #[error(
        "the next requestState would have {len} bytes, more than the {max} allowed (RequestStateSigner::max_state_bytes)"
    )]
    StateTooLarge {
        /// Its length.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// The request already asked as many rounds as its cap allows.
    #[error("a request may ask at most {max} rounds (max_rounds)")]
    TooManyRounds {
        /// The cap.
        max: u32,
    },
    /// A question cannot be asked as given. Through the derived `<Enum>Asking` only what is
    /// built at run time can be wrong: options that are none, offered twice, or not a
    /// string, number or boolean ([`OneOf::prompt`](super::OneOf::prompt)), or an empty URL
    /// ([`UrlVisit::prompt`](super::UrlVisit::prompt)). A hand-written
    /// [`Continuation`](super::Continuation) can also hand over a prompt of another kind than
    /// its question is asked with, or not one prompt per question.
    #[error("question `{key}`: {reason}")]
    Question {
        /// The question's key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// The state could not be serialized.
    #[error("the state could not be serialized: {0}")]
    Serialize(String),
}

impl AskError {
    /// A question-shape error.
    pub(crate) fn question(key: &str, reason: impl Into<String>) -> Self {
        Self::Question {
            key: key.to_owned(),
            reason: reason.into(),
        }
    }

    /// `prompt` is not how the question `key` is asked; it needs `needs`.
    pub(crate) fn wrong_prompt(key: &str, needs: &str, prompt: &QuestionPrompt) -> Self {
        match &prompt.0 {
            PromptKind::Invalid(reason) => Self::question(key, reason.clone()),
            _ => Self::question(
                key,
                format!("it is asked with {needs}, not {}", prompt.describe()),
            ),
        }
    }

    /// The JSON-RPC error the request fails with: `-32021` naming the missing capability,
    /// `-32600` past the round cap, `-32603` (naming the cap) for an outgrown state, and a
    /// plain `-32603` for a mistake in the handler (its details go to the log).
    pub fn into_error(self) -> McpError {
        match self {
            Self::MissingCapability { required, .. } => {
                McpError::missing_client_capability(required)
            }
            Self::TooManyRounds { .. } => {
                McpError::invalid_request("Too many rounds for one request")
            }
            Self::StateTooLarge { len, max } => McpError::internal(format!(
                "Internal error: the request state outgrew its cap ({len} bytes, {max} allowed)"
            )),
            // Logged by the caller, at the level it chooses (`Round::ask`, `Inputs::ask`).
            Self::Question { .. } | Self::Serialize(_) => crate::error::hidden(),
        }
    }
}

/// Compile-time checks the `Continuation` derive emits. Not a public API.
#[doc(hidden)]
pub mod derive_support {
    use std::marker::PhantomData;

    use typemcp_core::form::UrlElicitation;

    /// Stands for an awaited type, so a method can be chosen by type.
    #[derive(Debug)]
    pub struct AwaitedProbe<T>(PhantomData<fn() -> T>);

    impl<T> Default for AwaitedProbe<T> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<T> AwaitedProbe<T> {
        /// A probe for `T`.
        pub const fn new() -> Self {
            Self(PhantomData)
        }
    }

    /// Every awaited type passes, but for the inherent method below.
    pub trait Askable {
        /// Accepts the type.
        fn askable(&self, _: ()) {}
    }

    impl<T> Askable for AwaitedProbe<T> {}

    /// `UrlElicitation` is a form to `typemcp-core` (its schema is empty) but a URL question to
    /// the user: awaited, it would send an empty form. The inherent method shadows the
    /// trait's for that one type, and its argument's bound fails with the message below.
    impl AwaitedProbe<UrlElicitation> {
        /// Refuses the type.
        pub fn askable(&self, _: impl UrlElicitationIsNotAwaitable) {}
    }

    /// Never implemented.
    #[diagnostic::on_unimplemented(
        message = "`UrlElicitation` cannot be awaited: it would be sent as an empty form",
        label = "await `UrlVisit` instead",
        note = "`UrlVisit` is the URL-mode question: ask it with `UrlVisit::prompt(message, url)`; an accepted answer means the user consented to go"
    )]
    pub trait UrlElicitationIsNotAwaitable {}
}
