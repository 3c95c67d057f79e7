//! Multi round-trip requests (SEP-2322): `InputRequiredResult` and the input requests it names.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{CreateMessageParams, ElicitRequestParams, Meta, ResultType};

/// Keeps an explicit `null` distinguishable from an absent member.
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// A request the server wants the client to fulfil before it retries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "method", content = "params")]
#[non_exhaustive]
pub enum InputRequest {
    /// Ask the user (`elicitation/create`).
    #[serde(rename = "elicitation/create")]
    Elicitation(ElicitRequestParams),
    /// Ask the client's model (`sampling/createMessage`, deprecated).
    #[serde(rename = "sampling/createMessage")]
    Sampling(CreateMessageParams),
    /// Ask for the client's roots (`roots/list`, deprecated).
    #[serde(rename = "roots/list")]
    ListRoots(Map<String, Value>),
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;

        /// `{method, params?}`: `params` is optional for `roots/list`.
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let raw = Raw::deserialize(d)?;
        let params = raw.params.unwrap_or_else(|| Value::Object(Map::new()));
        match raw.method.as_str() {
            "elicitation/create" => serde_json::from_value(params).map(Self::Elicitation),
            "sampling/createMessage" => serde_json::from_value(params).map(Self::Sampling),
            "roots/list" => serde_json::from_value(params).map(Self::ListRoots),
            other => {
                return Err(D::Error::custom(format!(
                    "unknown input request method {other:?}"
                )));
            }
        }
        .map_err(D::Error::custom)
    }
}

impl InputRequest {
    /// The `roots/list` request (with empty params).
    pub fn list_roots() -> Self {
        Self::ListRoots(Map::new())
    }
}

/// Input requests by server-chosen key.
pub type InputRequests = IndexMap<String, InputRequest>;

/// The result of a `tools/call`, `prompts/get` or `resources/read` that needs input first.
///
/// ```
/// use typemcp_core::protocol::{InputRequiredResult, InputRequest};
/// let r = InputRequiredResult::new().with_request("roots", InputRequest::list_roots());
/// let json = serde_json::to_value(&r).unwrap();
/// assert_eq!(json["resultType"], "input_required");
/// assert_eq!(json["inputRequests"]["roots"]["method"], "roots/list");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// What the client must fulfil, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Default for InputRequiredResult {
    fn default() -> Self {
        Self::new()
    }
}

impl InputRequiredResult {
    /// An empty input-required result; add requests and/or state.
    pub fn new() -> Self {
        Self {
            result_type: ResultType::INPUT_REQUIRED,
            input_requests: None,
            request_state: None,
            meta: None,
        }
    }

    /// Adds an input request under `key`.
    #[must_use]
    pub fn with_request(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.input_requests
            .get_or_insert_with(IndexMap::new)
            .insert(key.into(), request);
        self
    }

    /// Sets the continuation state.
    #[must_use]
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

/// The result of a method that may ask for input: complete, or input required.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outcome<T> {
    /// The normal result.
    Complete(T),
    /// The client must fulfil input requests and retry.
    InputRequired(InputRequiredResult),
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let input_required =
            value.get("resultType").and_then(Value::as_str) == Some("input_required");
        if input_required {
            serde_json::from_value(value)
                .map(Self::InputRequired)
                .map_err(serde::de::Error::custom)
        } else {
            serde_json::from_value(value)
                .map(Self::Complete)
                .map_err(serde::de::Error::custom)
        }
    }
}
