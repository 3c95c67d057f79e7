//! The `long_task` example over the raw wire: its task's status, and scaled out, two HTTP
//! instances sharing one `redis-server` (started by the test on a free port) and one state
//! key (a client talks to one instance; these tests pick which instance hears each request). Its export as
//! one client sees it, as a task or in rounds, on every wire and era, is in
//! `tests/end_to_end/client_examples.rs`.
//!
//! - The task's status shows the export's progress (what only the raw wire shows).
//! - A task started on instance A is polled and answered on B, and its second half runs on B.
//! - A task started on A is cancelled on B, and A's handler stops.
//! - An instance with its own memory store knows nothing of either (the control).
//!
//! Without `redis-server` these tests print a loud SKIPPED and pass, except under CI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crate::common::redis::RedisServer;
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

/// What a client of the tasks extension reads of the export's progress, which a client that
/// follows the task to its result does not show: the task the call answers with at once
/// carries the progress reported before it became a task as its first status, and later
/// statuses keep counting the quarters.
#[test]
fn an_export_task_reports_its_progress_as_its_status() {
    // Quarters slow enough that a poll sees the second one's status under load.
    let server = ExampleServer::named("long_task")
        .with_args(["--step-ms", "500"])
        .http();
    let mut http = HttpClient::new(server.url());
    let created = http.send(&export(1, "users"));
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working", "{created}");
    let first = "Exporting users, quarter 1 of 4 (0/4)";
    assert_eq!(created["statusMessage"], first, "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let counting = |task: &Value| {
        let message = task["statusMessage"].as_str().unwrap_or_default();
        message.starts_with("Exporting users, quarter") && message != first
    };
    poll_until(&mut http, &id, counting);
}

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
