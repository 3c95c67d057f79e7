//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` answered
//! with a task handle instead of its result, which the client polls (`tasks/get`), feeds
//! input to (`tasks/update`) and cancels (`tasks/cancel`).
//!
//! Field names follow the extension's `schema/draft/schema.ts` (`ttlMs`, `pollIntervalMs`,
//! flat `Result & Task` results).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{InputRequests, Meta, ResultType};
use crate::McpError;

/// The extension's identifier, under `capabilities.extensions` on both sides.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The methods and notification of the tasks extension.
pub mod task_methods {
    /// Poll a task.
    pub const GET: &str = "tasks/get";
    /// Answer a task's input requests.
    pub const UPDATE: &str = "tasks/update";
    /// Ask a task to stop.
    pub const CANCEL: &str = "tasks/cancel";
    /// A task's new state, on a `subscriptions/listen` stream.
    pub const STATUS_NOTIFICATION: &str = "notifications/tasks";
    /// Whether `method` is one of the three `tasks/*` requests.
    pub fn is_task_request(method: &str) -> bool {
        matches!(method, GET | UPDATE | CANCEL)
    }
}

impl ResultType {
    /// The request goes on as a task (`CreateTaskResult`).
    pub const TASK: Self = Self(std::borrow::Cow::Borrowed("task"));
}

/// Where a task stands.
///
/// ```
/// use typemcp_core::protocol::TaskStatus;
/// assert_eq!(serde_json::to_string(&TaskStatus::InputRequired).unwrap(), "\"input_required\"");
/// assert!(TaskStatus::Cancelled.is_terminal());
/// assert!(!TaskStatus::Working.is_terminal());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The task waits for the client to answer its `inputRequests`.
    InputRequired,
    /// Finished with a result (a tool result with `isError: true` included).
    Completed,
    /// Ended by a JSON-RPC error.
    Failed,
    /// Cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// Completed, failed or cancelled: the task will not change any more.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// What every task carries (the `Task` interface).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// The task's identifier (unguessable).
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// What it is doing, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last change.
    pub last_updated_at: String,
    /// How long after creation the server keeps the task, in milliseconds (`null`: no limit).
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl Task {
    /// A task with the given identity, status and times, and nothing else.
    pub fn new(
        task_id: impl Into<String>,
        status: TaskStatus,
        created_at: impl Into<String>,
        last_updated_at: impl Into<String>,
        ttl_ms: Option<u64>,
    ) -> Self {
        Self {
            task_id: task_id.into(),
            status,
            status_message: None,
            created_at: created_at.into(),
            last_updated_at: last_updated_at.into(),
            ttl_ms,
            poll_interval_ms: None,
        }
    }
}

/// The answer to a request the server goes on with as a task: `resultType: "task"` and the
/// task, flat (no `task` wrapper).
///
/// ```
/// use typemcp_core::protocol::{CreateTaskResult, Task, TaskStatus};
/// let task = Task::new("t1", TaskStatus::Working, "2026-12-01T10:00:00.000Z",
///     "2026-12-01T10:00:00.000Z", Some(60_000));
/// let json = serde_json::to_value(CreateTaskResult::new(task)).unwrap();
/// assert_eq!(json["resultType"], "task");
/// assert_eq!(json["taskId"], "t1");
/// assert_eq!(json["ttlMs"], 60_000);
/// assert!(json.get("task").is_none() && json.get("requestState").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// Always `task`.
    pub result_type: ResultType,
    /// The task, flat.
    #[serde(flatten)]
    pub task: Task,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: Task) -> Self {
        Self {
            result_type: ResultType::TASK,
            task,
            meta: None,
        }
    }
}

/// What a task holds besides the `Task` fields, by status (the `DetailedTask` variants).
#[derive(Debug, Clone, PartialEq)]
pub enum TaskDetail {
    /// `working` or `cancelled`: nothing more.
    None,
    /// `input_required`: the requests still waiting for an answer, by key.
    InputRequests(InputRequests),
    /// `completed`: the original request's result.
    Result(Map<String, Value>),
    /// `failed`: the JSON-RPC error it ended with.
    Error(McpError),
}

/// A task with its status-specific fields inlined: the result of `tasks/get`
/// (`resultType: "complete"`) and the params of `notifications/tasks`.
///
/// ```
/// use typemcp_core::protocol::{DetailedTask, Task, TaskDetail, TaskStatus};
/// let task = Task::new("t1", TaskStatus::Failed, "2026-12-01T10:00:00Z", "2026-12-01T10:00:01Z", None);
/// let failed = DetailedTask::new(task, TaskDetail::Error(typemcp_core::McpError::internal("boom")));
/// let json = serde_json::to_value(&failed).unwrap();
/// assert_eq!(json["resultType"], "complete");
/// assert_eq!(json["error"]["code"], -32603);
/// assert!(json["ttlMs"].is_null());
/// assert!(json.get("result").is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DetailedTask {
    /// Always `complete` (the standard result of `tasks/get`).
    pub result_type: ResultType,
    /// The task.
    pub task: Task,
    /// Its status-specific fields.
    pub detail: TaskDetail,
    /// Metadata.
    pub meta: Option<Meta>,
}

impl DetailedTask {
    /// `task` with `detail`.
    pub fn new(task: Task, detail: TaskDetail) -> Self {
        Self {
            result_type: ResultType::COMPLETE,
            task,
            detail,
            meta: None,
        }
    }
}

impl Serialize for DetailedTask {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The wire shape: the task flat, one status-specific member at most.
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            result_type: &'a ResultType,
            #[serde(flatten)]
            task: &'a Task,
            #[serde(skip_serializing_if = "Option::is_none")]
            input_requests: Option<&'a InputRequests>,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a Map<String, Value>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a McpError>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a Meta>,
        }
        let (input_requests, result, error) = match &self.detail {
            TaskDetail::None => (None, None, None),
            TaskDetail::InputRequests(requests) => (Some(requests), None, None),
            TaskDetail::Result(result) => (None, Some(result), None),
            TaskDetail::Error(error) => (None, None, Some(error)),
        };
        Wire {
            result_type: &self.result_type,
            task: &self.task,
            input_requests,
            result,
            error,
            meta: self.meta.as_ref(),
        }
        .serialize(serializer)
    }
}

impl super::HasMeta for CreateTaskResult {
    fn meta_mut(&mut self) -> &mut Meta {
        self.meta.get_or_insert_with(Meta::new)
    }

    fn take_meta(&mut self) -> Option<Meta> {
        self.meta.take()
    }
}

impl super::HasMeta for DetailedTask {
    fn meta_mut(&mut self) -> &mut Meta {
        self.meta.get_or_insert_with(Meta::new)
    }

    fn take_meta(&mut self) -> Option<Meta> {
        self.meta.take()
    }
}

/// The params of `tasks/get` and `tasks/cancel` (without `_meta`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// The params of `tasks/update` (without `_meta`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// Answers to the task's outstanding input requests, by key.
    pub input_responses: Map<String, Value>,
}
