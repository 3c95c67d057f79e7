//! The `long_task` example as a client of the tasks extension drives it, over stdio and over
//! Streamable HTTP (a child process each, as a user starts it), and scaled out: two HTTP
//! instances sharing one `redis-server` (started by the test on a free port) and one state
//! key.
//!
//! - **As a task**: `tools/call` of `export_table` answers at once with a task; `tasks/get`
//!   shows the progress in `statusMessage`, then the question halfway through under
//!   `inputRequests`; `tasks/update` answers it; `tasks/get` ends with the result. Answered
//!   keys disappear, and the answer shapes the result.
//! - **Without the extension**, the same tool answers the question as a multi-round request
//!   (`input_required`, then the retry with `inputResponses` and `requestState`).
//! - **Across instances**: a task started on instance A is polled and answered on B, and its
//!   second half runs on B; a task started on A is cancelled on B, and A's handler stops. An
//!   instance with its own memory store knows nothing of it (the control).
//!
//! Without `redis-server` the Redis tests print a loud SKIPPED and pass, except under CI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crate::common::redis::RedisServer;
use crate::common::stdio_client::StdioClient;
use crate::common::{ExampleServer, HttpClient, HttpServer, Session, code, request_with_meta};
use serde_json::{Map, Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A request from a client that answers forms and declares the tasks extension (or not).
fn message(id: u64, method: &str, params: Value, tasks: bool) -> Value {
    let mut caps = json!({"elicitation": {}});
    if tasks {
        caps["extensions"] = json!({ TASKS: {} });
    }
    let mut extra = Map::new();
    extra.insert("io.modelcontextprotocol/clientCapabilities".into(), caps);
    request_with_meta(id, method, params, extra)
}

fn export(id: u64, table: &str) -> Value {
    message(
        id,
        "tools/call",
        json!({"name": "export_table", "arguments": {"table": table}}),
        true,
    )
}

fn get(session: &mut impl Session, id: &str) -> Value {
    let response = session.send(&message(90, "tasks/get", json!({"taskId": id}), true));
    assert!(response.get("error").is_none(), "{response}");
    response["result"].clone()
}

/// Polls `id` on `session` until `done` holds for its state, within 20 s.
fn poll_until(session: &mut impl Session, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let task = get(session, id);
        if done(&task) {
            return task;
        }
        assert!(Instant::now() < deadline, "task {id} stuck at {task}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn status_is(status: &'static str) -> impl Fn(&Value) -> bool {
    move |task| task["status"] == status
}

fn answer(session: &mut impl Session, id: &str, answers: Value) {
    let params = json!({"taskId": id, "inputResponses": answers});
    let ack = session.send(&message(91, "tasks/update", params, true));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none(), "{ack}");
}

fn accept(anonymize: bool) -> Value {
    json!({"action": "accept", "content": {"anonymize": anonymize}})
}

/// Runs one export as a task on `session`: progress, the question, the answer, the result.
fn export_as_task(session: &mut impl Session, transport: &str) {
    let created = session.send(&export(1, "users"));
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{transport}: {created}");
    assert_eq!(created["status"], "working", "{transport}");
    // The progress reported before the call became a task is its first status.
    assert_eq!(
        created["statusMessage"], "Exporting users, quarter 1 of 4 (0/4)",
        "{transport}: {created}"
    );
    let id = created["taskId"].as_str().unwrap().to_owned();

    let working = poll_until(session, &id, |t| t["statusMessage"].is_string());
    let message = working["statusMessage"].as_str().unwrap();
    assert!(
        message.starts_with("Exporting users, quarter"),
        "{transport}: {message}"
    );

    let asking = poll_until(session, &id, status_is("input_required"));
    let requests = asking["inputRequests"].as_object().unwrap();
    let (key, question) = requests.iter().next().unwrap();
    assert_eq!(requests.len(), 1, "{transport}: {asking}");
    assert_eq!(question["method"], "elicitation/create");
    let text = question["params"]["message"].as_str().unwrap();
    assert!(text.contains("Anonymize e-mail addresses"), "{text}");

    answer(session, &id, json!({ key.clone(): accept(true) }));
    let after = get(session, &id);
    assert!(
        after["inputRequests"].get(key).is_none(),
        "{transport}: an answered key is gone: {after}"
    );
    let done = poll_until(session, &id, status_is("completed"));
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Exported 10000 rows of users to users.csv (e-mail addresses anonymized).",
        "{transport}"
    );
}

/// The same export from a client without the extension: a multi-round request.
fn export_without_tasks(session: &mut impl Session, transport: &str) {
    let call = |answers: Option<(Value, &str)>| {
        let mut params = json!({"name": "export_table", "arguments": {"table": "orders"}});
        if let Some((answers, state)) = answers {
            params["inputResponses"] = answers;
            params["requestState"] = json!(state);
        }
        message(2, "tools/call", params, false)
    };
    let first = session.send(&call(None));
    assert_eq!(
        first["result"]["resultType"], "input_required",
        "{transport}: {first}"
    );
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answers = json!({"choice": accept(false)});
    let done = session.send(&call(Some((answers, &state))));
    assert_eq!(
        done["result"]["content"][0]["text"], "Exported 10000 rows of orders to orders.csv.",
        "{transport}: {done}"
    );
}

#[test]
fn an_export_runs_as_a_task_and_asks_halfway_over_both_transports() {
    let mut stdio = StdioClient::example("long_task", &["--step-ms", "40"]);
    export_as_task(&mut stdio, "stdio");
    export_without_tasks(&mut stdio, "stdio");

    let server = ExampleServer::named("long_task")
        .with_args(["--step-ms", "40"])
        .http();
    let mut http = HttpClient::new(server.url());
    export_as_task(&mut http, "HTTP");
    export_without_tasks(&mut http, "HTTP");
}

// ----- Scaled out -----

const STATE_KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

fn instance(label: &str, args: &[&str]) -> HttpServer {
    ExampleServer::named("long_task")
        .with_args(args.iter().copied())
        .with_env("MCP_REQUEST_STATE_KEY", STATE_KEY)
        .labelled(label)
        .http()
}

#[test]
fn a_task_started_on_one_instance_is_polled_answered_and_finished_on_another() {
    let Some(redis) = RedisServer::start("long_task_split") else {
        return;
    };
    let shared = ["--redis", &redis.url(), "--step-ms", "40"];
    let (a, b) = (instance("task-a", &shared), instance("task-b", &shared));
    let (mut on_a, mut on_b) = (HttpClient::new(a.url()), HttpClient::new(b.url()));

    let created = on_a.send(&export(1, "invoices"));
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // B finds it at once: it was stored before A answered.
    assert_eq!(get(&mut on_b, &id)["taskId"], id.as_str());

    let asking = poll_until(&mut on_b, &id, status_is("input_required"));
    let key = asking["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    answer(&mut on_b, &id, json!({ key: accept(false) }));
    let done = poll_until(&mut on_a, &id, status_is("completed"));
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Exported 10000 rows of invoices to invoices.csv."
    );
    // The second half ran where the answer arrived.
    assert!(
        b.output().contains("export finished: invoices"),
        "{}",
        b.output()
    );
    assert!(!a.output().contains("export finished"), "{}", a.output());

    // An instance with a store of its own knows nothing of it.
    let alone = instance("task-alone", &["--step-ms", "40"]);
    let response =
        HttpClient::new(alone.url()).send(&message(5, "tasks/get", json!({"taskId": id}), true));
    assert_eq!(
        response["error"]["code"],
        code::INVALID_PARAMS,
        "{response}"
    );
}

#[test]
fn a_task_cancelled_on_another_instance_stops_where_it_runs() {
    let Some(redis) = RedisServer::start("long_task_cancel") else {
        return;
    };
    let shared = ["--redis", &redis.url(), "--step-ms", "60000"];
    let (a, b) = (instance("cancel-a", &shared), instance("cancel-b", &shared));
    let (mut on_a, mut on_b) = (HttpClient::new(a.url()), HttpClient::new(b.url()));
    let created = on_a.send(&export(1, "logs"));
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let ack = on_b.send(&message(2, "tasks/cancel", json!({"taskId": id}), true));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(get(&mut on_a, &id)["status"], "cancelled");
    // A's handler hears of it at its next poll and stops; the task stays cancelled, and A
    // goes on serving.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !a.output().contains("export cancelled: logs") {
        assert!(
            Instant::now() < deadline,
            "A's handler never stopped: {}",
            a.output()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(get(&mut on_a, &id)["status"], "cancelled");
    let created = on_a.send(&export(3, "other"));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
}
