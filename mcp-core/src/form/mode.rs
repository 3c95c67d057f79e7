//! URL-mode elicitation, and choosing between form and URL mode from what the client
//! declared on this very request.

use super::ElicitForm;
use crate::protocol::{ClientCapabilities, ElicitRequestParams, InputRequest, RequestedSchema};

/// The two ways of asking the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitationMode {
    /// A form the client renders.
    Form,
    /// A URL the user visits (for secrets, payments, sign-ins: never put those in a form).
    Url,
}

/// The mode to use: `preferred` when the client declared it, otherwise the other mode when
/// declared, otherwise `None` (the client cannot be asked; a handler that cannot go on
/// without an answer fails with `-32021`). `elicitation: {}` means form mode only.
///
/// ```
/// use typemcp_core::form::{choose_mode, ElicitationMode};
/// let caps = serde_json::from_value(serde_json::json!({"elicitation": {}})).unwrap();
/// assert_eq!(choose_mode(&caps, ElicitationMode::Url), Some(ElicitationMode::Form));
/// ```
pub fn choose_mode(
    caps: &ClientCapabilities,
    preferred: ElicitationMode,
) -> Option<ElicitationMode> {
    let supported = |mode| match mode {
        ElicitationMode::Form => caps.supports_elicitation_form(),
        ElicitationMode::Url => caps.supports_elicitation_url(),
    };
    let other = match preferred {
        ElicitationMode::Form => ElicitationMode::Url,
        ElicitationMode::Url => ElicitationMode::Form,
    };
    [preferred, other].into_iter().find(|m| supported(*m))
}

/// A URL-mode question: send the user to `url`. An `accept` answer means the user
/// consented to go, not that the visit is done: check that out of band.
///
/// ```
/// use typemcp_core::form::{Answer, UrlElicitation};
/// let ask = UrlElicitation::new("Complete the payment to continue.", "https://pay.example.com/s/8f3a");
/// let request = ask.into_request();
/// let answer = serde_json::json!({"action": "accept"});
/// assert!(matches!(Answer::<UrlElicitation>::read(Some(&answer)), Answer::Accepted(_)));
/// # let _ = request;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlElicitation {
    /// Why the user should go there.
    pub message: String,
    /// Where to go (HTTPS, no credentials or personal data in it).
    pub url: String,
}

impl UrlElicitation {
    /// A URL-mode question.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            url: url.into(),
        }
    }

    /// The input request to send.
    pub fn into_request(self) -> InputRequest {
        InputRequest::Elicitation(ElicitRequestParams::url(self.message, self.url))
    }
}

/// The answer to a URL-mode question carries no content: accepting means consenting.
impl ElicitForm for UrlElicitation {
    fn requested_schema() -> RequestedSchema {
        RequestedSchema::default()
    }

    fn from_content(
        _content: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, super::FormError> {
        Ok(Self::new("", ""))
    }
}

/// The form-mode input request asking for `T`.
pub fn form_request<T: ElicitForm>(message: impl Into<String>) -> InputRequest {
    InputRequest::Elicitation(ElicitRequestParams::form(message, T::requested_schema()))
}
