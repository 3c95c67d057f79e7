//! `subscriptions/listen`: acknowledge first, then forward the changes the client asked
//! for, each tagged with the subscription id, until the client goes away or the server
//! shuts down (then the listen request completes gracefully). Tasks named in `taskIds` are
//! watched as `task_watch` describes; a request naming more of them than the server's
//! [`max_listen_task_ids`](crate::ServerBuilder::max_listen_task_ids) is refused with
//! `-32602` before any is looked up.

use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use typemcp_core::McpError;
use typemcp_core::protocol::{
    ListChangedParams, ListenParams, Meta, ResourceUpdatedParams, ServerCapabilities,
    SubscriptionAcknowledgedParams, SubscriptionFilter, SubscriptionsListenResult, TASKS_EXTENSION,
    meta_keys, methods,
};

use super::parse_params;
use super::task_watch::{TaskWatch, undeclared};
use crate::outbound::Outbound;
use crate::server::Change;
use crate::subscription::{MAX_SUBSCRIPTION_URI_BYTES, covers};
use crate::{RequestContext, Server};

/// The most resources one `subscriptions/listen` watches (each change is matched against
/// every one of them).
pub(crate) const MAX_LISTEN_RESOURCES: usize = 256;

impl Server {
    pub(super) async fn listen(
        &self,
        ctx: RequestContext,
        params: typemcp_core::jsonrpc::Params,
        caps: &ServerCapabilities,
    ) -> Result<SubscriptionsListenResult, McpError> {
        let params: ListenParams = parse_params(&params)?;
        let max_ids = self.tasks().settings.max_listen_task_ids;
        if let Some(ids) = &params.notifications.task_ids
            && ids.len() > max_ids
        {
            tracing::debug!(ids = ids.len(), max_ids, "a listen names too many taskIds");
            return Err(McpError::invalid_params(format!(
                "Too many taskIds: a subscriptions/listen may name at most {max_ids} tasks"
            )));
        }
        if let Some(uris) = &params.notifications.resource_subscriptions
            && (uris.len() > MAX_LISTEN_RESOURCES
                || uris
                    .iter()
                    .any(|uri| uri.len() > MAX_SUBSCRIPTION_URI_BYTES))
        {
            tracing::debug!(
                uris = uris.len(),
                "a listen names too many or too long resources"
            );
            return Err(McpError::invalid_params(format!(
                "Too many resourceSubscriptions: a subscriptions/listen may name at most \
                 {MAX_LISTEN_RESOURCES} resources, each URI at most \
                 {MAX_SUBSCRIPTION_URI_BYTES} bytes long"
            )));
        }
        if matches!(ctx.outbound(), Outbound::Discard) {
            return Err(McpError::invalid_request(
                "subscriptions/listen needs a streaming response (Accept: text/event-stream)",
            ));
        }
        let mut honoured = honour(&params.notifications, caps);
        let offers_tasks = caps
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        let mut watch = TaskWatch::default();
        if let Some(ids) = params
            .notifications
            .task_ids
            .as_deref()
            .filter(|ids| !ids.is_empty())
        {
            if !ctx
                .client_capabilities()
                .declares_extension(TASKS_EXTENSION)
            {
                return Err(undeclared());
            }
            if offers_tasks {
                watch = TaskWatch::start(self, &ctx, ids).await;
                honoured.task_ids = Some(watch.ids());
            }
        }
        let mut meta = Meta::new();
        meta.insert(
            meta_keys::SUBSCRIPTION_ID.to_owned(),
            serde_json::to_value(ctx.request_id()).unwrap_or(Value::Null),
        );
        // Subscribe before acknowledging, so no change between the two is lost.
        let mut changes = self.subscribe_changes();
        let mut task_changes = self.tasks().subscribe();
        let mut task_poll = tokio::time::interval(self.tasks().settings.poll_interval);
        task_poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let ack = SubscriptionAcknowledgedParams {
            notifications: honoured.clone(),
            meta: meta.clone(),
        };
        if !ctx
            .outbound()
            .notify(methods::SUBSCRIPTIONS_ACKNOWLEDGED, &ack)
            .await
        {
            return Err(internal_error!(
                "the acknowledgement of a subscription could not be sent (no stream to send it on)"
            ));
        }
        loop {
            let change = tokio::select! {
                () = ctx.cancellation().cancelled() => break,
                // A graceful shutdown ends listens first, as it starts.
                () = self.draining_token().cancelled() => break,
                change = changes.recv() => change,
                // Tasks: changed here (announced), or elsewhere (seen at the next poll).
                changed = task_changes.recv(), if !watch.is_empty() => {
                    let concerned = match &changed {
                        Ok(id) => watch.watches(id),
                        Err(RecvError::Lagged(_)) => true,
                        Err(RecvError::Closed) => false,
                    };
                    if concerned && !watch.report(self, &ctx, &meta).await {
                        break;
                    }
                    continue;
                }
                _ = task_poll.tick(), if !watch.is_empty() => {
                    if !watch.report(self, &ctx, &meta).await {
                        break;
                    }
                    continue;
                }
            };
            let sent = match change {
                Ok(change) => forward(&ctx, &honoured, &meta, &change).await,
                // Some changes were missed: tell the listener every list may have changed.
                Err(RecvError::Lagged(_)) => {
                    let mut ok = true;
                    for change in Change::LISTS {
                        ok &= forward(&ctx, &honoured, &meta, &change).await;
                    }
                    ok
                }
                Err(RecvError::Closed) => break,
            };
            if !sent {
                break;
            }
        }
        let mut result = SubscriptionsListenResult::default();
        result.meta = meta;
        Ok(result)
    }
}

/// The part of the client's filter this server can honour. Opt-in kinds the client did
/// not ask for are never included.
fn honour(wanted: &SubscriptionFilter, caps: &ServerCapabilities) -> SubscriptionFilter {
    let on = |asked: Option<bool>, offered: bool| (asked == Some(true) && offered).then_some(true);
    let resources = caps.resources.as_ref();
    let mut honoured = SubscriptionFilter::default();
    honoured.tools_list_changed = on(
        wanted.tools_list_changed,
        caps.tools
            .as_ref()
            .is_some_and(|t| t.list_changed == Some(true)),
    );
    honoured.prompts_list_changed = on(
        wanted.prompts_list_changed,
        caps.prompts
            .as_ref()
            .is_some_and(|p| p.list_changed == Some(true)),
    );
    honoured.resources_list_changed = on(
        wanted.resources_list_changed,
        resources.is_some_and(|r| r.list_changed == Some(true)),
    );
    honoured.resource_subscriptions = wanted
        .resource_subscriptions
        .clone()
        .filter(|uris| !uris.is_empty() && resources.is_some_and(|r| r.subscribe == Some(true)));
    honoured
}

/// Sends the notification for `change` if the listener asked for it. Returns false when
/// the listener's stream is gone.
async fn forward(
    ctx: &RequestContext,
    filter: &SubscriptionFilter,
    meta: &Meta,
    change: &Change,
) -> bool {
    let list_changed = |method: &'static str| {
        (
            method,
            serde_json::to_value(ListChangedParams {
                meta: Some(meta.clone()),
            }),
        )
    };
    let (method, params) = match change {
        Change::ToolsListChanged if filter.tools_list_changed == Some(true) => {
            list_changed(methods::TOOLS_LIST_CHANGED)
        }
        Change::PromptsListChanged if filter.prompts_list_changed == Some(true) => {
            list_changed(methods::PROMPTS_LIST_CHANGED)
        }
        Change::ResourcesListChanged if filter.resources_list_changed == Some(true) => {
            list_changed(methods::RESOURCES_LIST_CHANGED)
        }
        Change::ResourceUpdated(uri) if subscribed(filter, uri) => (
            methods::RESOURCES_UPDATED,
            serde_json::to_value(ResourceUpdatedParams {
                uri: uri.clone(),
                meta: Some(meta.clone()),
            }),
        ),
        _ => return true,
    };
    match params {
        Ok(params) => ctx.outbound().notify(method, &params).await,
        Err(_) => true,
    }
}

/// A change to `uri` concerns a subscription to it or to a parent of it.
fn subscribed(filter: &SubscriptionFilter, uri: &str) -> bool {
    filter
        .resource_subscriptions
        .iter()
        .flatten()
        .any(|sub| covers(sub, uri))
}

#[cfg(test)]
mod tests {
    use super::*;
    use typemcp_core::protocol::ResourcesCapability;

    #[test]
    fn honours_only_what_was_asked_and_offered() {
        let caps: ServerCapabilities = serde_json::from_value(serde_json::json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true}
        }))
        .expect("capabilities");
        let mut wanted = SubscriptionFilter::default();
        wanted.tools_list_changed = Some(true);
        wanted.prompts_list_changed = Some(false);
        wanted.resources_list_changed = Some(true);
        wanted.resource_subscriptions = Some(vec!["a://x".into()]);
        let got = honour(&wanted, &caps);
        assert_eq!(got.tools_list_changed, Some(true));
        assert_eq!(got.prompts_list_changed, None);
        assert_eq!(got.resources_list_changed, None);
        assert_eq!(got.resource_subscriptions, None);
        let mut caps = caps;
        let mut resources = ResourcesCapability::default();
        resources.subscribe = Some(true);
        resources.list_changed = Some(true);
        caps.resources = Some(resources);
        assert_eq!(
            honour(&wanted, &caps).resource_subscriptions,
            Some(vec!["a://x".to_string()])
        );
    }

    #[test]
    fn sub_resources_match_their_parent_subscription() {
        let mut filter = SubscriptionFilter::default();
        filter.resource_subscriptions = Some(vec!["file:///docs".into()]);
        assert!(subscribed(&filter, "file:///docs"));
        assert!(subscribed(&filter, "file:///docs/a.txt"));
        assert!(!subscribed(&filter, "file:///docs2"));
    }
}
