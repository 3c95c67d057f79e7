//! Calls that become tasks (the tasks extension, `io.modelcontextprotocol/tasks`): followed to
//! their end with `tasks/get`, their parked questions answered through `tasks/update`, and
//! cancelled with `tasks/cancel` when the caller gives up.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use typemcp_core::protocol::task_methods::{
    CANCEL as TASKS_CANCEL, GET as TASKS_GET, UPDATE as TASKS_UPDATE,
};
use typemcp_core::protocol::{InputRequests, TaskStatus};

use super::{Client, Era, parse};
use crate::error::ClientError;
use crate::transport::Notifier;

impl Client {
    /// Follows the task `created` announced until it ends: its questions answered through
    /// `tasks/update` (rounds counted on from `round`), its result parsed as `T`.
    pub(crate) async fn follow_task<T: DeserializeOwned>(
        &self,
        method: &str,
        created: Value,
        mut round: u32,
    ) -> Result<T, ClientError> {
        // The task's fields are flat in the result.
        let task = &created;
        let Some(task_id) = task
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(ClientError::Malformed {
                method: method.to_owned(),
                reason: "a task result without a task id".to_owned(),
            });
        };
        let mut interval = poll_interval(task);
        let mut watch = TaskWatch {
            cancel: Some((self.connection.notifier(), self.task_params(&task_id))),
        };
        let mut answered = std::collections::HashSet::new();
        let outcome = loop {
            tokio::time::sleep(interval).await;
            let mut polled = self.send(TASKS_GET, self.task_params_map(&task_id)).await?;
            interval = poll_interval(&polled);
            let status = polled.get_mut("status").map(Value::take);
            let status: TaskStatus = parse(TASKS_GET, status.unwrap_or(Value::Null))?;
            match status {
                TaskStatus::Working => {}
                TaskStatus::InputRequired => {
                    let asked = polled.get_mut("inputRequests").map(Value::take);
                    let asked: InputRequests = parse(TASKS_GET, asked.unwrap_or(Value::Null))?;
                    // `tasks/update` takes effect in time: a poll soon after may still show
                    // the questions just answered, which are not answered twice.
                    let new: Vec<_> = asked
                        .iter()
                        .filter(|(key, _)| !answered.contains(*key))
                        .collect();
                    if new.is_empty() {
                        continue;
                    }
                    if round >= self.max_rounds {
                        break Err(ClientError::TooManyRounds(self.max_rounds));
                    }
                    round += 1;
                    answered.extend(new.iter().map(|(key, _)| (*key).clone()));
                    let responses = self.answer_all(new, round).await?;
                    let mut params = self.task_params_map(&task_id);
                    params.insert("inputResponses".to_owned(), Value::Object(responses));
                    self.send(TASKS_UPDATE, params).await?;
                }
                TaskStatus::Completed => {
                    let result = polled.get_mut("result").map(Value::take);
                    break parse(method, result.unwrap_or(Value::Null));
                }
                TaskStatus::Failed => {
                    let error = polled.get_mut("error").map(Value::take);
                    break Err(match error.and_then(|e| serde_json::from_value(e).ok()) {
                        Some(error) => ClientError::Server(error),
                        None => ClientError::Malformed {
                            method: TASKS_GET.to_owned(),
                            reason: "a failed task without its error".to_owned(),
                        },
                    });
                }
                TaskStatus::Cancelled => break Err(ClientError::TaskCancelled { task_id }),
            }
        };
        // A task that ended needs no cancelling; one that asks more than the client answers
        // is still parked, and is cancelled.
        if !matches!(outcome, Err(ClientError::TooManyRounds(_))) {
            watch.cancel = None;
        }
        outcome
    }

    /// `{"taskId": …}`, with `_meta` on the 2026-07-28 wire, as a notification's params.
    fn task_params(&self, task_id: &str) -> Value {
        let mut params = self.task_params_map(task_id);
        if self.era == Era::Modern {
            params.insert("_meta".to_owned(), self.meta());
        }
        Value::Object(params)
    }

    fn task_params_map(&self, task_id: &str) -> Map<String, Value> {
        Map::from_iter([("taskId".to_owned(), json!(task_id))])
    }
}

/// How long to wait before polling a task again: the server's `pollIntervalMs` (in a task
/// or a `tasks/get` result), within 10 ms and 5 s; 500 ms when it gives none.
fn poll_interval(task: &Value) -> Duration {
    let millis = task
        .get("pollIntervalMs")
        .and_then(Value::as_u64)
        .unwrap_or(500);
    Duration::from_millis(millis.clamp(10, 5_000))
}

/// A task being followed: unless it ended, dropping it (the caller gave up) cancels the task
/// with `tasks/cancel`.
struct TaskWatch {
    cancel: Option<(Notifier, Value)>,
}

impl Drop for TaskWatch {
    fn drop(&mut self) {
        if let Some((notifier, params)) = self.cancel.take() {
            notifier.request_later(TASKS_CANCEL, params);
        }
    }
}
