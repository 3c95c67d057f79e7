//! The tasks extension (`io.modelcontextprotocol/tasks`) as a client meets it, driven
//! in-process through [`Server::handle_message`]: which calls become tasks (declared
//! extension, tool support, the grace shortcut), the task's life (`tasks/get`, status
//! messages, input rounds answered through `tasks/update` under keys unique over the task's
//! life, partial answers, cancellation), how it ends (result, tool error, JSON-RPC error,
//! panic, shutdown, an instance that vanished), who may see it, expiry, and every refusal.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::tasks::{MemoryTaskStore, TaskEntry, TaskShare, TaskStore};
use typemcp_server::{
    AuthIdentity, ElicitForm, McpError, RequestContext, Server, ServerBuilder, State,
    TransportInfo, tool,
};

use crate::support::wire;

const TASKS: &str = "io.modelcontextprotocol/tasks";

// ----- Handlers -----

/// How often each handler ran, and whether it saw its cancellation.
#[derive(Clone, Default)]
struct Probe {
    runs: Arc<AtomicUsize>,
    cancelled: Arc<AtomicUsize>,
}

/// Sleeps `ms`, then says so.
#[tool(task)]
async fn sleepy(ms: u64, ctx: RequestContext, State(probe): State<Probe>) -> String {
    probe.runs.fetch_add(1, Ordering::SeqCst);
    ctx.report_status("sleeping").await;
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(ms)) => format!("slept {ms} ms"),
        () = ctx.cancellation().cancelled() => {
            probe.cancelled.fetch_add(1, Ordering::SeqCst);
            "woken".to_owned()
        }
    }
}

/// Answers without waiting.
#[tool(task)]
async fn instant() -> &'static str {
    "at once"
}

/// Only ever a task.
#[tool(task = "required")]
async fn must_be_task() -> &'static str {
    tokio::task::yield_now().await;
    "as a task"
}

/// A plain tool.
#[tool]
async fn plain() -> &'static str {
    "plain"
}

/// Fails as a tool.
#[tool(task)]
async fn tool_error() -> Result<String, String> {
    tokio::task::yield_now().await;
    Err("the input is wrong".to_owned())
}

/// Fails with a JSON-RPC error.
#[tool(task)]
async fn protocol_error() -> Result<String, McpError> {
    tokio::task::yield_now().await;
    Err(McpError::invalid_params("no such dataset"))
}

/// Panics in the background.
#[tool(task)]
async fn panics() -> String {
    tokio::task::yield_now().await;
    panic!("boom")
}

/// Reports progress as it goes.
#[tool(task)]
async fn progressing(ctx: RequestContext) -> &'static str {
    tokio::task::yield_now().await;
    ctx.report_progress(1.0, Some(4.0), Some("copying".into()))
        .await;
    tokio::time::sleep(Duration::from_secs(30)).await;
    "done"
}

/// Go ahead?
#[derive(ElicitForm)]
struct Proceed {
    /// Proceed?
    ok: bool,
}

/// A label.
#[derive(ElicitForm)]
struct Label {
    /// The label.
    text: String,
}

/// A two-round export: work, ask, work, ask again, finish.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Export {
    #[awaits(proceed: Proceed)]
    Halfway { rows: u32 },
    #[awaits(label: Label, proceed: Proceed)]
    Labelling { rows: u32 },
}

/// Exports rows, asking twice on the way.
#[tool(task)]
async fn export(round: Round<Export>, State(probe): State<Probe>) -> Step<Export, String> {
    probe.runs.fetch_add(1, Ordering::SeqCst);
    tokio::task::yield_now().await;
    match round.resume() {
        None => round.ask(ExportAsking::Halfway {
            rows: 50,
            proceed: "Half done. Go on?".into(),
        }),
        Some(ExportAnswered::Halfway {
            proceed: Reply::Accepted(Proceed { ok: true }),
            rows,
        }) => round.ask(ExportAsking::Labelling {
            rows: rows * 2,
            label: "Label it, and confirm".into(),
            proceed: "Label it, and confirm".into(),
        }),
        Some(ExportAnswered::Halfway { .. }) => Step::done("stopped halfway"),
        Some(ExportAnswered::Labelling {
            label: Reply::Accepted(Label { text }),
            proceed: Reply::Accepted(Proceed { ok: true }),
            rows,
        }) => Step::done(format!("exported {rows} rows as {text}")),
        Some(ExportAnswered::Labelling { .. }) => Step::done("not labelled"),
    }
}

fn builder() -> ServerBuilder {
    builder_with(Probe::default())
}

fn builder_with(probe: Probe) -> ServerBuilder {
    Server::builder()
        .state(probe)
        .tool(sleepy)
        .tool(instant)
        .tool(must_be_task)
        .tool(plain)
        .tool(tool_error)
        .tool(protocol_error)
        .tool(panics)
        .tool(progressing)
        .tool(export)
        .task_poll_interval(Duration::from_millis(20))
}

// ----- Client -----

/// A 2026-07-28 client, declaring the tasks extension or not, and maybe authenticated.
struct Client {
    server: Server,
    tasks: bool,
    auth: Option<&'static str>,
}

impl Client {
    fn new(server: &Server) -> Self {
        Self {
            server: server.clone(),
            tasks: true,
            auth: None,
        }
    }

    fn without_tasks(mut self) -> Self {
        self.tasks = false;
        self
    }

    fn authenticated_as(mut self, subject: &'static str) -> Self {
        self.auth = Some(subject);
        self
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        let mut caps = json!({"elicitation": {}});
        if self.tasks {
            caps["extensions"] = json!({ TASKS: {} });
        }
        let mut transport = TransportInfo::in_process();
        if let Some(subject) = self.auth {
            transport = transport.with_auth(AuthIdentity::new(subject));
        }
        let message = wire::request(method, params, caps);
        wire::reply_over(&self.server, &message, transport).await
    }

    async fn call(&self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
    }

    /// Calls `tool` and returns the id of the task it became.
    async fn start(&self, tool: &str, arguments: Value) -> String {
        let reply = self.call(tool, arguments).await;
        assert_eq!(reply["result"]["resultType"], "task", "{reply}");
        reply["result"]["taskId"].as_str().unwrap().to_owned()
    }

    async fn get(&self, id: &str) -> Value {
        self.request("tasks/get", json!({"taskId": id})).await
    }

    /// Polls until the task's status is `status` (or it settles), within 10 s.
    async fn until(&self, id: &str, status: &str) -> Value {
        for _ in 0..1000 {
            let reply = self.get(id).await;
            let now = reply["result"]["status"].as_str().unwrap_or_default();
            if now == status || ["completed", "failed", "cancelled"].contains(&now) {
                return reply["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {id} never reached {status}");
    }

    async fn update(&self, id: &str, answers: Value) -> Value {
        self.request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": answers}),
        )
        .await
    }
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply}"))
}

// ----- Which calls become tasks -----

#[tokio::test]
async fn a_waiting_call_becomes_a_task_that_is_stored_before_the_answer() {
    let server = builder()
        .task_ttl(Duration::from_secs(120))
        .build()
        .unwrap();
    let client = Client::new(&server);
    let reply = client.call("sleepy", json!({"ms": 50})).await;
    let created = &reply["result"];
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert_eq!(created["ttlMs"], 120_000);
    assert_eq!(created["pollIntervalMs"], 20);
    for field in [
        "task",
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
    ] {
        assert!(created.get(field).is_none(), "{field} in {created}");
    }
    let id = created["taskId"].as_str().unwrap();
    assert_eq!(id.len(), 32, "128 random bits, hex: {id}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()));
    let created_at = created["createdAt"].as_str().unwrap();
    assert!(
        created_at.ends_with('Z') && created_at.len() == 24,
        "{created_at}"
    );

    // Durable before the answer: the very next tasks/get finds it.
    let now = client.get(id).await;
    assert_eq!(now["result"]["resultType"], "complete", "{now}");
    assert_eq!(now["result"]["taskId"], id);
    let done = client.until(id, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "slept 50 ms");
    assert!(done.get("error").is_none());
    assert_eq!(done["statusMessage"], "sleeping");
}

#[tokio::test]
async fn only_declaring_clients_get_tasks() {
    let server = builder().build().unwrap();
    let client = Client::new(&server).without_tasks();
    // An optional task tool answers with its result.
    let reply = client.call("sleepy", json!({"ms": 5})).await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "slept 5 ms");
    // A required one is refused, naming the extension.
    let reply = client.call("must_be_task", json!({})).await;
    assert_eq!(error_code(&reply), -32021);
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
    // tasks/* too.
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let reply = client
            .request(method, json!({"taskId": "x", "inputResponses": {}}))
            .await;
        assert_eq!(error_code(&reply), -32021, "{method}: {reply}");
    }
    // A declaring client gets the task; a plain tool stays plain.
    let client = Client::new(&server);
    client.start("must_be_task", json!({})).await;
    let reply = client.call("plain", json!({})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "plain", "{reply}");
    // A legacy `task` hint promotes nothing.
    let reply = client
        .request(
            "tools/call",
            json!({"name": "plain", "arguments": {}, "task": {"ttl": 1000}}),
        )
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
}

#[tokio::test]
async fn a_call_done_within_the_grace_is_answered_at_once() {
    let server = builder().build().unwrap();
    let client = Client::new(&server);
    let reply = client.call("instant", json!({})).await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "at once");

    let patient = builder()
        .task_grace(Duration::from_secs(5))
        .build()
        .unwrap();
    let reply = Client::new(&patient)
        .call("sleepy", json!({"ms": 20}))
        .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
}

#[tokio::test]
async fn the_extension_is_advertised_only_with_task_tools() {
    let server = builder().build().unwrap();
    let caps = server.capabilities();
    assert_eq!(
        caps.extensions.as_ref().and_then(|e| e.get(TASKS)),
        Some(&json!({}))
    );
    let discover = Client::new(&server)
        .request("server/discover", json!({}))
        .await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"],
        json!({TASKS: {}})
    );
    assert!(discover["result"]["capabilities"].get("tasks").is_none());

    let no_tasks = Server::builder().tool(plain).build().unwrap();
    assert!(no_tasks.capabilities().extensions.is_none());
    let reply = Client::new(&no_tasks)
        .request("tasks/get", json!({"taskId": "x"}))
        .await;
    assert_eq!(error_code(&reply), -32601, "{reply}");
    // Removed methods of the old tasks are unknown everywhere.
    for method in ["tasks/result", "tasks/list"] {
        let reply = Client::new(&server)
            .request(method, json!({"taskId": "x"}))
            .await;
        assert_eq!(error_code(&reply), -32601, "{method}: {reply}");
    }
}

// ----- Input rounds -----

#[tokio::test]
async fn a_task_asks_through_its_rounds_under_keys_never_reused() {
    let server = builder().build().unwrap();
    let client = Client::new(&server);
    let id = client.start("export", json!({})).await;

    let waiting = client.until(&id, "input_required").await;
    assert_eq!(waiting["status"], "input_required");
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["1.proceed"]);
    assert_eq!(requests["1.proceed"]["method"], "elicitation/create");
    assert!(
        waiting.get("requestState").is_none(),
        "the state stays server-side"
    );

    // An answer to a key never asked is ignored; the task still waits.
    let ack = client
        .update(&id, json!({"proceed": accept(json!({"ok": true}))}))
        .await;
    assert_eq!(
        ack["result"],
        json!({"resultType": "complete", "_meta": ack["result"]["_meta"]})
    );
    assert_eq!(client.get(&id).await["result"]["status"], "input_required");

    client
        .update(&id, json!({"1.proceed": accept(json!({"ok": true}))}))
        .await;
    let second = client.until(&id, "input_required").await;
    let keys: Vec<&String> = second["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        keys,
        ["2.label", "2.proceed"],
        "round 2, fresh keys: {second}"
    );

    // Partial answers: the answered key goes, the task keeps waiting for the other.
    client
        .update(&id, json!({"2.label": accept(json!({"text": "Q3"}))}))
        .await;
    let partial = client.get(&id).await;
    assert_eq!(partial["result"]["status"], "input_required");
    let left: Vec<&String> = partial["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(left, ["2.proceed"]);
    // A round-1 key answered again is ignored.
    client
        .update(&id, json!({"1.proceed": accept(json!({"ok": false}))}))
        .await;
    client
        .update(&id, json!({"2.proceed": accept(json!({"ok": true}))}))
        .await;
    let done = client.until(&id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "exported 100 rows as Q3"
    );
}

#[tokio::test]
async fn a_malformed_answer_is_asked_again_in_a_new_round() {
    let server = builder().build().unwrap();
    let client = Client::new(&server);
    let id = client.start("export", json!({})).await;
    client.until(&id, "input_required").await;
    client
        .update(
            &id,
            json!({"1.proceed": accept(json!({"ok": "yes please"}))}),
        )
        .await;
    let again = client.until(&id, "input_required").await;
    let keys: Vec<&String> = again["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["2.proceed"], "{again}");
}

// ----- Cancellation -----

#[tokio::test]
async fn cancelling_reaches_the_handler_and_is_idempotent() {
    let probe = Probe::default();
    let server = builder_with(probe.clone()).build().unwrap();
    let client = Client::new(&server);
    let id = client.start("sleepy", json!({"ms": 60_000})).await;
    let ack = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none());
    let task = client.get(&id).await;
    assert_eq!(task["result"]["status"], "cancelled", "{task}");
    let again = client.request("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    // The handler saw its cancellation, and the task stays cancelled.
    for _ in 0..500 {
        if probe.cancelled.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(probe.cancelled.load(Ordering::SeqCst), 1);
    assert_eq!(probe.runs.load(Ordering::SeqCst), 1);
    assert_eq!(client.get(&id).await["result"]["status"], "cancelled");
    // A settled task is left as it is.
    let finished = client.start("sleepy", json!({"ms": 1})).await;
    client.until(&finished, "completed").await;
    client
        .request("tasks/cancel", json!({"taskId": finished}))
        .await;
    assert_eq!(client.get(&finished).await["result"]["status"], "completed");
}

// ----- How tasks end -----

#[tokio::test]
async fn tool_errors_complete_protocol_errors_and_panics_fail() {
    let server = builder().build().unwrap();
    let client = Client::new(&server);
    let id = client.start("tool_error", json!({})).await;
    let done = client.until(&id, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);

    let id = client.start("protocol_error", json!({})).await;
    let failed = client.until(&id, "failed").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32602);
    assert_eq!(failed["error"]["message"], "no such dataset");
    assert!(failed.get("result").is_none());

    let id = client.start("panics", json!({})).await;
    let failed = client.until(&id, "failed").await;
    assert_eq!(
        failed["error"],
        json!({"code": -32603, "message": "Internal error"})
    );
    // The server keeps serving.
    let reply = client.call("plain", json!({})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "plain");
}

#[tokio::test]
async fn progress_in_a_task_becomes_its_status_message() {
    let server = builder().build().unwrap();
    let client = Client::new(&server);
    let id = client.start("progressing", json!({})).await;
    let mut message = Value::Null;
    for _ in 0..500 {
        message = client.get(&id).await["result"]["statusMessage"].clone();
        if !message.is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(message, "copying (1/4)");
    client.request("tasks/cancel", json!({"taskId": id})).await;
}

#[tokio::test]
async fn a_server_that_stops_fails_its_running_tasks() {
    let store = Arc::new(MemoryTaskStore::new());
    let a = builder().task_store(Arc::clone(&store)).build().unwrap();
    let b = builder().task_store(Arc::clone(&store)).build().unwrap();
    let id = Client::new(&a).start("sleepy", json!({"ms": 60_000})).await;
    a.shutdown();
    let failed = Client::new(&b).until(&id, "failed").await;
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(
        failed["error"]["message"],
        "The server stopped before the task finished"
    );
}

#[tokio::test]
async fn a_working_task_whose_instance_vanished_fails_once_its_lease_is_over() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = builder().task_store(Arc::clone(&store)).build().unwrap();
    let client = Client::new(&server);
    let id = client.start("sleepy", json!({"ms": 60_000})).await;
    // As if its instance had died long ago: the lease ran out and nobody renewed it.
    let entry = store.load(&id).await.unwrap().unwrap();
    let mut data: Value = serde_json::from_str(&entry.data).unwrap();
    data["leaseUntilMs"] = json!(1);
    let stale = TaskEntry {
        version: entry.version + 1,
        data: data.to_string(),
        ..entry.clone()
    };
    assert!(
        store
            .replace(&id, entry.version, stale, &anyone())
            .await
            .unwrap()
    );
    let task = client.get(&id).await;
    assert_eq!(task["result"]["status"], "failed", "{task}");
    assert_eq!(
        task["result"]["error"]["message"],
        "The server running the task stopped"
    );
}

// ----- Who may see a task, expiry, refusals -----

#[tokio::test]
async fn a_task_is_only_visible_to_its_owner() {
    let server = builder().build().unwrap();
    let alice = Client::new(&server).authenticated_as("alice");
    let id = alice.start("sleepy", json!({"ms": 60_000})).await;
    let bob = Client::new(&server).authenticated_as("bob");
    let anonymous = Client::new(&server);
    for other in [&bob, &anonymous] {
        for method in ["tasks/get", "tasks/cancel"] {
            let reply = other.request(method, json!({"taskId": id})).await;
            assert_eq!(error_code(&reply), -32602, "{reply}");
        }
        let reply = other.update(&id, json!({})).await;
        assert_eq!(error_code(&reply), -32602, "{reply}");
    }
    assert_eq!(alice.get(&id).await["result"]["status"], "working");
    alice.request("tasks/cancel", json!({"taskId": id})).await;
}

#[tokio::test]
async fn a_task_is_gone_after_its_ttl() {
    let server = builder().task_ttl(Duration::from_secs(1)).build().unwrap();
    let client = Client::new(&server);
    let id = client.start("sleepy", json!({"ms": 1})).await;
    client.until(&id, "completed").await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let reply = client.get(&id).await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
}

#[tokio::test]
async fn bad_task_requests_get_invalid_params() {
    let server = builder().build().unwrap();
    let client = Client::new(&server);
    let unknown = client.get("0123456789abcdef0123456789abcdef").await;
    assert_eq!(error_code(&unknown), -32602);
    assert_eq!(unknown["error"]["message"], "Unknown or expired task");
    for (method, params) in [
        ("tasks/get", json!({})),
        ("tasks/get", json!({"taskId": 42})),
        ("tasks/cancel", json!({"taskId": null})),
        ("tasks/update", json!({"taskId": "x"})),
        ("tasks/update", json!({"taskId": "x", "inputResponses": []})),
        ("tasks/cancel", json!({"taskId": "nope"})),
    ] {
        let reply = client.request(method, params.clone()).await;
        assert_eq!(error_code(&reply), -32602, "{method} {params}: {reply}");
    }
    let reply = client.call("plain", json!({})).await;
    assert_eq!(reply["result"]["content"][0]["text"], "plain");
}

/// A task of some caller, live, under no quota of note.
fn anyone() -> TaskShare {
    TaskShare::new("anyone", true, usize::MAX)
}
