//! The tasks a `subscriptions/listen` stream watches (`notifications.taskIds`, the tasks
//! extension): each is read again when this instance changes it, and every poll interval
//! (another instance may have), and `notifications/tasks` carries its new state, until it
//! settles. All watched tasks are read in one batch ([`TaskStore::load_many`]: one round
//! trip to a shared store).
//!
//! [`TaskStore::load_many`]: crate::tasks::TaskStore::load_many

use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::protocol::{Meta, task_methods};

use crate::{RequestContext, Server};

/// Watched tasks, each with the version last reported.
#[derive(Debug, Default)]
pub(super) struct TaskWatch {
    tasks: Vec<(String, u64)>,
}

impl TaskWatch {
    /// Watches those of `ids` that exist and the caller may see; returns them (for the
    /// acknowledgement) with the watch.
    pub(super) async fn start(server: &Server, ctx: &RequestContext, ids: &[String]) -> Self {
        let owner = ctx.auth().map(|a| a.subject());
        let mut unique: Vec<String> = Vec::with_capacity(ids.len());
        for id in ids {
            if !unique.contains(id) {
                unique.push(id.clone());
            }
        }
        let found = match server.tasks().load_many(&unique, owner).await {
            Ok(found) => found,
            // Logged by the store; the listener watches nothing, as for unknown ids.
            Err(_) => return Self::default(),
        };
        let tasks = unique
            .into_iter()
            .zip(found)
            .filter_map(|(id, found)| {
                let (record, version) = found?;
                // A settled task has nothing more to report; its state is one tasks/get away.
                (!record.status.is_terminal()).then_some((id, version))
            })
            .collect();
        Self { tasks }
    }

    /// The ids watched.
    pub(super) fn ids(&self) -> Vec<String> {
        self.tasks.iter().map(|(id, _)| id.clone()).collect()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    pub(super) fn watches(&self, id: &str) -> bool {
        self.tasks.iter().any(|(known, _)| known == id)
    }

    /// Sends `notifications/tasks` for every watched task that changed since it was last
    /// reported, and stops watching those that settled or are gone. Returns false when the
    /// listener's stream is gone.
    pub(super) async fn report(
        &mut self,
        server: &Server,
        ctx: &RequestContext,
        meta: &Meta,
    ) -> bool {
        let owner = ctx.auth().map(|a| a.subject());
        let ids = self.ids();
        let found = match server.tasks().load_many(&ids, owner).await {
            Ok(found) => found,
            // The store failed: try again at the next poll.
            Err(_) => return true,
        };
        let mut kept = Vec::with_capacity(self.tasks.len());
        for ((id, reported), found) in std::mem::take(&mut self.tasks).into_iter().zip(found) {
            // Gone (expired) or never visible: no longer watched.
            let Some((record, version)) = found else {
                continue;
            };
            let settled = record.status.is_terminal();
            if version != reported && !notify(ctx, &record.into_detailed(), meta).await {
                return false;
            }
            if !settled {
                kept.push((id, version));
            }
        }
        self.tasks = kept;
        true
    }
}

/// `notifications/tasks` with the task as `tasks/get` shows it (without `resultType`), and
/// the subscription's `_meta`.
async fn notify<T: serde::Serialize>(ctx: &RequestContext, task: &T, meta: &Meta) -> bool {
    let params = match serde_json::to_value(task) {
        Ok(Value::Object(mut params)) => {
            params.remove("resultType");
            if let Ok(meta) = serde_json::to_value(meta) {
                params.insert("_meta".to_owned(), meta);
            }
            params
        }
        _ => {
            tracing::error!("a task could not be serialized for a notification");
            return true;
        }
    };
    ctx.outbound()
        .notify(task_methods::STATUS_NOTIFICATION, &params)
        .await
}

/// `taskIds` from a client that did not declare the tasks extension.
pub(super) fn undeclared() -> McpError {
    super::tasks::tasks_required()
}
