//! A task as the SDK stores it: what the wire shows (status, times, result or error, the
//! questions still open), plus what the server needs to go on with it on any instance: the
//! call to run again (only the arguments the tool declares, and only while the task is
//! live), the state its last round asked with, and whose task it is.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::{
    CreateTaskResult, DetailedTask, InputRequests, RequestMeta, Task, TaskDetail, TaskStatus,
};

use super::clock::iso8601;
use super::store::TaskEntry;

/// One task, as stored (JSON, in a [`TaskEntry`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskRecord {
    pub(crate) id: String,
    /// The tool the task runs.
    pub(crate) tool: String,
    /// The authenticated subject that created it (`None`: no authentication); only the same
    /// subject sees it.
    pub(crate) owner: Option<String>,
    /// The key of the caller whose quota of live tasks it counts against (see `quota`).
    #[serde(default)]
    pub(crate) caller: Option<String>,
    pub(crate) status: TaskStatus,
    pub(crate) status_message: Option<String>,
    pub(crate) created_ms: u64,
    pub(crate) updated_ms: u64,
    pub(crate) ttl_ms: u64,
    pub(crate) poll_interval_ms: u64,
    /// `completed`: the tool's result.
    pub(crate) result: Option<Map<String, Value>>,
    /// `failed`: the error.
    pub(crate) error: Option<McpError>,
    /// `input_required` (and while answers come in): the open round.
    pub(crate) input: Option<OpenRound>,
    /// The call ([`StoredCall`]), to run the handler again when a round is answered: kept as
    /// JSON text, read only then, so that polling a task does not parse it. Released
    /// (`None`) once the task settles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) call: Option<Box<RawValue>>,
    /// `working`: until when the instance running it vouches for it (it renews this while
    /// the handler runs). Past it, the instance is gone and the task has failed.
    pub(crate) lease_until_ms: Option<u64>,
    /// How many input rounds the task has asked.
    pub(crate) rounds: u32,
}

/// The questions of the round a task waits on, under keys unique over its lifetime.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OpenRound {
    /// Questions not answered yet, by wire key (`{round}.{handler key}`).
    pub(crate) pending: InputRequests,
    /// Answers received so far, by wire key.
    pub(crate) answers: Map<String, Value>,
    /// The state the handler asked with (signed; kept server-side, never shown).
    pub(crate) request_state: Option<String>,
}

/// What is needed to run the handler again.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoredCall {
    pub(crate) arguments: Value,
    pub(crate) meta: RequestMeta,
}

impl StoredCall {
    /// The call of a task of the tool whose input schema is `schema`: only the arguments it
    /// declares (the members of its top-level `properties`) are kept. Every member is kept
    /// (the call budget still bounds them) when the schema may admit others: without a
    /// `properties` object, with `additionalProperties`, `patternProperties` or
    /// `unevaluatedProperties` other than `false`, or when members may be declared elsewhere
    /// (`allOf`, `anyOf`, `oneOf`, `$ref`, `if`/`then`/`else`, `dependentSchemas`), as in
    /// the schema of a tagged enum.
    pub(crate) fn declared(
        schema: &Map<String, Value>,
        mut arguments: Map<String, Value>,
        meta: RequestMeta,
    ) -> Self {
        const OPEN: [&str; 3] = [
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
        ];
        const COMPOSED: [&str; 8] = [
            "allOf",
            "anyOf",
            "oneOf",
            "$ref",
            "if",
            "then",
            "else",
            "dependentSchemas",
        ];
        let admits_others = OPEN.iter().any(|keyword| {
            schema
                .get(*keyword)
                .is_some_and(|v| *v != Value::Bool(false))
        }) || COMPOSED.iter().any(|keyword| schema.contains_key(*keyword));
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        match schema.get("properties").and_then(Value::as_object) {
            _ if admits_others => {}
            Some(declared) => arguments.retain(|name, _| declared.contains_key(name)),
            // `additionalProperties: false` and no properties: nothing is admitted.
            None if closed => arguments.clear(),
            None => {}
        }
        Self {
            arguments: Value::Object(arguments),
            meta,
        }
    }

    /// The call as stored in a record.
    pub(crate) fn to_raw(&self) -> Result<Box<RawValue>, McpError> {
        serde_json::value::to_raw_value(self)
            .map_err(|err| internal_error!(error = %err, "a task's call could not be serialized"))
    }

    /// The call a record holds.
    pub(crate) fn from_raw(raw: &RawValue) -> Result<Self, McpError> {
        serde_json::from_str(raw.get())
            .map_err(|err| internal_error!(error = %err, "a stored task's call could not be read"))
    }
}

/// The wire key of the handler's `key` in input round `round`.
pub(crate) fn wire_key(round: u32, key: &str) -> String {
    format!("{round}.{key}")
}

/// The handler's key of a wire key of round `round`.
pub(crate) fn handler_key(round: u32, wire: &str) -> Option<&str> {
    wire.strip_prefix(&round.to_string())?.strip_prefix('.')
}

impl TaskRecord {
    /// Whether the task still counts against its caller: working, or waiting for input.
    pub(crate) fn is_live(&self) -> bool {
        matches!(self.status, TaskStatus::Working | TaskStatus::InputRequired)
    }

    /// The task ends as `status`: what only a live task needs (its call, its open round, its
    /// lease) is released at once.
    pub(crate) fn settle_as(&mut self, status: TaskStatus) {
        self.status = status;
        self.call = None;
        self.input = None;
        self.lease_until_ms = None;
    }

    /// The task fails with `error`.
    pub(crate) fn fail(&mut self, error: McpError) {
        self.settle_as(TaskStatus::Failed);
        self.status_message = Some(error.message.to_string());
        self.error = Some(error);
    }

    /// The `Task` fields.
    fn task(&self) -> Task {
        let mut task = Task::new(
            self.id.clone(),
            self.status,
            iso8601(self.created_ms),
            iso8601(self.updated_ms),
            Some(self.ttl_ms),
        );
        task.status_message.clone_from(&self.status_message);
        task.poll_interval_ms = Some(self.poll_interval_ms);
        task
    }

    /// What `tools/call` answers when it creates the task.
    pub(crate) fn created(&self) -> CreateTaskResult {
        CreateTaskResult::new(self.task())
    }

    /// What `tasks/get` answers, and `notifications/tasks` carries.
    pub(crate) fn into_detailed(self) -> DetailedTask {
        let task = self.task();
        let detail = match self.status {
            TaskStatus::InputRequired => {
                TaskDetail::InputRequests(self.input.map(|round| round.pending).unwrap_or_default())
            }
            TaskStatus::Completed => TaskDetail::Result(self.result.unwrap_or_default()),
            TaskStatus::Failed => TaskDetail::Error(self.error.unwrap_or_else(
                || internal_error!(task = %self.id, "a failed task has no error recorded"),
            )),
            TaskStatus::Working | TaskStatus::Cancelled => TaskDetail::None,
        };
        DetailedTask::new(task, detail)
    }

    /// When the store may forget it.
    pub(crate) fn expires_at_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.ttl_ms)
    }

    /// The record as a store entry of `version`.
    pub(crate) fn to_entry(&self, version: u64) -> Result<TaskEntry, McpError> {
        let data = serde_json::to_string(self).map_err(
            |err| internal_error!(task = %self.id, error = %err, "a task could not be serialized"),
        )?;
        Ok(TaskEntry {
            version,
            expires_at_ms: self.expires_at_ms(),
            data,
        })
    }

    /// The record a store entry holds.
    pub(crate) fn from_entry(entry: &TaskEntry) -> Result<Self, McpError> {
        serde_json::from_str(&entry.data)
            .map_err(|err| internal_error!(error = %err, "a stored task could not be read"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_keys_carry_the_round_and_come_back() {
        let wire = wire_key(3, "confirm.v2");
        assert_eq!(wire, "3.confirm.v2");
        assert_eq!(handler_key(3, &wire), Some("confirm.v2"));
        assert_eq!(handler_key(2, &wire), None);
        assert_eq!(handler_key(3, "3confirm"), None);
        assert_eq!(handler_key(1, "13.x"), None);
    }

    fn meta() -> RequestMeta {
        serde_json::from_value(serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }))
        .expect("meta")
    }

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn a_stored_call_keeps_only_the_declared_arguments_unless_the_schema_may_admit_others() {
        let arguments = object(serde_json::json!({"table": "t", "junk": "x".repeat(1000)}));
        let schema = object(serde_json::json!({
            "type": "object", "properties": {"table": {"type": "string"}}
        }));
        let call = StoredCall::declared(&schema, arguments.clone(), meta());
        assert_eq!(call.arguments, serde_json::json!({"table": "t"}));
        let closed = object(serde_json::json!({"type": "object", "additionalProperties": false}));
        let call = StoredCall::declared(&closed, arguments.clone(), meta());
        assert_eq!(call.arguments, serde_json::json!({}));
        for open in [
            serde_json::json!({"type": "object", "additionalProperties": true}),
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}}),
            serde_json::json!({"type": "object", "patternProperties": {"^j": {}}}),
            // No `properties`: every member is admitted.
            serde_json::json!({"type": "object"}),
            // Members declared by a composition (a tagged enum's schema, a reference).
            serde_json::json!({"type": "object", "properties": {"table": {}}, "oneOf": [
                {"properties": {"junk": {"type": "string"}}}
            ]}),
            serde_json::json!({"type": "object", "properties": {"table": {}}, "$ref": "#/$defs/x"}),
            serde_json::json!({"type": "object", "properties": {"table": {}},
                "unevaluatedProperties": true}),
        ] {
            let call = StoredCall::declared(&object(open), arguments.clone(), meta());
            assert_eq!(call.arguments, Value::Object(arguments.clone()));
        }
    }
}
