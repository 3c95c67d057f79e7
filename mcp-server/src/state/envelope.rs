//! What travels inside a signed state minted by [`Round`](super::Round) or
//! [`InputResponses::ask`](super::InputResponses::ask): the state's version, the round
//! number, the questions it awaits (with what each was asked, as far as the server keeps it),
//! and the state itself.
//!
//! ```text
//! {"v": "<fingerprint>", "r": 2, "q": {"confirm": {"m": "Deploy?"}}, "s": <state>}
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use typemcp_core::form::Answer;
use typemcp_core::protocol::{ElicitRequestParams, InputRequest};

use super::question::{Awaitable, Reply};

/// The message a question is asked again with when its own was not kept in the state.
pub(crate) const REASK_MESSAGE: &str =
    "Please answer again: the previous answer was missing or not valid.";

/// The signed contents of a state.
#[derive(Serialize, Deserialize)]
pub(crate) struct Envelope<S> {
    /// The fingerprint of the state type (`Continuation::VERSION`); empty for untyped states.
    #[serde(rename = "v")]
    pub(crate) version: String,
    /// How many rounds this request has asked.
    #[serde(rename = "r")]
    pub(crate) round: u32,
    /// The awaited questions, by key.
    #[serde(rename = "q")]
    pub(crate) asked: BTreeMap<String, Asked>,
    /// The handler's state.
    #[serde(rename = "s")]
    pub(crate) state: S,
}

/// What the state keeps of one question.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Asked {
    /// The message it was asked with (kept when the signer keeps messages).
    #[serde(rename = "m", default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    /// The whole request, for a question built at run time (its options, schema or URL are
    /// needed to check the answer and to ask again).
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    pub(crate) request: Option<InputRequest>,
}

impl Asked {
    /// What to keep of a question asked with `message` as `request`.
    pub(crate) fn new(request: &InputRequest, runtime: bool, keep_message: bool) -> Self {
        let message = keep_message.then(|| message_of(request).to_owned());
        if runtime {
            let mut request = request.clone();
            if !keep_message {
                set_message(&mut request, String::new());
            }
            Self {
                message: None,
                request: Some(request),
            }
        } else {
            Self {
                message,
                request: None,
            }
        }
    }

    /// The kept request, asked again: with its own message when it was kept, else the
    /// generic one.
    pub(crate) fn reask(&self) -> Option<InputRequest> {
        let mut request = self.request.clone()?;
        if message_of(&request).is_empty() {
            set_message(&mut request, REASK_MESSAGE.to_owned());
        }
        Some(request)
    }

    /// The message to ask a type-built question again with.
    pub(crate) fn message(&self) -> String {
        self.message
            .clone()
            .unwrap_or_else(|| REASK_MESSAGE.to_owned())
    }
}

/// The user-facing text of a request (empty for roots).
fn message_of(request: &InputRequest) -> &str {
    match request {
        InputRequest::Elicitation(
            ElicitRequestParams::Form { message, .. } | ElicitRequestParams::Url { message, .. },
        ) => message,
        InputRequest::Sampling(params) => params
            .messages
            .first()
            .and_then(|m| m.content.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default(),
        _ => "",
    }
}

/// Replaces the user-facing text of an elicitation.
fn set_message(request: &mut InputRequest, text: String) {
    if let InputRequest::Elicitation(
        ElicitRequestParams::Form { message, .. } | ElicitRequestParams::Url { message, .. },
    ) = request
    {
        *message = text;
    }
}

/// The keys (and kept questions) of a verified payload, whatever its state type; `None` when
/// the payload is not an envelope (a state signed by hand through `RequestState`).
pub(crate) fn awaited(payload: &[u8]) -> Option<(u32, BTreeMap<String, Asked>)> {
    #[derive(Deserialize)]
    struct Header {
        #[serde(rename = "r")]
        round: u32,
        #[serde(rename = "q")]
        asked: BTreeMap<String, Asked>,
    }
    serde_json::from_slice::<Header>(payload)
        .ok()
        .map(|h| (h.round, h.asked))
}

/// The newest round's answers, with what the state kept of each question: what the
/// `Continuation` derive reads each awaited answer from.
#[derive(Debug, Clone, Copy)]
pub struct Answers<'a> {
    responses: &'a Map<String, Value>,
    asked: &'a BTreeMap<String, Asked>,
}

impl<'a> Answers<'a> {
    pub(crate) fn new(
        responses: &'a Map<String, Value>,
        asked: &'a BTreeMap<String, Asked>,
    ) -> Self {
        Self { responses, asked }
    }

    /// The answer under `key`, read as a `T`: `None` when it is missing or malformed.
    pub fn read<T: Awaitable>(&self, key: &str) -> Option<Reply<T>> {
        Reply::settled(self.answer(key))
    }

    /// The answer under `key`, read as a `T`, with missing and malformed answers told apart.
    pub fn answer<T: Awaitable>(&self, key: &str) -> Answer<T> {
        let asked = self.asked.get(key).and_then(|a| a.request.as_ref());
        T::read(self.responses.get(key), asked)
    }
}
