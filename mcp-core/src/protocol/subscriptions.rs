//! `subscriptions/listen`: the long-lived request that carries change notifications.

use serde::{Deserialize, Serialize};

use super::{Meta, ResultType};

/// Which notifications a listener wants. Every kind is opt-in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// `notifications/tasks` for these task ids (the tasks extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// The params of `subscriptions/listen` (without `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListenParams {
    /// What to listen for.
    #[serde(default)]
    pub notifications: SubscriptionFilter,
}

/// The params of `notifications/subscriptions/acknowledged`, the first message of a listen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionAcknowledgedParams {
    /// The subset of the filter the server honours.
    pub notifications: SubscriptionFilter,
    /// Metadata (carries `io.modelcontextprotocol/subscriptionId`). Written only when not
    /// empty: a server that takes it out ([`HasMeta::take_meta`](super::HasMeta::take_meta))
    /// writes it itself.
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}

/// The final response of a listen the server ends gracefully.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubscriptionsListenResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// Metadata (carries `io.modelcontextprotocol/subscriptionId`). Written only when not
    /// empty: a server that takes it out ([`HasMeta::take_meta`](super::HasMeta::take_meta))
    /// writes it itself.
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
}
