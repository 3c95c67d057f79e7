//! The kinds of question: derived forms, URL visits ([`UrlVisit`]), choices and forms built
//! at run time ([`OneOf`], [`DynamicForm`]), and the deprecated [`Sampled`] and [`Roots`];
//! and what the kinds built per call are asked with ([`UrlVisitPrompt`], [`Choice`],
//! [`DynamicFormPrompt`]).

#![allow(deprecated)] // `Sampled` and `Roots` are defined here.

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use typemcp_core::form::{Answer, ElicitForm, FormError, FormValidator, form_request};
use typemcp_core::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult,
    EnumOption, InputRequest, ListRootsResult, PrimitiveSchemaDefinition, RequestedSchema,
    SamplingMessage, TitledSingleSelectEnumSchema, UntitledSingleSelectEnumSchema,
};

use super::caps::QuestionKind;
use super::question::{AskError, Awaitable, Message, PromptKind, QuestionPrompt};

/// A form derived from a type: asked with a message, its schema the type's own. (Not
/// suggested in diagnostics: a type that cannot be awaited is told so in `Awaitable`'s words.)
#[diagnostic::do_not_recommend]
impl<T: ElicitForm> Awaitable for T {
    const KIND: QuestionKind = QuestionKind::Form;

    type AskedWith = Message;

    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        match prompt.0 {
            PromptKind::Message(message) => Ok(form_request::<T>(message)),
            _ => Err(AskError::wrong_prompt(key, "a message", &prompt)),
        }
    }

    fn read(response: Option<&Value>, _asked: Option<&InputRequest>) -> Answer<Self> {
        Answer::read(response)
    }
}

/// Reads an elicitation result: its action and content, or why it is not one.
fn elicit_result(response: Option<&Value>) -> Result<Option<ElicitResult>, FormError> {
    response
        .map(|value| {
            <ElicitResult as serde::Deserialize>::deserialize(value)
                .map_err(|err| FormError::whole(format!("not an elicitation result: {err}")))
        })
        .transpose()
}

/// Reads a form-mode answer: declined, cancelled, or accepted with content that `accept`
/// turns into the typed value.
fn read_form<T>(
    response: Option<&Value>,
    accept: impl FnOnce(Map<String, Value>) -> Result<T, FormError>,
) -> Answer<T> {
    match elicit_result(response) {
        Ok(None) => Answer::Missing,
        Err(err) => Answer::Malformed(err),
        Ok(Some(result)) => match result.action {
            ElicitAction::Decline => Answer::Declined,
            ElicitAction::Cancel => Answer::Cancelled,
            ElicitAction::Accept => match accept(result.content.unwrap_or_default()) {
                Ok(value) => Answer::Accepted(value),
                Err(err) => Answer::Malformed(err),
            },
        },
    }
}

/// The schema of the form-mode request that was sent, when the state kept it.
fn asked_schema(asked: Option<&InputRequest>) -> Result<&RequestedSchema, FormError> {
    match asked {
        Some(InputRequest::Elicitation(ElicitRequestParams::Form {
            requested_schema, ..
        })) => Ok(requested_schema),
        _ => Err(FormError::whole(
            "no form was recorded for this question (read it through `Round` or `InputResponses`)",
        )),
    }
}

/// Checks `content` against the schema that was asked.
fn check_against(schema: &RequestedSchema, content: &Map<String, Value>) -> Result<(), FormError> {
    let problems = FormValidator::new(schema).check(content);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(FormError::new(problems))
    }
}

/// A URL-mode question: the user is sent to a URL (a sign-in, a payment, an approval page:
/// anything that must never pass through a form).
///
/// Ask it with [`UrlVisit::prompt`] (a [`UrlVisitPrompt`]). An accepted answer means the user
/// **consented to go**, not that the visit is done: check the outcome out of band (for
/// example, keyed by a handle in the state) before completing. The URL must not carry
/// credentials or personal data, and the client must have declared `elicitation.url`
/// ([`Round::can_ask_url`](super::Round::can_ask_url)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UrlVisit;

impl UrlVisit {
    /// The question: why the user should go, and where. An empty URL fails the request when
    /// it is asked ([`AskError::Question`], logged).
    ///
    /// ```
    /// use typemcp_server::state::UrlVisit;
    ///
    /// let visit = UrlVisit::prompt("Approve the change.", "https://changes.example.com/c/42");
    /// assert_eq!(visit.url(), "https://changes.example.com/c/42");
    /// ```
    pub fn prompt(message: impl Into<String>, url: impl Into<String>) -> UrlVisitPrompt {
        UrlVisitPrompt {
            message: message.into(),
            url: url.into(),
        }
    }
}

/// What a [`UrlVisit`] is asked with: why the user should go, and where. Built by
/// [`UrlVisit::prompt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlVisitPrompt {
    message: String,
    url: String,
}

impl UrlVisitPrompt {
    /// The text shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The URL the user is sent to.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl From<UrlVisitPrompt> for QuestionPrompt {
    fn from(visit: UrlVisitPrompt) -> Self {
        Self(PromptKind::Url {
            message: visit.message,
            url: visit.url,
        })
    }
}

impl Awaitable for UrlVisit {
    const KIND: QuestionKind = QuestionKind::Url;

    type AskedWith = UrlVisitPrompt;

    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        match prompt.0 {
            PromptKind::Url { message, url } if !url.is_empty() => Ok(InputRequest::Elicitation(
                ElicitRequestParams::url(message, url),
            )),
            PromptKind::Url { .. } => Err(AskError::question(key, "the URL is empty")),
            _ => Err(AskError::wrong_prompt(
                key,
                "a message and a URL (`UrlVisit::prompt`)",
                &prompt,
            )),
        }
    }

    fn read(response: Option<&Value>, _asked: Option<&InputRequest>) -> Answer<Self> {
        read_form(response, |_| Ok(Self))
    }
}

/// One choice among options given at run time (loaded from a database, computed per call),
/// read back as the typed option that was picked.
///
/// It is sent as a one-field form whose field is named like the question's key. Each option
/// is shown as its value's text (a string as is, a number or boolean as written in JSON), or
/// with a label ([`OneOf::titled`]); the answer must be one of the options, or `Round` asks
/// again. It is asked with a [`Choice<T>`] of the same `T`: options of another type do not
/// compile.
///
/// ```
/// use typemcp_server::state::{Continuation, OneOf, Reply, Round, Step};
///
/// #[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
/// enum Flow {
///     #[awaits(region: OneOf<String>)]
///     Choosing,
/// }
///
/// async fn pick(round: Round<Flow>) -> Step<Flow, String> {
///     match round.resume() {
///         None => {
///             let regions = vec!["eu-west".to_owned(), "us-east".to_owned()]; // from a database
///             round.ask(FlowAsking::Choosing { region: OneOf::prompt("Which region?", regions) })
///         }
///         Some(FlowAnswered::Choosing { region: Reply::Accepted(OneOf(region)) }) => {
///             Step::done(format!("Deploying to {region}."))
///         }
///         Some(FlowAnswered::Choosing { .. }) => Step::done("Cancelled."),
///     }
/// }
/// # let _ = pick;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OneOf<T>(pub T);

impl<T: Serialize + DeserializeOwned> OneOf<T> {
    /// The question: a message and the options, each shown as its value.
    ///
    /// Options that cannot be offered (none, one offered twice, one that does not serialize
    /// to a string, a number or a boolean) fail the request when it is asked
    /// ([`AskError::Question`], logged).
    ///
    /// ```
    /// use typemcp_server::state::{Choice, OneOf};
    ///
    /// let replicas: Choice<u8> = OneOf::prompt("How many replicas?", 1..=3);
    /// # let _ = replicas;
    /// ```
    pub fn prompt(message: impl Into<String>, options: impl IntoIterator<Item = T>) -> Choice<T> {
        Choice::new(Self::build(
            message.into(),
            options.into_iter().map(|o| (o, None)),
        ))
    }

    /// The question: a message and the options, each with a label.
    ///
    /// ```
    /// use typemcp_server::state::{Choice, OneOf};
    ///
    /// let region: Choice<String> = OneOf::titled(
    ///     "Which region?",
    ///     [("eu".to_owned(), "Europe"), ("us".to_owned(), "United States")],
    /// );
    /// # let _ = region;
    /// ```
    pub fn titled<L: Into<String>>(
        message: impl Into<String>,
        options: impl IntoIterator<Item = (T, L)>,
    ) -> Choice<T> {
        let options = options.into_iter().map(|(o, l)| (o, Some(l.into())));
        Choice::new(Self::build(message.into(), options))
    }

    fn build(
        message: String,
        options: impl Iterator<Item = (T, Option<String>)>,
    ) -> QuestionPrompt {
        let mut values: Vec<(String, Option<String>)> = Vec::new();
        for (option, label) in options {
            let value = match serde_json::to_value(&option) {
                Ok(Value::String(text)) => text,
                Ok(scalar @ (Value::Number(_) | Value::Bool(_))) => scalar.to_string(),
                Ok(_) | Err(_) => {
                    return QuestionPrompt(PromptKind::Invalid(
                        "each option must serialize to a string, a number or a boolean".into(),
                    ));
                }
            };
            if values.iter().any(|(v, _)| *v == value) {
                return QuestionPrompt(PromptKind::Invalid(format!(
                    "the option {value:?} is offered twice"
                )));
            }
            values.push((value, label));
        }
        if values.is_empty() {
            return QuestionPrompt(PromptKind::Invalid("no options to choose from".into()));
        }
        QuestionPrompt(PromptKind::Choice {
            message,
            options: values,
            answer_type: std::any::type_name::<T>(),
        })
    }

    /// The option a chosen value stands for: the value read as a JSON string, else as JSON.
    fn parse(value: &str) -> Result<T, FormError> {
        T::deserialize(Value::String(value.to_owned()))
            .or_else(|_| serde_json::from_str(value))
            .map_err(|err| {
                FormError::whole(format!("the choice {value:?} is not an option: {err}"))
            })
    }
}

/// What a [`OneOf<T>`] is asked with: a message and options of type `T`, built by
/// [`OneOf::prompt`] or [`OneOf::titled`]. Typed by `T`, so options of another type than the
/// awaited `OneOf<T>` do not compile; whether the options can be offered at all (some, each
/// once, each a string, number or boolean) is only known when it is asked.
pub struct Choice<T> {
    prompt: QuestionPrompt,
    options: PhantomData<fn() -> T>,
}

impl<T> Choice<T> {
    fn new(prompt: QuestionPrompt) -> Self {
        Self {
            prompt,
            options: PhantomData,
        }
    }

    /// The text shown to the user (empty when the options cannot be offered).
    pub fn message(&self) -> &str {
        self.prompt.text()
    }
}

impl<T> Clone for Choice<T> {
    fn clone(&self) -> Self {
        Self::new(self.prompt.clone())
    }
}

impl<T> std::fmt::Debug for Choice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Choice").field(&self.prompt).finish()
    }
}

impl<T> From<Choice<T>> for QuestionPrompt {
    fn from(choice: Choice<T>) -> Self {
        choice.prompt
    }
}

impl<T: Serialize + DeserializeOwned> Awaitable for OneOf<T> {
    const KIND: QuestionKind = QuestionKind::Form;

    type AskedWith = Choice<T>;

    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        let PromptKind::Choice {
            message,
            options,
            answer_type,
        } = prompt.0
        else {
            return Err(AskError::wrong_prompt(
                key,
                "options (`OneOf::prompt`)",
                &prompt,
            ));
        };
        if answer_type != std::any::type_name::<T>() {
            return Err(AskError::question(
                key,
                format!(
                    "it awaits `OneOf<{}>`, but the options are `{answer_type}`",
                    std::any::type_name::<T>()
                ),
            ));
        }
        let field = if options.iter().any(|(_, label)| label.is_some()) {
            let mut field = TitledSingleSelectEnumSchema::new();
            field.one_of = options
                .into_iter()
                .map(|(value, label)| EnumOption {
                    title: label.unwrap_or_else(|| value.clone()),
                    value,
                })
                .collect();
            PrimitiveSchemaDefinition::TitledSingleSelect(field)
        } else {
            let mut field = UntitledSingleSelectEnumSchema::new();
            field.values = options.into_iter().map(|(value, _)| value).collect();
            PrimitiveSchemaDefinition::UntitledSingleSelect(field)
        };
        let properties = [(key.to_owned(), field)].into_iter().collect();
        let schema = RequestedSchema::new(properties, vec![key.to_owned()]);
        Ok(InputRequest::Elicitation(ElicitRequestParams::form(
            message, schema,
        )))
    }

    fn read(response: Option<&Value>, asked: Option<&InputRequest>) -> Answer<Self> {
        read_form(response, |content| {
            let schema = asked_schema(asked)?;
            check_against(schema, &content)?;
            let field = schema.properties.keys().next();
            let chosen = field.and_then(|f| content.get(f)).and_then(Value::as_str);
            let chosen = chosen.ok_or_else(|| FormError::whole("no option was chosen"))?;
            Self::parse(chosen).map(OneOf)
        })
    }
}

/// The answer to a form whose schema is built at run time: its checked values, by field.
///
/// Ask it with [`DynamicForm::prompt`] (a [`DynamicFormPrompt`]); the answer is checked
/// against that schema (types, lengths, ranges, formats, choices, required fields) before the
/// handler sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DynamicForm(pub Map<String, Value>);

impl DynamicForm {
    /// The question: a message and the form's schema.
    ///
    /// ```
    /// use typemcp_server::state::DynamicForm;
    /// use typemcp_server::typemcp_core::protocol::{PrimitiveSchemaDefinition, RequestedSchema, StringSchema};
    ///
    /// let name = ("name".to_owned(), PrimitiveSchemaDefinition::String(StringSchema::new()));
    /// let schema = RequestedSchema::new([name].into_iter().collect(), vec!["name".to_owned()]);
    /// let form = DynamicForm::prompt("Who is it for?", schema);
    /// assert_eq!(form.schema().required, ["name"]);
    /// ```
    pub fn prompt(message: impl Into<String>, schema: RequestedSchema) -> DynamicFormPrompt {
        DynamicFormPrompt {
            message: message.into(),
            schema,
        }
    }
}

/// What a [`DynamicForm`] is asked with: a message and the form's schema. Built by
/// [`DynamicForm::prompt`].
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicFormPrompt {
    message: String,
    schema: RequestedSchema,
}

impl DynamicFormPrompt {
    /// The text shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The form's schema.
    pub fn schema(&self) -> &RequestedSchema {
        &self.schema
    }
}

impl From<DynamicFormPrompt> for QuestionPrompt {
    fn from(form: DynamicFormPrompt) -> Self {
        Self(PromptKind::Form {
            message: form.message,
            schema: form.schema,
        })
    }
}

impl Awaitable for DynamicForm {
    const KIND: QuestionKind = QuestionKind::Form;

    type AskedWith = DynamicFormPrompt;

    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        match prompt.0 {
            PromptKind::Form { message, schema } => Ok(InputRequest::Elicitation(
                ElicitRequestParams::form(message, schema),
            )),
            _ => Err(AskError::wrong_prompt(
                key,
                "a schema (`DynamicForm::prompt`)",
                &prompt,
            )),
        }
    }

    fn read(response: Option<&Value>, asked: Option<&InputRequest>) -> Answer<Self> {
        read_form(response, |content| {
            check_against(asked_schema(asked)?, &content)?;
            Ok(Self(content))
        })
    }
}

/// Reads a JSON answer that is not an elicitation result.
fn parse<T: DeserializeOwned, U>(json: Option<&Value>, what: &str, wrap: fn(T) -> U) -> Answer<U> {
    match json {
        None => Answer::Missing,
        Some(value) => T::deserialize(value).map_or_else(
            |err| Answer::Malformed(FormError::whole(format!("not a {what}: {err}"))),
            |value| Answer::Accepted(wrap(value)),
        ),
    }
}

/// The client's model's reply to a prompt (`sampling/createMessage`).
///
/// Deprecated by SEP-2577: new servers should call a model provider themselves. Kept so
/// 2026-07-28 clients that still offer sampling can be asked.
#[deprecated(note = "SEP-2577 deprecates sampling: call a model provider from the server instead")]
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled(pub CreateMessageResult);

impl Sampled {
    /// The token limit of the sampling requests built from a message.
    pub const MAX_TOKENS: u64 = 100;

    /// The sampling request for `message`.
    pub fn request(message: impl Into<String>) -> InputRequest {
        InputRequest::Sampling(CreateMessageParams::new(
            vec![SamplingMessage::user_text(message.into())],
            Self::MAX_TOKENS,
        ))
    }

    /// The reply's text.
    pub fn text(&self) -> &str {
        self.0.text().unwrap_or_default()
    }
}

impl Awaitable for Sampled {
    const KIND: QuestionKind = QuestionKind::Sampling;

    type AskedWith = Message;

    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        match prompt.0 {
            PromptKind::Message(message) => Ok(Self::request(message)),
            _ => Err(AskError::wrong_prompt(key, "a message", &prompt)),
        }
    }

    fn read(response: Option<&Value>, _asked: Option<&InputRequest>) -> Answer<Self> {
        parse(response, "sampling result", Self)
    }
}

/// The client's roots (`roots/list`).
///
/// Deprecated by SEP-2577: take directories as tool arguments or configuration instead.
#[deprecated(
    note = "SEP-2577 deprecates roots: take directories as tool arguments or configuration instead"
)]
#[derive(Debug, Clone, PartialEq)]
pub struct Roots(pub ListRootsResult);

impl Roots {
    /// The `roots/list` request.
    pub fn request() -> InputRequest {
        InputRequest::list_roots()
    }
}

impl Awaitable for Roots {
    const KIND: QuestionKind = QuestionKind::Roots;

    /// The message is not sent: `roots/list` has none.
    type AskedWith = Message;

    fn request(key: &str, prompt: QuestionPrompt) -> Result<InputRequest, AskError> {
        match prompt.0 {
            PromptKind::Message(_) => Ok(InputRequest::list_roots()),
            _ => Err(AskError::wrong_prompt(
                key,
                "a message (it is ignored)",
                &prompt,
            )),
        }
    }

    fn read(response: Option<&Value>, _asked: Option<&InputRequest>) -> Answer<Self> {
        parse(response, "roots list", Self)
    }
}
