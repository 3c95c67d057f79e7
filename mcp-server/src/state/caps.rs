//! Which client capability each kind of question needs: the one table behind
//! [`Round::can_ask`](super::Round::can_ask), the check `Round::ask` makes before it returns,
//! and the gate every `input_required` result passes on its way out.

use serde_json::{Value, json};
use typemcp_core::protocol::{ClientCapabilities, ElicitRequestParams, InputRequest};

/// The kinds of question a client may be able to answer, each behind its own capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QuestionKind {
    /// A form (`elicitation/create`, form mode): needs `elicitation` (`{}` means form only).
    Form,
    /// A URL to visit (`elicitation/create`, URL mode): needs `elicitation.url`.
    Url,
    /// The client's model (`sampling/createMessage`, deprecated): needs `sampling`.
    Sampling,
    /// The client's roots (`roots/list`, deprecated): needs `roots`.
    Roots,
}

impl QuestionKind {
    /// Whether a client that declared `caps` can answer a question of this kind.
    pub fn supported_by(self, caps: &ClientCapabilities) -> bool {
        match self {
            Self::Form => caps.supports_elicitation_form(),
            Self::Url => caps.supports_elicitation_url(),
            Self::Sampling => caps.supports_sampling(),
            Self::Roots => caps.supports_roots(),
        }
    }

    /// The capability it needs, as a `ClientCapabilities` fragment.
    pub fn capability(self) -> Value {
        match self {
            Self::Form => json!({ "elicitation": { "form": {} } }),
            Self::Url => json!({ "elicitation": { "url": {} } }),
            Self::Sampling => json!({ "sampling": {} }),
            Self::Roots => json!({ "roots": {} }),
        }
    }
}

/// The capability an input request needs, as a `ClientCapabilities` fragment, when the
/// client did not declare it.
pub(crate) fn missing_capability(
    request: &InputRequest,
    caps: &ClientCapabilities,
) -> Option<Value> {
    let kind = match request {
        InputRequest::Elicitation(ElicitRequestParams::Url { .. }) => QuestionKind::Url,
        InputRequest::Elicitation(_) => QuestionKind::Form,
        InputRequest::Sampling(params) => {
            if !caps.supports_sampling() {
                return Some(QuestionKind::Sampling.capability());
            }
            let with_tools = params.tools.is_some() || params.tool_choice.is_some();
            if with_tools && caps.sampling.as_ref().is_none_or(|s| s.tools.is_none()) {
                return Some(json!({ "sampling": { "tools": {} } }));
            }
            return None;
        }
        InputRequest::ListRoots(_) => QuestionKind::Roots,
        _ => return None,
    };
    (!kind.supported_by(caps)).then(|| kind.capability())
}

/// Adds the fragment `from` into `into` (objects merged key by key, first value kept).
pub(crate) fn merge_capability(into: &mut serde_json::Map<String, Value>, from: Value) {
    if let Value::Object(from) = from {
        for (key, value) in from {
            let slot = into.entry(key).or_insert_with(|| json!({}));
            if let (Value::Object(slot), Value::Object(value)) = (slot, value) {
                for (k, v) in value {
                    slot.entry(k).or_insert(v);
                }
            }
        }
    }
}
