//! Client and server capability objects.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

type JsonObject = Map<String, Value>;

/// What a client declares it supports, on each request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Roots (deprecated by SEP-2577; kept for the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Sampling (deprecated by SEP-2577; kept for the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation. `{}` means form mode only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Extensions by id, such as `io.modelcontextprotocol/tasks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

impl ClientCapabilities {
    /// Form-mode elicitation is declared (`elicitation: {}` or `elicitation.form`).
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// The extension `id` (such as `io.modelcontextprotocol/tasks`) is declared.
    ///
    /// ```
    /// use typemcp_core::protocol::{ClientCapabilities, TASKS_EXTENSION};
    /// let caps: ClientCapabilities =
    ///     serde_json::from_value(serde_json::json!({"extensions": {TASKS_EXTENSION: {}}})).unwrap();
    /// assert!(caps.declares_extension(TASKS_EXTENSION));
    /// assert!(!ClientCapabilities::default().declares_extension(TASKS_EXTENSION));
    /// ```
    pub fn declares_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }

    /// URL-mode elicitation is declared (`elicitation.url`).
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// Sampling is declared.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Roots are declared.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }
}

/// The roots capability (deprecated). `listChanged` is accepted for older clients.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// Legacy flag; ignored in 2026-07-28.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The sampling capability (deprecated).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Support for `includeContext` other than `"none"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Support for tool use in sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// The elicitation capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

/// What a server offers, returned by `server/discover`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Log notifications (deprecated by SEP-2577).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<LoggingCapability>,
    /// Argument completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<CompletionsCapability>,
    /// Prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Extensions by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

/// The logging capability: a free-form object (empty today).
pub type LoggingCapability = Map<String, Value>;

/// The completions capability: a free-form object (empty today).
pub type CompletionsCapability = Map<String, Value>;

/// The prompts capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptsCapability {
    /// `notifications/prompts/list_changed` is sent on `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The resources capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourcesCapability {
    /// `resourceSubscriptions` on `subscriptions/listen` are honoured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// `notifications/resources/list_changed` is sent on `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The tools capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolsCapability {
    /// `notifications/tools/list_changed` is sent on `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(v: Value) -> ClientCapabilities {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn bare_elicitation_means_form_only() {
        let c = caps(serde_json::json!({"elicitation": {}}));
        assert!(c.supports_elicitation_form());
        assert!(!c.supports_elicitation_url());
        let c = caps(serde_json::json!({"elicitation": {"url": {}}}));
        assert!(!c.supports_elicitation_form());
        assert!(c.supports_elicitation_url());
        let c = caps(serde_json::json!({"elicitation": {"url": {}, "form": {}}}));
        assert!(c.supports_elicitation_form() && c.supports_elicitation_url());
        assert!(!caps(serde_json::json!({})).supports_elicitation_form());
    }
}
