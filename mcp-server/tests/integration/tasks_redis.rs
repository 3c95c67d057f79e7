//! [`RedisTaskStore`] against a real `redis-server` (started by each test on a free port, no
//! persistence): create once, load, compare-and-swap where exactly one of many concurrent
//! writers wins, expiry honoured, tasks shared by two servers and surviving a restart of the
//! one that created them, and a Redis that is gone fails the request closed.
//!
//! Without a `redis-server` binary the tests print a loud SKIP and pass, except under CI.

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use typemcp_server::tasks::{RedisTaskStore, TaskEntry, TaskShare, TaskStore, TaskStoreError};
use typemcp_server::{Server, tool};

use crate::support::wire::{reply, request};

fn now_ms() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    u64::try_from(since.as_millis()).unwrap()
}

fn entry(version: u64, expires_at_ms: u64, data: &str) -> TaskEntry {
    TaskEntry {
        version,
        expires_at_ms,
        data: data.to_owned(),
    }
}

#[tokio::test]
async fn tasks_are_created_once_and_replaced_only_at_the_version_read() {
    let redis = redis_or_skip!();
    let store = RedisTaskStore::connect(&redis.url())
        .await
        .unwrap()
        .with_key_prefix("test:task:");
    let later = now_ms() + 60_000;
    assert!(
        store
            .create("t1", entry(1, later, "{\"a\":1}"), &anyone())
            .await
            .unwrap()
    );
    assert!(
        !store
            .create("t1", entry(1, later, "{}"), &anyone())
            .await
            .unwrap()
    );
    assert_eq!(
        store.load("t1").await.unwrap(),
        Some(entry(1, later, "{\"a\":1}"))
    );
    assert!(
        store
            .replace("t1", 1, entry(2, later, "{\"a\":2}"), &anyone())
            .await
            .unwrap()
    );
    assert!(
        !store
            .replace("t1", 1, entry(3, later, "{\"a\":3}"), &anyone())
            .await
            .unwrap()
    );
    assert_eq!(store.load("t1").await.unwrap().unwrap().data, "{\"a\":2}");
    assert!(
        !store
            .replace("nope", 1, entry(2, later, "{}"), &anyone())
            .await
            .unwrap()
    );
    assert_eq!(store.load("nope").await.unwrap(), None);
    // A task that never expires is kept without a TTL.
    assert!(
        store
            .create("forever", entry(1, u64::MAX, "{}"), &anyone())
            .await
            .unwrap()
    );
    assert_eq!(
        store.load("forever").await.unwrap().unwrap().expires_at_ms,
        u64::MAX
    );
}

#[tokio::test]
async fn of_many_concurrent_writers_of_one_version_exactly_one_wins() {
    let redis = redis_or_skip!();
    let store = Arc::new(RedisTaskStore::connect(&redis.url()).await.unwrap());
    let later = now_ms() + 60_000;
    assert!(
        store
            .create("race", entry(1, later, "{}"), &anyone())
            .await
            .unwrap()
    );
    let writers = (0..16).map(|i| {
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            store
                .replace(
                    "race",
                    1,
                    entry(2, later, &format!("{{\"w\":{i}}}")),
                    &anyone(),
                )
                .await
                .unwrap()
        })
    });
    let mut wins = 0;
    for writer in writers {
        wins += usize::from(writer.await.unwrap());
    }
    assert_eq!(wins, 1);
}

#[tokio::test]
async fn an_expired_task_is_gone() {
    let redis = redis_or_skip!();
    let store = RedisTaskStore::connect(&redis.url()).await.unwrap();
    assert!(
        store
            .create("short", entry(1, now_ms() + 150, "{}"), &anyone())
            .await
            .unwrap()
    );
    assert!(store.load("short").await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(store.load("short").await.unwrap(), None);
}

#[tokio::test]
async fn a_redis_that_is_gone_fails_closed() {
    let mut redis = redis_or_skip!();
    let store = RedisTaskStore::connect_with_timeout(&redis.url(), Duration::from_millis(300))
        .await
        .unwrap();
    redis.kill();
    let err = store.load("t").await.unwrap_err();
    assert!(
        matches!(
            err,
            TaskStoreError::Unavailable(_) | TaskStoreError::Timeout(_)
        ),
        "{err}"
    );
    let unreachable = RedisTaskStore::connect_with_timeout(
        &format!("redis://127.0.0.1:{}/", crate::support::redis::free_port()),
        Duration::from_millis(300),
    )
    .await;
    assert!(unreachable.is_err());
}

/// Sleeps, then answers.
#[tool(task)]
async fn nap() -> &'static str {
    tokio::time::sleep(Duration::from_millis(50)).await;
    "rested"
}

async fn server(redis: &crate::support::redis::RedisServer) -> Server {
    let store = RedisTaskStore::connect(&redis.url()).await.unwrap();
    Server::builder()
        .tool(nap)
        .task_store(store)
        .task_poll_interval(Duration::from_millis(20))
        .build()
        .unwrap()
}

/// `method` with `params`, from a client declaring the tasks extension.
async fn send(server: &Server, method: &str, params: Value) -> Value {
    let caps = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    reply(server, &request(method, params, caps)).await
}

#[tokio::test]
async fn a_task_outlives_the_server_that_created_it() {
    let redis = redis_or_skip!();
    let first = server(&redis).await;
    let created = send(&first, "tools/call", json!({"name": "nap"})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Let it finish, then replace the server: the task is still there, with its result.
    let mut status = Value::Null;
    for _ in 0..200 {
        status = send(&first, "tasks/get", json!({"taskId": id})).await["result"]["status"].clone();
        if status == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, "completed");
    first.shutdown();
    drop(first);
    let restarted = server(&redis).await;
    let task = send(&restarted, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(task["result"]["status"], "completed", "{task}");
    assert_eq!(task["result"]["result"]["content"][0]["text"], "rested");

    // With Redis gone, task requests fail closed, and calls that need no store still work.
    drop(redis);
    let reply = send(&restarted, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(reply["error"]["message"], "Internal error");
    let reply = send(&restarted, "tools/call", json!({"name": "nap"})).await;
    assert_eq!(
        reply["error"]["code"], -32603,
        "a task cannot be stored: {reply}"
    );
}

/// A task of some caller, live, under no quota of note.
fn anyone() -> TaskShare {
    TaskShare::new("anyone", true, usize::MAX)
}
