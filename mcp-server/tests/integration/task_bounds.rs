//! Tasks bounded under abuse (issue 18, attacks 2, 3 and 5), in-process at the defaults
//! unless a test says otherwise: a task keeps only the arguments its tool declares and
//! releases its call when it settles; a call over the call budget, or finding the store full,
//! is answered directly; a result over its budget fails the task clearly; one caller at its
//! quota of live tasks gets `-32029` while another still gets a task; answers over the
//! budget get `-32602`; a `subscriptions/listen` naming 110,000 tasks is refused at once with
//! `-32602`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::tasks::{MemoryTaskStore, TaskStore};
use typemcp_server::{ElicitForm, RequestContext, Server, tool};

use crate::support::abuse::within;
use crate::support::task_calls::{call, request, task_id};

/// Holds until cancelled (at most a minute), then says which note it held.
#[tool(task)]
async fn hold(note: String, ctx: RequestContext) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(60)) => format!("held {}", note.len()),
        () = ctx.cancellation().cancelled() => "released".to_owned(),
    }
}

/// Answers after a moment with `bytes` bytes of text.
#[tool(task)]
async fn produce(bytes: usize) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    "x".repeat(bytes)
}

/// Measures its note, after a moment.
#[tool(task)]
async fn measure(note: String) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    format!("{} bytes", note.len())
}

/// A label.
#[derive(ElicitForm)]
struct Label {
    /// The label.
    text: String,
}

/// Where a labelling stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Labelling {
    #[awaits(label: Label)]
    Asked,
}

/// Asks for a label, then answers with it.
#[tool(task)]
async fn labelled(round: Round<Labelling>) -> Step<Labelling, String> {
    tokio::task::yield_now().await;
    match round.resume() {
        None => round.ask(LabellingAsking::Asked {
            label: "Label?".into(),
        }),
        Some(LabellingAnswered::Asked {
            label: Reply::Accepted(Label { text }),
        }) => Step::done(format!("labelled {text}")),
        Some(LabellingAnswered::Asked { .. }) => Step::done("no label"),
    }
}

/// Asks for a label at once (an ordinary `input_required` result), then works a moment with
/// it: the second round may become a task.
#[tool(task)]
async fn ask_then_work(round: Round<Labelling>) -> Step<Labelling, String> {
    match round.resume() {
        None => round.ask(LabellingAsking::Asked {
            label: "Label?".into(),
        }),
        Some(LabellingAnswered::Asked {
            label: Reply::Accepted(Label { text }),
        }) => {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Step::done(format!("labelled {text}"))
        }
        Some(LabellingAnswered::Asked { .. }) => Step::done("no label"),
    }
}

/// Fails after a moment.
#[tool(task)]
async fn refuse() -> Result<String, typemcp_server::McpError> {
    tokio::time::sleep(Duration::from_millis(5)).await;
    Err(typemcp_server::McpError::invalid_params("not today"))
}

fn serving(store: &Arc<MemoryTaskStore>) -> Server {
    Server::builder()
        .tool(hold)
        .tool(produce)
        .tool(refuse)
        .task_store(Arc::clone(store))
        .task_poll_interval(Duration::from_millis(20))
        .build()
        .unwrap()
}

/// Polls the task until it settles, within 10 s.
async fn settled(server: &Server, subject: Option<&str>, id: &str) -> Value {
    within(10, "a task that settles", async {
        loop {
            let reply = request(server, subject, "tasks/get", json!({"taskId": id})).await;
            let status = reply["result"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
                return reply["result"].clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

/// The task's JSON as the store holds it.
async fn stored(store: &MemoryTaskStore, id: &str) -> Value {
    let entry = store.load(id).await.unwrap().expect("stored");
    serde_json::from_str(&entry.data).unwrap()
}

#[tokio::test]
async fn forty_tasks_with_a_megabyte_of_unread_arguments_keep_a_few_kilobytes() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = serving(&store);
    let junk = "j".repeat(1024 * 1024);
    let mut ids = Vec::new();
    for _ in 0..40 {
        let reply = call(&server, None, "hold", json!({"note": "n", "junk": junk})).await;
        ids.push(task_id(&reply));
    }
    let held = store.bytes();
    println!("40 tasks, 1 MiB of unread arguments each: the store holds {held} bytes");
    assert!(held < 16 * 1024 * 1024, "{held} bytes");
    assert!(
        held < 40 * 4096,
        "only the declared arguments are kept: {held} bytes"
    );
    let data = stored(&store, &ids[0]).await;
    assert_eq!(data["call"]["arguments"], json!({"note": "n"}), "{data}");
    for id in &ids {
        request(&server, None, "tasks/cancel", json!({"taskId": id})).await;
    }
    let after = store.bytes();
    println!("after cancelling them: {after} bytes");
    assert!(after < held, "{after} >= {held}");
}

#[tokio::test]
async fn a_settled_task_no_longer_holds_its_call() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = serving(&store);
    let cancelled = task_id(&call(&server, None, "hold", json!({"note": "c".repeat(4000)})).await);
    assert!(stored(&store, &cancelled).await.get("call").is_some());
    request(&server, None, "tasks/cancel", json!({"taskId": cancelled})).await;
    let completed = task_id(&call(&server, None, "produce", json!({"bytes": 3})).await);
    let failed = task_id(&call(&server, None, "refuse", json!({})).await);
    for (id, status) in [
        (&cancelled, "cancelled"),
        (&completed, "completed"),
        (&failed, "failed"),
    ] {
        assert_eq!(settled(&server, None, id).await["status"], status);
        let data = stored(&store, id).await;
        for gone in ["call", "input", "leaseUntilMs"] {
            assert!(
                data.get(gone).is_none() || data[gone].is_null(),
                "{status}: {gone} in {data}"
            );
        }
        assert!(data.to_string().len() < 1024, "{status}: {data}");
    }
}

#[tokio::test]
async fn one_caller_at_its_quota_gets_a_clear_error_and_another_still_gets_a_task() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = serving(&store);
    let alice = Some("alice");
    let mut ids = Vec::new();
    for _ in 0..100 {
        ids.push(task_id(
            &call(&server, alice, "hold", json!({"note": "a"})).await,
        ));
    }
    let refused = call(&server, alice, "hold", json!({"note": "a"})).await;
    assert_eq!(refused["error"]["code"], -32029, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 100"), "{message}");
    assert_eq!(refused["error"]["data"]["maxLiveTasks"], 100);
    // Another caller is still served, as a task.
    task_id(&call(&server, Some("bob"), "hold", json!({"note": "b"})).await);
    // A settled task frees its slot at once.
    request(&server, alice, "tasks/cancel", json!({"taskId": ids[0]})).await;
    task_id(&call(&server, alice, "hold", json!({"note": "a"})).await);
    assert_eq!(
        call(&server, alice, "hold", json!({"note": "a"})).await["error"]["code"],
        -32029
    );
}

#[tokio::test]
async fn a_later_round_of_a_caller_at_its_quota_is_answered_directly() {
    // Its state was consumed (single use) before the handler ran: refusing it would leave
    // the flow with no way to go on, so it runs as a plain call instead.
    let store = Arc::new(MemoryTaskStore::new());
    let signer = typemcp_server::state::RequestStateSigner::generate()
        .unwrap()
        .single_use(typemcp_server::state::single_use::MemoryStore::new());
    let server = Server::builder()
        .tool(hold)
        .tool(ask_then_work)
        .task_store(Arc::clone(&store))
        .max_live_tasks_per_caller(1)
        .request_state_signer(signer)
        .build()
        .unwrap();
    task_id(&call(&server, None, "hold", json!({"note": "n"})).await);
    assert_eq!(
        call(&server, None, "hold", json!({"note": "n"})).await["error"]["code"],
        -32029,
        "the caller is at its quota"
    );
    let first = call(&server, None, "ask_then_work", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let answered = request(
        &server,
        None,
        "tools/call",
        json!({
            "name": "ask_then_work",
            "arguments": {},
            "inputResponses": {"label": {"action": "accept", "content": {"text": "x"}}},
            "requestState": state,
        }),
    )
    .await;
    assert_eq!(
        answered["result"]["content"][0]["text"], "labelled x",
        "{answered}"
    );
}

#[tokio::test]
async fn a_full_store_makes_a_task_tool_answer_directly() {
    // Full by count: two tasks of two callers fill it; a third caller's call is answered.
    let store = Arc::new(MemoryTaskStore::with_capacity(2));
    let server = serving(&store);
    task_id(&call(&server, Some("a"), "hold", json!({"note": "a"})).await);
    task_id(&call(&server, Some("b"), "hold", json!({"note": "b"})).await);
    let reply = call(&server, Some("c"), "produce", json!({"bytes": 2})).await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "xx");
    // Full by bytes: the same.
    let store = Arc::new(MemoryTaskStore::new().with_max_bytes(1024));
    let server = serving(&store);
    task_id(&call(&server, None, "hold", json!({"note": "n".repeat(300)})).await);
    let reply = call(&server, Some("c"), "produce", json!({"bytes": 2})).await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
}

#[tokio::test]
async fn a_call_over_the_call_budget_is_answered_directly() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = Server::builder()
        .tool(measure)
        .task_store(Arc::clone(&store))
        .max_task_call_bytes(1024)
        .build()
        .unwrap();
    let big = "n".repeat(2048);
    // An unread argument does not count: the call becomes a task.
    task_id(&call(&server, None, "measure", json!({"note": "n", "junk": big})).await);
    assert_eq!(store.len(), 1);
    // A declared argument over the budget: answered directly, nothing stored.
    let reply = within(
        5,
        "a direct answer",
        call(&server, None, "measure", json!({"note": big})),
    )
    .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "2048 bytes");
    assert_eq!(store.len(), 1, "nothing more was stored");
}

#[tokio::test]
async fn a_result_over_the_result_budget_fails_the_task_saying_so() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = serving(&store);
    let id = task_id(&call(&server, None, "produce", json!({"bytes": 2 * 1024 * 1024})).await);
    let task = settled(&server, None, &id).await;
    assert_eq!(
        task["status"],
        "failed",
        "{}",
        &task.to_string()[..200.min(task.to_string().len())]
    );
    assert_eq!(task["error"]["code"], -32603);
    let message = task["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("larger than the server keeps"),
        "{message}"
    );
    assert!(store.bytes() < 64 * 1024, "{} bytes", store.bytes());
    // Within the budget, the result is kept whole.
    let id = task_id(&call(&server, None, "produce", json!({"bytes": 512 * 1024})).await);
    let task = settled(&server, None, &id).await;
    assert_eq!(
        task["result"]["content"][0]["text"].as_str().unwrap().len(),
        512 * 1024
    );
}

#[tokio::test]
async fn a_listen_naming_110000_tasks_is_refused_at_once() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = serving(&store);
    let ids: Vec<String> = (0..110_000).map(|i| format!("{i:032x}")).collect();
    let reply = within(5, "the refusal", async {
        request(
            &server,
            None,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": ids}}),
        )
        .await
    })
    .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 256"), "{message}");
    // 256 pass the bound (and are then refused only for want of a stream, in-process).
    let ids: Vec<String> = (0..256).map(|i| format!("{i:032x}")).collect();
    let reply = request(
        &server,
        None,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": ids}}),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    // The server keeps serving.
    task_id(&call(&server, None, "hold", json!({"note": "n"})).await);
}

#[tokio::test]
async fn a_listen_naming_too_many_or_too_long_resources_is_refused_at_once() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = serving(&store);
    let uris: Vec<String> = (0..257).map(|i| format!("file:///r/{i}")).collect();
    let many = json!({"notifications": {"resourceSubscriptions": uris}});
    let reply = request(&server, None, "subscriptions/listen", many).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 256 resources"), "{message}");
    let long = json!({"notifications": {"resourceSubscriptions": [
        format!("file:///{}", "x".repeat(4096))
    ]}});
    let reply = request(&server, None, "subscriptions/listen", long).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    // Within the bounds, the listen is refused only for want of a stream, in-process.
    let fine = json!({"notifications": {"resourceSubscriptions": ["file:///r/1"]}});
    let reply = request(&server, None, "subscriptions/listen", fine).await;
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
}

#[tokio::test]
async fn answers_over_the_call_budget_are_refused_with_invalid_params() {
    let store = Arc::new(MemoryTaskStore::new());
    let server = Server::builder()
        .tool(labelled)
        .task_store(Arc::clone(&store))
        .task_poll_interval(Duration::from_millis(20))
        .build()
        .unwrap();
    let id = task_id(&call(&server, None, "labelled", json!({})).await);
    within(10, "the question", async {
        loop {
            let reply = request(&server, None, "tasks/get", json!({"taskId": id})).await;
            if reply["result"]["status"] == "input_required" {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let huge = json!({"1.label": {"action": "accept", "content": {"text": "a".repeat(100_000)}}});
    let reply = request(
        &server,
        None,
        "tasks/update",
        json!({"taskId": id, "inputResponses": huge}),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("65536 bytes at most"), "{message}");
    assert!(
        store.bytes() < 8192,
        "nothing of it was kept: {}",
        store.bytes()
    );
    // The task still waits, and a fitting answer finishes it.
    let fine = json!({"1.label": {"action": "accept", "content": {"text": "Q3"}}});
    request(
        &server,
        None,
        "tasks/update",
        json!({"taskId": id, "inputResponses": fine}),
    )
    .await;
    let task = settled(&server, None, &id).await;
    assert_eq!(
        task["result"]["content"][0]["text"], "labelled Q3",
        "{task}"
    );
}
