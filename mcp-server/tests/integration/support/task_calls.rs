//! In-process requests of the task tests (`task_bounds`, `task_bounds_redis`): 2026-07-28
//! messages from a client declaring elicitation and the tasks extension, optionally as an
//! authenticated subject.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use typemcp_server::{AuthIdentity, Server, TransportInfo};

/// The identifier of the tasks extension.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A request of `method` with `params` and the per-request `_meta` of such a client.
pub fn message(method: &str, params: Value) -> Value {
    let capabilities = json!({"elicitation": {}, "extensions": {TASKS: {}}});
    super::wire::request(method, params, capabilities)
}

/// The reply of `server` to `method`, sent by `subject` (unauthenticated when `None`).
pub async fn request(server: &Server, subject: Option<&str>, method: &str, params: Value) -> Value {
    let mut transport = TransportInfo::in_process();
    if let Some(subject) = subject {
        transport = transport.with_auth(AuthIdentity::new(subject));
    }
    super::wire::reply_over(server, &message(method, params), transport).await
}

/// The reply to a `tools/call` of `tool` with `arguments`.
pub async fn call(server: &Server, subject: Option<&str>, tool: &str, arguments: Value) -> Value {
    request(
        server,
        subject,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
    .await
}

/// The id of the task a reply created (the reply must be a `CreateTaskResult`).
pub fn task_id(reply: &Value) -> String {
    assert_eq!(reply["result"]["resultType"], "task", "{reply}");
    reply["result"]["taskId"].as_str().unwrap().to_owned()
}
