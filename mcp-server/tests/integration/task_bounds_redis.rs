//! The bounds of tasks in [`RedisTaskStore`], against a real `redis-server` (started by each
//! test on a free loopback port, no persistence; issue 18, attacks 2, 3 and 5): a task's
//! stored call holds only its declared arguments and is released when it settles (checked
//! with `HSTRLEN` and `MEMORY USAGE`); one caller's quota of live tasks holds across two
//! instances while another caller is served; a full store makes a task tool answer directly;
//! reading the `taskIds` of a listen is one round trip (counted in `INFO commandstats`).
//!
//! Without a `redis-server` binary the tests print a loud SKIP and pass, except under CI.

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use typemcp_server::tasks::{RedisTaskStore, TaskEntry, TaskShare, TaskStore};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{RequestContext, Server, tool};

use crate::support::abuse::{Conn, JSON_AND_SSE, post, serve_http, within};
use crate::support::redis::RedisServer;
use crate::support::task_calls::{call, message, request, task_id};

/// Holds until cancelled (at most a minute).
#[tool(task)]
async fn hold(note: String, ctx: RequestContext) -> String {
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(60)) => note,
        () = ctx.cancellation().cancelled() => "released".to_owned(),
    }
}

/// Answers after a moment.
#[tool(task)]
async fn quick(note: String) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    note
}

async fn store(redis: &RedisServer) -> RedisTaskStore {
    RedisTaskStore::connect(&redis.url()).await.unwrap()
}

fn server_with(store: RedisTaskStore) -> typemcp_server::ServerBuilder {
    Server::builder()
        .tool(hold)
        .tool(quick)
        .task_store(store)
        .task_poll_interval(Duration::from_millis(20))
}

async fn until_settled(server: &Server, id: &str) -> Value {
    within(10, "a task that settles", async {
        loop {
            let reply = request(server, None, "tasks/get", json!({"taskId": id})).await;
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

async fn raw(redis: &RedisServer) -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The length of a task's JSON, and the memory Redis reports for its key.
async fn held(redis: &RedisServer, id: &str) -> (usize, usize) {
    let mut raw = raw(redis).await;
    let key = format!("{}{id}", RedisTaskStore::DEFAULT_KEY_PREFIX);
    let length: usize = redis::cmd("HSTRLEN")
        .arg(&key)
        .arg("d")
        .query_async(&mut raw)
        .await
        .unwrap();
    let memory: usize = redis::cmd("MEMORY")
        .arg("USAGE")
        .arg(&key)
        .query_async(&mut raw)
        .await
        .unwrap();
    (length, memory)
}

/// Calls per command, from `INFO commandstats`.
async fn command_calls(redis: &RedisServer) -> HashMap<String, u64> {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(&mut raw(redis).await)
        .await
        .unwrap();
    info.lines()
        .filter_map(|line| {
            let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = stats.split(',').find_map(|s| s.strip_prefix("calls="))?;
            Some((name.to_owned(), calls.parse().ok()?))
        })
        .collect()
}

/// What changed between two `command_calls`, the `INFO` and `HELLO`/`CLIENT` of the
/// measuring connections left out.
fn delta(before: &HashMap<String, u64>, after: &HashMap<String, u64>) -> HashMap<String, u64> {
    after
        .iter()
        .filter(|(name, _)| !["info", "hello", "client|setinfo", "ping"].contains(&name.as_str()))
        .filter_map(|(name, calls)| {
            let grew = calls - before.get(name).copied().unwrap_or(0);
            (grew > 0).then(|| (name.clone(), grew))
        })
        .collect()
}

#[tokio::test]
async fn a_task_in_redis_holds_only_its_declared_arguments_and_releases_them_when_it_settles() {
    let redis = redis_or_skip!();
    let server = server_with(store(&redis).await).build().unwrap();
    let junk = "j".repeat(1024 * 1024);
    let working = task_id(&call(&server, None, "hold", json!({"note": "n", "junk": junk})).await);
    let (length, memory) = held(&redis, &working).await;
    println!("working, 1 MiB unread: HSTRLEN {length} bytes, MEMORY USAGE {memory} bytes");
    assert!(length < 4096 && memory < 8192, "{length} / {memory}");
    request(&server, None, "tasks/cancel", json!({"taskId": working})).await;
    let (cancelled, memory) = held(&redis, &working).await;
    println!("cancelled: HSTRLEN {cancelled} bytes, MEMORY USAGE {memory} bytes");
    assert!(cancelled < length, "{cancelled} >= {length}");

    let note = "n".repeat(8000);
    let done = task_id(&call(&server, None, "quick", json!({"note": note})).await);
    assert_eq!(until_settled(&server, &done).await["status"], "completed");
    let entry = store(&redis).await.load(&done).await.unwrap().unwrap();
    let data: Value = serde_json::from_str(&entry.data).unwrap();
    assert!(
        data.get("call").is_none(),
        "a completed task keeps no call: {data}"
    );
    assert!(held(&redis, &done).await.0 < 8000 + 2048);
}

#[tokio::test]
async fn a_callers_quota_holds_across_instances_while_another_caller_is_served() {
    let redis = redis_or_skip!();
    let a = server_with(store(&redis).await)
        .max_live_tasks_per_caller(2)
        .build()
        .unwrap();
    let b = server_with(store(&redis).await)
        .max_live_tasks_per_caller(2)
        .build()
        .unwrap();
    let alice = Some("alice");
    let first = task_id(&call(&a, alice, "hold", json!({"note": "1"})).await);
    task_id(&call(&b, alice, "hold", json!({"note": "2"})).await);
    let refused = call(&a, alice, "hold", json!({"note": "3"})).await;
    assert_eq!(refused["error"]["code"], -32029, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 2")
    );
    task_id(&call(&b, Some("bob"), "hold", json!({"note": "b"})).await);
    // Cancelled on B, alice's task on A frees her slot at once, for every instance.
    request(&b, alice, "tasks/cancel", json!({"taskId": first})).await;
    task_id(&call(&a, alice, "hold", json!({"note": "4"})).await);
}

#[tokio::test]
async fn a_full_redis_store_makes_a_task_tool_answer_directly() {
    let redis = redis_or_skip!();
    let counted = server_with(store(&redis).await.with_capacity(1))
        .build()
        .unwrap();
    task_id(&call(&counted, Some("a"), "hold", json!({"note": "a"})).await);
    let reply = call(&counted, Some("b"), "quick", json!({"note": "direct"})).await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "direct");

    let redis = redis_or_skip!();
    let small = store(&redis).await.with_max_bytes(2048);
    let bytes = server_with(small).build().unwrap();
    task_id(&call(&bytes, Some("a"), "hold", json!({"note": "a".repeat(1000)})).await);
    let reply = call(
        &bytes,
        Some("b"),
        "quick",
        json!({"note": "n".repeat(1000)}),
    )
    .await;
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
}

#[tokio::test]
async fn load_many_reads_every_task_in_one_round_trip() {
    let redis = redis_or_skip!();
    let store = store(&redis).await;
    let ids: Vec<String> = (0..50).map(|i| format!("{i:032x}")).collect();
    let entry = TaskEntry {
        version: 1,
        expires_at_ms: u64::MAX,
        data: "{}".into(),
    };
    for id in ids.iter().step_by(2) {
        assert!(store.create(id, entry.clone(), &anyone()).await.unwrap());
    }
    let before = command_calls(&redis).await;
    let found = store.load_many(&ids).await.unwrap();
    let after = command_calls(&redis).await;
    assert_eq!(found.len(), 50);
    assert_eq!(found.iter().filter(|f| f.is_some()).count(), 25);
    assert_eq!(found[0], Some(entry));
    assert_eq!(found[1], None);
    let changed = delta(&before, &after);
    println!("load_many of 50 ids: {changed:?}");
    // One EVAL from the client; the HMGETs it runs inside Redis are counted too.
    assert_eq!(changed.get("eval"), Some(&1), "{changed:?}");
    assert_eq!(changed.get("hmget"), Some(&50), "{changed:?}");
    assert_eq!(changed.len(), 2, "{changed:?}");
}

#[tokio::test]
async fn a_listen_of_n_tasks_looks_them_up_in_one_round_trip() {
    const N: usize = 100;
    let redis = redis_or_skip!();
    let server = server_with(store(&redis).await).build().unwrap();
    let mut ids = Vec::new();
    for i in 0..N {
        ids.push(task_id(
            &call(&server, None, "quick", json!({"note": i.to_string()})).await,
        ));
    }
    for id in &ids {
        until_settled(&server, id).await;
    }
    let addr = serve_http(server, HttpConfig::default()).await;
    let before = command_calls(&redis).await;
    let mut conn = Conn::open(addr).await;
    let listen = message(
        "subscriptions/listen",
        json!({"notifications": {"taskIds": ids}}),
    );
    conn.write(&post(&listen, JSON_AND_SSE)).await.unwrap();
    let head = within(10, "the stream's head", conn.head()).await.unwrap();
    assert_eq!(head.status, 200);
    let mut events = conn.events();
    let ack = within(10, "the acknowledgement", events.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    let after = command_calls(&redis).await;
    let changed = delta(&before, &after);
    println!("a listen of {N} settled tasks: {changed:?}");
    assert_eq!(changed.get("eval"), Some(&1), "{changed:?}");
    assert_eq!(changed.get("hmget"), Some(&(N as u64)), "{changed:?}");
    assert_eq!(changed.len(), 2, "{changed:?}");
}

/// A task of some caller, live, under no quota of note.
fn anyone() -> TaskShare {
    TaskShare::new("anyone", true, usize::MAX)
}
