//! Answering the server's questions: one trait, [`Answers`], for the questions of a
//! 2026-07-28 `input_required` round and for those a 2025-11-25 server pushes, a [`Reply`]
//! to one question (a form answered with the type that derived it), and [`Scripted`]
//! answers for tests.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::{Map, Value, json};
use typemcp_core::form::{ElicitForm, FormValidator};
use typemcp_core::protocol::{
    ClientCapabilities, ElicitRequestParams, ElicitationCapability, InputRequest, RequestedSchema,
};

use crate::error::ClientError;
use crate::transport::BoxFuture;

/// One question of the server's, as [`Answers`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// The key the server asked it under (a 2026-07-28 round); `None` for a question a
    /// 2025-11-25 server pushed, which has no key.
    pub key: Option<&'a str>,
    /// The round it was asked in, from 1; `None` for a pushed question.
    pub round: Option<u32>,
    /// What is asked.
    pub request: &'a InputRequest,
}

impl Question<'_> {
    /// How the question is named in errors: its key, else its method.
    pub fn name(&self) -> String {
        match (self.key, self.request) {
            (Some(key), _) => key.to_owned(),
            (None, InputRequest::Elicitation(_)) => "elicitation/create".to_owned(),
            (None, InputRequest::Sampling(_)) => "sampling/createMessage".to_owned(),
            (None, _) => "roots/list".to_owned(),
        }
    }

    /// The form the question asks to fill, if it is a form elicitation.
    pub fn form(&self) -> Option<&RequestedSchema> {
        match self.request {
            InputRequest::Elicitation(ElicitRequestParams::Form {
                requested_schema, ..
            }) => Some(requested_schema),
            _ => None,
        }
    }
}

/// Answers the server's questions, whatever the era: the client runs the rounds of
/// `input_required` results and answers a 2025-11-25 session's pushed requests with the
/// same implementation, so code using it never sees which the server speaks.
pub trait Answers: Send + Sync + 'static {
    /// The reply to `question`; an error fails the call that asked it.
    fn answer<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Result<Reply, ClientError>>;

    /// What the client declares it can answer: by default, elicitation in form and URL mode.
    fn capabilities(&self) -> ClientCapabilities {
        form_and_url()
    }
}

/// Elicitation in form and URL mode: what an answerer declares by default.
fn form_and_url() -> ClientCapabilities {
    let mut elicitation = ElicitationCapability::default();
    elicitation.form = Some(Map::new());
    elicitation.url = Some(Map::new());
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation = Some(elicitation);
    capabilities
}

/// A shared answerer answers as the one it shares, so a test can keep a handle on it (for
/// instance on a [`Scripted`] script, to read [`Scripted::asked`] after the call).
impl<A: Answers + ?Sized> Answers for Arc<A> {
    fn answer<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Result<Reply, ClientError>> {
        (**self).answer(question)
    }

    fn capabilities(&self) -> ClientCapabilities {
        (**self).capabilities()
    }
}

/// Answers nothing: every question fails its call (a client of servers that never ask). It
/// declares no capability, so a server that must ask says which capability is missing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAnswers;

impl Answers for NoAnswers {
    fn answer<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Result<Reply, ClientError>> {
        Box::pin(std::future::ready(Err(ClientError::Unanswered {
            question: question.name(),
            reason: "this client answers no questions".to_owned(),
        })))
    }

    fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities::default()
    }
}

/// The reply to one question.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply(ReplyKind);

#[derive(Debug, Clone, PartialEq)]
enum ReplyKind {
    /// A filled form, the fields of the form type it was written as (if typed), and whether
    /// it is checked against the form's constraints.
    Form {
        content: Map<String, Value>,
        typed: Option<(&'static str, BTreeSet<String>)>,
        checked: bool,
    },
    Decline,
    Cancel,
    /// A form accepted with the defaults it gives (SEP-1034).
    Defaults,
    /// A URL visited (accept without content).
    Visited,
    /// Any other response, as sent (sampling, roots).
    Raw(Value),
}

impl Reply {
    /// Accepts a form with `value`, of the [`ElicitForm`] type the server derived the form
    /// from. Before it goes out it is checked against the form the server sent: the form must
    /// have exactly the type's fields, and the value must meet the form's constraints.
    #[must_use]
    pub fn accept<T: ElicitForm + Serialize>(value: &T) -> Self {
        Self::typed_form(value, true)
    }

    /// Accepts a form with `content` as it is (still checked against the form's constraints).
    #[must_use]
    pub fn accept_content(content: Map<String, Value>) -> Self {
        Self(ReplyKind::Form {
            content,
            typed: None,
            checked: true,
        })
    }

    /// Accepts a form with `value`, like [`Reply::accept`], but sends it without checking it
    /// against the form's constraints (the form must still have the type's fields): to test
    /// how a server treats an answer that breaks its form (it should ask again, saying why).
    ///
    /// ```
    /// use typemcp_client::{Reply, Scripted};
    /// # #[derive(typemcp_server::ElicitForm, serde::Serialize)]
    /// # struct Region { region: String }
    /// // "mars" is not a region the form offers: the server should ask again.
    /// let mars = Reply::accept_unchecked(&Region { region: "mars".into() });
    /// let script = Scripted::new().reply_in(2, "region", mars);
    /// # let _ = script;
    /// ```
    #[must_use]
    pub fn accept_unchecked<T: ElicitForm + Serialize>(value: &T) -> Self {
        Self::typed_form(value, false)
    }

    /// A form answered with `value`, of the form type `T`.
    fn typed_form<T: ElicitForm + Serialize>(value: &T, checked: bool) -> Self {
        let fields = T::requested_schema().properties.keys().cloned().collect();
        let typed = Some((std::any::type_name::<T>(), fields));
        Self(ReplyKind::Form {
            content: content_of(value),
            typed,
            checked,
        })
    }

    /// Accepts a form with the `default` of each of its fields that has one (the fields
    /// without a default are left out), as a user who changes nothing would (SEP-1034).
    #[must_use]
    pub fn accept_defaults() -> Self {
        Self(ReplyKind::Defaults)
    }

    /// Declines the question.
    #[must_use]
    pub fn decline() -> Self {
        Self(ReplyKind::Decline)
    }

    /// Cancels the question.
    #[must_use]
    pub fn cancel() -> Self {
        Self(ReplyKind::Cancel)
    }

    /// Says the user visited the URL of a URL elicitation.
    #[must_use]
    pub fn visited() -> Self {
        Self(ReplyKind::Visited)
    }

    /// Any response as it is (a `CreateMessageResult`, a `ListRootsResult`).
    #[must_use]
    pub fn raw(response: Value) -> Self {
        Self(ReplyKind::Raw(response))
    }

    /// The response to `question`, checked against it.
    pub(crate) fn respond(self, question: &Question<'_>) -> Result<Value, ClientError> {
        let unfit = |reason: String| ClientError::Unanswered {
            question: question.name(),
            reason,
        };
        match (self.0, question.request) {
            (ReplyKind::Raw(value), _) => Ok(value),
            (ReplyKind::Decline, InputRequest::Elicitation(_)) => Ok(json!({"action": "decline"})),
            (ReplyKind::Cancel, InputRequest::Elicitation(_)) => Ok(json!({"action": "cancel"})),
            (ReplyKind::Defaults, InputRequest::Elicitation(_)) => {
                let Some(form) = question.form() else {
                    return Err(unfit("a URL visit was answered with a form".to_owned()));
                };
                let content = defaults_of(form);
                check_content(form, &content).map_err(unfit)?;
                Ok(json!({"action": "accept", "content": content}))
            }
            (ReplyKind::Visited, InputRequest::Elicitation(ElicitRequestParams::Url { .. })) => {
                Ok(json!({"action": "accept"}))
            }
            (
                ReplyKind::Form {
                    content,
                    typed,
                    checked,
                },
                InputRequest::Elicitation(_),
            ) => {
                let Some(form) = question.form() else {
                    return Err(unfit("a URL visit was answered with a form".to_owned()));
                };
                if let Some((type_name, fields)) = typed {
                    let asked: BTreeSet<String> = form.properties.keys().cloned().collect();
                    if asked != fields {
                        return Err(unfit(format!(
                            "answered with {type_name} (fields {fields:?}), but the form has fields {asked:?}"
                        )));
                    }
                }
                if checked {
                    check_content(form, &content).map_err(unfit)?;
                }
                Ok(json!({"action": "accept", "content": content}))
            }
            (_, _) => Err(unfit(
                "the reply is not one to this kind of question".to_owned(),
            )),
        }
    }

    /// Whether this reply answers any form without naming a type (a decline, a cancel, the
    /// form's defaults, content as it is).
    fn is_untyped_form_reply(&self) -> bool {
        matches!(
            self.0,
            ReplyKind::Decline
                | ReplyKind::Cancel
                | ReplyKind::Defaults
                | ReplyKind::Form { typed: None, .. }
        )
    }

    /// The form fields of the type this reply was written as, if it is a typed form.
    fn typed_fields(&self) -> Option<&BTreeSet<String>> {
        match &self.0 {
            ReplyKind::Form {
                typed: Some((_, fields)),
                ..
            } => Some(fields),
            _ => None,
        }
    }
}

/// The `default` of each field of `form` that has one.
fn defaults_of(form: &RequestedSchema) -> Map<String, Value> {
    form.properties
        .iter()
        .filter_map(|(name, field)| {
            let mut field = serde_json::to_value(field).ok()?;
            let default = field.get_mut("default").map(Value::take)?;
            Some((name.clone(), default))
        })
        .collect()
}

/// The fields of `value` as a form's content.
fn content_of<T: Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(content)) => content,
        _ => Map::new(),
    }
}

/// Checks `content` against `form`: no field the form lacks, and every constraint met.
fn check_content(form: &RequestedSchema, content: &Map<String, Value>) -> Result<(), String> {
    if let Some(extra) = content.keys().find(|k| !form.properties.contains_key(*k)) {
        return Err(format!("the form has no field {extra:?}"));
    }
    let problems = FormValidator::new(form).check(content);
    if problems.is_empty() {
        return Ok(());
    }
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    Err(format!(
        "the answer breaks the form: {}",
        problems.join("; ")
    ))
}

/// Answers scripted ahead, for tests: each reply answers one question, matched by its key
/// (and round, when given); a question a 2025-11-25 server pushes, which has no key, takes
/// the first reply whose form type has the form's fields, else the first reply that names no
/// type (a decline, a cancel, [`Reply::accept_defaults`], [`Reply::accept_content`]) in
/// script order; a URL visit takes the first [`Reply::visited`]. Each reply is used once. A
/// question no reply matches fails its call, naming it.
///
/// ```
/// use typemcp_client::{Reply, Scripted};
/// # #[derive(typemcp_server::ElicitForm, serde::Serialize)]
/// # struct Confirm { ok: bool }
/// let script = Scripted::new()
///     .reply("confirm", Reply::accept(&Confirm { ok: true }))
///     .reply_in(2, "region", Reply::decline());
/// # let _ = script;
/// ```
///
/// The script records every question it is asked ([`Scripted::asked`]), so a test shared
/// with the client through an [`Arc`] can check what the server asked, and in which round:
///
/// ```
/// use std::sync::Arc;
/// use typemcp_client::{Client, Scripted};
/// let script = Arc::new(Scripted::new());
/// let builder = Client::builder().answers(Arc::clone(&script));
/// // … connect, call; then:
/// assert!(script.asked().is_empty());
/// # let _ = builder;
/// ```
#[derive(Debug, Default)]
pub struct Scripted {
    replies: Mutex<Vec<ScriptLine>>,
    otherwise: Option<Reply>,
    asked: Mutex<Vec<Asked>>,
    declared: Option<ClientCapabilities>,
}

/// A question a [`Scripted`] script was asked, as it came.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    /// Its key in a 2026-07-28 round; `None` for a question a 2025-11-25 server pushed.
    pub key: Option<String>,
    /// Its round, from 1; `None` for a pushed question.
    pub round: Option<u32>,
    /// What was asked.
    pub request: InputRequest,
}

impl Asked {
    /// The message shown to the user, for an elicitation (form or URL).
    pub fn message(&self) -> Option<&str> {
        match &self.request {
            InputRequest::Elicitation(
                ElicitRequestParams::Form { message, .. }
                | ElicitRequestParams::Url { message, .. },
            ) => Some(message),
            _ => None,
        }
    }

    /// The form asked to fill, for a form elicitation.
    pub fn form(&self) -> Option<&RequestedSchema> {
        match &self.request {
            InputRequest::Elicitation(ElicitRequestParams::Form {
                requested_schema, ..
            }) => Some(requested_schema),
            _ => None,
        }
    }

    /// The URL to visit, for a URL elicitation.
    pub fn url(&self) -> Option<&str> {
        match &self.request {
            InputRequest::Elicitation(ElicitRequestParams::Url { url, .. }) => Some(url),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct ScriptLine {
    key: String,
    round: Option<u32>,
    reply: Reply,
}

impl Scripted {
    /// No replies yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers the question under `key` with `reply`, in whichever round it comes.
    #[must_use]
    pub fn reply(self, key: impl Into<String>, reply: Reply) -> Self {
        self.push(key.into(), None, reply)
    }

    /// Answers the question under `key` of round `round` (from 1) with `reply`.
    #[must_use]
    pub fn reply_in(self, round: u32, key: impl Into<String>, reply: Reply) -> Self {
        self.push(key.into(), Some(round), reply)
    }

    fn push(self, key: String, round: Option<u32>, reply: Reply) -> Self {
        self.replies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(ScriptLine { key, round, reply });
        self
    }

    /// Answers every question no reply matches with `reply` (for instance
    /// [`Reply::accept_defaults`]), as often as it comes, instead of failing the call.
    #[must_use]
    pub fn otherwise(mut self, reply: Reply) -> Self {
        self.otherwise = Some(reply);
        self
    }

    /// Declares `capabilities` instead of form and URL elicitation: to test how a server
    /// treats a client that cannot answer everything (for instance one without URL mode).
    #[must_use]
    pub fn declaring(mut self, capabilities: ClientCapabilities) -> Self {
        self.declared = Some(capabilities);
        self
    }

    /// Every question asked so far, in the order asked (answered or not). The script keeps
    /// them all for its life: it is a test helper, for a test's few calls.
    pub fn asked(&self) -> Vec<Asked> {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// How many replies no question has taken yet.
    pub fn unused(&self) -> usize {
        self.replies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    fn take(&self, question: &Question<'_>) -> Option<Reply> {
        let mut replies = self
            .replies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let found = match question.key {
            Some(key) => replies.iter().position(|r| {
                r.key == key && r.round.is_none_or(|round| Some(round) == question.round)
            }),
            // A pushed question has no key: a form takes the first reply typed with its
            // fields, a URL visit the first `visited()`.
            None => match (question.form(), question.request) {
                (Some(form), _) => {
                    let asked: BTreeSet<String> = form.properties.keys().cloned().collect();
                    replies
                        .iter()
                        .position(|r| r.reply.typed_fields() == Some(&asked))
                        .or_else(|| replies.iter().position(|r| r.reply.is_untyped_form_reply()))
                }
                (None, InputRequest::Elicitation(ElicitRequestParams::Url { .. })) => {
                    replies.iter().position(|r| r.reply.0 == ReplyKind::Visited)
                }
                (None, _) => None,
            },
        }?;
        Some(replies.remove(found).reply)
    }
}

impl Answers for Scripted {
    fn answer<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Result<Reply, ClientError>> {
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(Asked {
                key: question.key.map(str::to_owned),
                round: question.round,
                request: question.request.clone(),
            });
        let reply = self.take(&question).or_else(|| self.otherwise.clone());
        let reply = reply.ok_or_else(|| ClientError::Unanswered {
            question: question.name(),
            reason: match question.round {
                Some(round) => format!("the script has no reply for it in round {round}"),
                None => "the script has no reply of a form type with these fields".to_owned(),
            },
        });
        Box::pin(std::future::ready(reply))
    }

    fn capabilities(&self) -> ClientCapabilities {
        match &self.declared {
            Some(declared) => declared.clone(),
            None => form_and_url(),
        }
    }
}
