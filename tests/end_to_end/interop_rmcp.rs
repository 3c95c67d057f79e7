//! Interoperability with an independent client: rmcp 3.1.4 (the Rust SDK's client role and its
//! reqwest Streamable HTTP transport) against the `conformance_server` and `deploy` examples
//! over HTTP.
//!
//! The client negotiates protocol 2026-07-28 with `server/discover` (no `initialize`), then
//! calls the multi-round (SEP-2322, `input_required`) tools with rmcp's high-level
//! `call_tool`, which answers each round's `inputRequests` through its own `ClientHandler`
//! (the elicitation callback below) and retries with `inputResponses` and the echoed
//! `requestState`. A tampered `requestState` is sent with the one-round `call_tool_once`.
//! Declaring the tasks extension, it runs the `long_task` example as a task: `tasks/get`,
//! `tasks/update` with the answer to the task's question, and `tasks/cancel`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientInfo, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ErrorData, ExtensionCapabilities, FormElicitationCapability, GetTaskParams, GetTaskResult,
    Implementation, InputResponses, JsonObject, ProtocolVersion, TaskPayload, TaskStatus,
    UpdateTaskParams,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RunningService, ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::common::{ExampleServer, HttpServer, code};

/// One fixture server for the whole binary, on a free loopback port.
static SERVER: LazyLock<HttpServer> = LazyLock::new(HttpServer::start);

/// The `long_task` example over HTTP (a quarter of an export takes 40 ms), for the whole
/// binary.
static LONG_TASK: LazyLock<HttpServer> = LazyLock::new(|| {
    ExampleServer::named("long_task")
        .with_args(["--step-ms", "40"])
        .http()
});

/// The tasks extension.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The `deploy` example over HTTP, for the whole binary.
static DEPLOY: LazyLock<HttpServer> = LazyLock::new(|| ExampleServer::named("deploy").http());

/// How long one client step (connecting, or a whole multi-round call) may take.
const STEP_TIMEOUT: Duration = Duration::from_secs(30);

/// Awaits `step`, failing the test if it takes longer than [`STEP_TIMEOUT`].
async fn within<T>(what: &str, step: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP_TIMEOUT, step)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {STEP_TIMEOUT:?}"))
}

/// A client that answers form elicitations from a script and records what it was asked.
#[derive(Clone, Debug, Default)]
struct ScriptedClient {
    asked: Arc<Mutex<Vec<String>>>,
    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`).
    tasks: bool,
}

impl ScriptedClient {
    /// The messages of the elicitations the server sent, in order.
    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

/// The content answering a form whose schema has the property `name`, `color`, `ok`,
/// `replicas` (the rollout plan of the `deploy` example) or `region` (its options, computed
/// per call: the first one is picked).
fn answer_for(schema: &Value) -> Option<Value> {
    let properties = schema.get("properties")?.as_object()?;
    if properties.contains_key("name") {
        Some(json!({ "name": "Alice" }))
    } else if properties.contains_key("color") {
        Some(json!({ "color": "blue" }))
    } else if properties.contains_key("ok") {
        Some(json!({ "ok": true }))
    } else if properties.contains_key("replicas") {
        Some(json!({ "strategy": "immediate", "replicas": 3, "reason": "interop check" }))
    } else if let Some(region) = properties.get("region") {
        let first = region["oneOf"][0]["const"].clone();
        Some(json!({ "region": first }))
    } else {
        None
    }
}

impl ClientHandler for ScriptedClient {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.asked.lock().unwrap().push(message);
        let schema = serde_json::to_value(&requested_schema).unwrap();
        Ok(match answer_for(&schema) {
            Some(content) => ElicitResult::new(ElicitationAction::Accept).with_content(content),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    fn get_info(&self) -> ClientInfo {
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::new());
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        if self.tasks {
            let mut extensions = ExtensionCapabilities::new();
            extensions.insert(TASKS.to_owned(), JsonObject::new());
            capabilities.extensions = Some(extensions);
        }
        ClientInfo::new(
            capabilities,
            Implementation::new("mcp-sdk-interop-rmcp", "0.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }
}

/// Connects a fresh rmcp client to `url` with `server/discover`, pinned to 2026-07-28.
async fn connect(
    url: String,
    client: ScriptedClient,
) -> RunningService<RoleClient, ScriptedClient> {
    let transport = StreamableHttpClientTransport::from_uri(url);
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let service = within(
        "connecting",
        client.serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .expect("rmcp connects to the server with server/discover");
    let info = service
        .peer_info()
        .expect("server/discover gave the server's info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    service
}

/// The concatenated text blocks of a tool result.
fn text_of(result: &CallToolResult) -> String {
    crate::common::tool_text(&serde_json::to_value(result).unwrap())
}

#[tokio::test]
async fn rmcp_client_completes_multi_round_elicitation() {
    let client = ScriptedClient::default();
    let service = connect(SERVER.url(), client.clone()).await;

    let call = service.call_tool(CallToolRequestParams::new(
        "test_input_required_result_multi_round",
    ));
    let result = within("the multi-round call", call)
        .await
        .expect("rmcp drives both input_required rounds to a complete result");

    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        text_of(&result),
        "Multi-round complete for Alice who likes blue"
    );
    assert_eq!(
        client.asked(),
        [
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?"
        ],
        "one elicitation per round, in order"
    );
    service.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_client_completes_request_state_round() {
    let client = ScriptedClient::default();
    let service = connect(SERVER.url(), client.clone()).await;

    let call = service.call_tool(CallToolRequestParams::new(
        "test_input_required_result_request_state",
    ));
    let result = within("the request-state call", call)
        .await
        .expect("rmcp echoes the requestState and completes");

    assert_eq!(text_of(&result), "state-ok: confirmed");
    assert_eq!(client.asked(), ["Please confirm"]);
    service.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_client_tampered_request_state_is_refused() {
    let service = connect(SERVER.url(), ScriptedClient::default()).await;
    let tool = "test_input_required_result_tampered_state";

    let first = within(
        "the first round",
        service.call_tool_once(CallToolRequestParams::new(tool)),
    )
    .await
    .expect("the first round answers");
    let CallToolResponse::InputRequired(round) = first else {
        panic!("expected input_required, got {first:?}");
    };
    let state = round
        .request_state
        .expect("the round carries a requestState");
    let requests = round.input_requests.expect("the round asks for input");
    let key = requests.keys().next().expect("one input request").clone();

    // Flip one character of the signed state; answer the question as asked.
    let mut tampered: Vec<char> = state.chars().collect();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    assert_ne!(tampered, state);

    let mut retry = CallToolRequestParams::new(tool);
    retry.input_responses = Some(
        [(
            key,
            json!({ "action": "accept", "content": { "ok": true } }),
        )]
        .into_iter()
        .collect(),
    );
    retry.request_state = Some(tampered);
    let refused = within("the tampered retry", service.call_tool_once(retry)).await;
    match refused {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(
                i64::from(error.code.0),
                code::INVALID_PARAMS,
                "a tampered requestState is invalid params: {error:?}"
            );
        }
        other => panic!("a tampered requestState must be refused, got {other:?}"),
    }
    service.cancel().await.unwrap();
}

/// rmcp 3.1.4 reads URL-mode elicitations only with the `elicitationId` of 2025-11-25 (gone
/// in 2026-07-28), so it declares form mode only and deploys to staging, which needs no
/// approval page: a confirmation, then a rollout plan and a region in one round.
#[tokio::test]
async fn rmcp_client_completes_the_rounds_of_the_deploy_example_to_staging() {
    let client = ScriptedClient::default();
    let service = connect(DEPLOY.url(), client.clone()).await;

    let arguments = json!({ "target": "staging" });
    let Value::Object(arguments) = arguments else {
        unreachable!("an object literal")
    };
    let call = service.call_tool(CallToolRequestParams::new("deploy").with_arguments(arguments));
    let result = within("the deploy call", call)
        .await
        .expect("rmcp drives every round of deploy to a complete result");

    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text = text_of(&result);
    assert!(
        text.starts_with(
            "Deployed to Staging in eu-west-1 with 3 replicas, all at once (approved at "
        ) && text.ends_with("; interop check)."),
        "{text}"
    );
    let mut asked = client.asked();
    asked[1..].sort_unstable();
    assert_eq!(
        asked,
        [
            "Deploy to Staging?",
            "How should it roll out?",
            "Which region?"
        ],
        "one elicitation in the first round, two in the second"
    );
    service.cancel().await.unwrap();
}

/// The acknowledgement of `tasks/update` or `tasks/cancel`: `{resultType: "complete"}` with
/// the server's `_meta` (`io.modelcontextprotocol/serverInfo`, which servers SHOULD put on
/// every result). rmcp 3.1.4 reads such an object as a `SubscriptionsListenResult` (the first
/// member of its untagged `ServerResult` that only needs `resultType` and `_meta`) and
/// reports `UnexpectedResponse`; every other error fails the test. What the ack acknowledged
/// is checked through `tasks/get` afterwards.
fn expect_ack(ack: Result<(), ServiceError>, what: &str) {
    match ack {
        Ok(()) | Err(ServiceError::UnexpectedResponse) => {}
        Err(other) => panic!("{what} was refused: {other:?}"),
    }
}

/// Polls `id` with `tasks/get` until `done` holds for it (within [`STEP_TIMEOUT`]).
async fn poll_task(
    service: &RunningService<RoleClient, ScriptedClient>,
    id: &str,
    done: impl Fn(&GetTaskResult) -> bool,
) -> GetTaskResult {
    within("polling the task", async {
        loop {
            let task = service
                .get_task(GetTaskParams::new(id))
                .await
                .expect("tasks/get answers");
            if done(&task) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
}

/// rmcp's client of the tasks extension (SEP-2663) runs the `long_task` export: the call
/// answers with a task, `tasks/get` shows the question halfway, `tasks/update` answers it,
/// and the task completes with the result the answer shaped.
#[tokio::test]
async fn rmcp_client_runs_the_long_task_example_as_a_task() {
    let client = ScriptedClient {
        tasks: true,
        ..ScriptedClient::default()
    };
    let service = connect(LONG_TASK.url(), client).await;
    let info = service.peer_info().expect("server/discover");
    assert!(
        info.capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS)),
        "the server declares the tasks extension: {info:?}"
    );
    let Value::Object(arguments) = json!({ "table": "users" }) else {
        unreachable!("an object literal")
    };
    let call = CallToolRequestParams::new("export_table").with_arguments(arguments);
    let created = within("the call", service.call_tool_once(call)).await;
    let Ok(CallToolResponse::Task(created)) = created else {
        panic!("a task, not {created:?}");
    };
    let id = created.task.task_id.clone();

    let asking = poll_task(&service, &id, |t| {
        t.task.status() == TaskStatus::InputRequired
    })
    .await;
    let TaskPayload::InputRequired { input_requests } = &asking.task.payload else {
        panic!("input_required without its requests: {asking:?}");
    };
    let keys: Vec<&String> = input_requests.keys().collect();
    assert_eq!(keys, ["1.choice"], "{asking:?}");
    let mut answers = InputResponses::new();
    answers.insert(
        "1.choice".to_owned(),
        json!({"action": "accept", "content": {"anonymize": true}}),
    );
    let ack = within(
        "tasks/update",
        service.update_task(UpdateTaskParams::new(&id, answers)),
    );
    expect_ack(ack.await, "tasks/update");

    let done = poll_task(&service, &id, |t| t.task.status() == TaskStatus::Completed).await;
    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("completed without its result: {done:?}");
    };
    assert_eq!(
        result["content"][0]["text"],
        "Exported 10000 rows of users to users.csv (e-mail addresses anonymized)."
    );

    // A second export, cancelled while it runs.
    let Value::Object(arguments) = json!({ "table": "orders" }) else {
        unreachable!("an object literal")
    };
    let call = CallToolRequestParams::new("export_table").with_arguments(arguments);
    let Ok(CallToolResponse::Task(created)) =
        within("the call", service.call_tool_once(call)).await
    else {
        panic!("a task");
    };
    let id = created.task.task_id.clone();
    let ack = within(
        "tasks/cancel",
        service.cancel_task(CancelTaskParams::new(&id)),
    );
    expect_ack(ack.await, "tasks/cancel");
    let cancelled = poll_task(&service, &id, |t| t.task.status() != TaskStatus::Working).await;
    assert_eq!(cancelled.task.status(), TaskStatus::Cancelled);
    service.cancel().await.unwrap();
}
