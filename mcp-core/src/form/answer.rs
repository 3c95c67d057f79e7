//! Reading an elicitation answer: accepted (with a typed, validated value), declined,
//! cancelled, missing, or malformed.

use std::fmt;

use serde_json::Value;

use super::ElicitForm;
use crate::protocol::{ElicitAction, ElicitResult};

/// One problem with an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// The field concerned; `None` for the answer as a whole.
    pub field: Option<String>,
    /// What is wrong, in words.
    pub reason: String,
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "`{field}`: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

/// Why an answer could not be read. Lists every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FormError {
    problems: Vec<FieldProblem>,
}

impl FormError {
    /// An error with these problems.
    pub fn new(problems: Vec<FieldProblem>) -> Self {
        Self { problems }
    }

    /// An error about the answer as a whole.
    pub fn whole(reason: impl Into<String>) -> Self {
        Self::new(vec![FieldProblem {
            field: None,
            reason: reason.into(),
        }])
    }

    /// The problems.
    pub fn problems(&self) -> &[FieldProblem] {
        &self.problems
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let problems: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        write!(f, "invalid answer: {}", problems.join("; "))
    }
}

/// The answer to one form, read from the client's (untrusted) `inputResponses` entry.
///
/// ```
/// # use typemcp_core::form::{Answer, ElicitForm, FormError};
/// # use typemcp_core::protocol::RequestedSchema;
/// # struct Name(String);
/// # impl ElicitForm for Name {
/// #     fn requested_schema() -> RequestedSchema { RequestedSchema::default() }
/// #     fn from_content(c: &serde_json::Map<String, serde_json::Value>) -> Result<Self, FormError> {
/// #         c.get("name").and_then(|v| v.as_str()).map(|s| Name(s.into())).ok_or_else(|| FormError::whole("no name"))
/// #     }
/// # }
/// let answer = serde_json::json!({"action": "accept", "content": {"name": "Ann"}});
/// assert!(matches!(Answer::<Name>::read(Some(&answer)), Answer::Accepted(Name(n)) if n == "Ann"));
/// assert!(matches!(Answer::<Name>::read(None), Answer::Missing));
/// assert!(matches!(Answer::<Name>::read(Some(&serde_json::json!(12345))), Answer::Malformed(_)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<T> {
    /// The user submitted the form; the value passed every check.
    Accepted(T),
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the form without choosing.
    Cancelled,
    /// No answer was sent for this question (ask again).
    Missing,
    /// An answer was sent but is not a valid answer to this form (ask again, or fail).
    Malformed(FormError),
}

impl<T: ElicitForm> Answer<T> {
    /// Reads the `inputResponses` entry for one question, if there was one.
    pub fn read(response: Option<&Value>) -> Self {
        let Some(value) = response else {
            return Self::Missing;
        };
        let result: ElicitResult = match ElicitResult::deserialize_lenient(value) {
            Ok(result) => result,
            Err(err) => {
                return Self::Malformed(FormError::whole(format!(
                    "not an elicitation result: {err}"
                )));
            }
        };
        match result.action {
            ElicitAction::Decline => Self::Declined,
            ElicitAction::Cancel => Self::Cancelled,
            ElicitAction::Accept => {
                let content = result.content.unwrap_or_default();
                match T::from_content(&content) {
                    Ok(value) => Self::Accepted(value),
                    Err(err) => Self::Malformed(err),
                }
            }
        }
    }
}

impl<T> Answer<T> {
    /// Whether the question is settled (accepted, declined or cancelled), as opposed to an
    /// answer that is missing or malformed.
    pub fn is_settled(&self) -> bool {
        matches!(self, Self::Accepted(_) | Self::Declined | Self::Cancelled)
    }

    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(value) => Some(value),
            _ => None,
        }
    }
}

impl ElicitResult {
    /// Reads a client's elicitation result, ignoring members it does not know (such as a
    /// `_meta` or `resultType` from clients built against older shapes).
    fn deserialize_lenient(value: &Value) -> Result<Self, serde_json::Error> {
        <Self as serde::Deserialize>::deserialize(value)
    }
}
