//! [`RedisStore`] against a real `redis-server`, started by each test on a free port (no
//! persistence) and killed at its end: fresh then already used, the expiry honoured, two
//! servers sharing one Redis, a Redis that is unreachable, dies, or never answers fails
//! closed, quickly, and a Redis that lost its data (restarted without persistence, or
//! `FLUSHALL`) refuses the states minted before the loss while new flows work.
//!
//! Without a `redis-server` binary the tests print a loud SKIP and pass, except under CI
//! (`CI` set), where they fail.

#![cfg(feature = "redis")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use typemcp_server::state::single_use::{Consumption, RedisStore, SingleUseStore, StoreError};
use typemcp_server::state::{Reply, RequestStateSigner, Round, Step};
use typemcp_server::{Server, State, tool};

use crate::support::confirm::{Confirm, Flow, FlowAnswered, FlowAsking};
use crate::support::redis::{RedisServer, free_port};
use crate::support::wire::{reply, tool_call};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A raw connection to check what the store wrote.
async fn raw(redis: &RedisServer) -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

// ----- The store -----

#[tokio::test]
async fn a_key_is_fresh_once_then_already_used() {
    let redis = redis_or_skip!();
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    assert_eq!(store.key_prefix(), RedisStore::DEFAULT_KEY_PREFIX);
    let until = now() + 600;
    assert_eq!(
        store.consume([1; 32], now(), until).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([1; 32], now(), until).await.unwrap(),
        Consumption::AlreadyUsed
    );
    assert_eq!(
        store.consume([2; 32], now(), until).await.unwrap(),
        Consumption::Fresh
    );
    // What Redis holds: the prefix and the digest in hex, expiring just after `until`.
    let mut raw = raw(&redis).await;
    let key = format!("mcp:request-state:used:{}", "01".repeat(32));
    let expire_at: i64 = redis::cmd("EXPIRETIME")
        .arg(&key)
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(expire_at, i64::try_from(until + 1).unwrap());
    // Another prefix is another namespace.
    let other = RedisStore::connect(&redis.url())
        .await
        .unwrap()
        .with_key_prefix("other:")
        .await
        .unwrap();
    assert_eq!(
        other.consume([1; 32], now(), until).await.unwrap(),
        Consumption::Fresh
    );
    let exists: bool = redis::cmd("EXISTS")
        .arg(format!("other:{}", "01".repeat(32)))
        .query_async(&mut raw)
        .await
        .unwrap();
    assert!(exists);
}

#[tokio::test]
async fn the_expiry_is_honoured() {
    let redis = redis_or_skip!();
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let until = now() + 1;
    assert_eq!(
        store.consume([3; 32], now(), until).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([3; 32], now(), until).await.unwrap(),
        Consumption::AlreadyUsed
    );
    // Remembered through the whole second `until`, forgotten after it.
    loop {
        let at = now();
        let found = store.consume([3; 32], now(), until).await.unwrap();
        if at <= until {
            assert_eq!(found, Consumption::AlreadyUsed, "forgotten at {at}");
        } else if found == Consumption::Fresh {
            break;
        }
        assert!(at <= until + 2, "still remembered at {at}, until {until}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn concurrent_consumers_on_separate_connections_find_it_fresh_once() {
    let redis = redis_or_skip!();
    let mut stores = Vec::new();
    for _ in 0..4 {
        stores.push(Arc::new(RedisStore::connect(&redis.url()).await.unwrap()));
    }
    let until = now() + 60;
    let tasks: Vec<_> = (0..32)
        .map(|i| {
            let store = Arc::clone(&stores[i % stores.len()]);
            tokio::spawn(async move { store.consume([4; 32], now(), until).await.unwrap() })
        })
        .collect();
    let mut fresh = 0;
    for task in tasks {
        if task.await.unwrap() == Consumption::Fresh {
            fresh += 1;
        }
    }
    assert_eq!(fresh, 1);
}

// ----- Failing closed -----

#[tokio::test]
async fn an_unreachable_redis_fails_closed_quickly() {
    let port = free_port();
    let started = Instant::now();
    let err = RedisStore::connect(&format!("redis://127.0.0.1:{port}/"))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        matches!(err, StoreError::Unavailable(_) | StoreError::Timeout(_)),
        "{err:?}"
    );
    // Not a URL at all.
    let err = RedisStore::connect("not a url").await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn a_redis_that_dies_fails_closed_within_the_timeout() {
    let mut redis = redis_or_skip!();
    let timeout = Duration::from_millis(500);
    let store = RedisStore::connect_with_timeout(&redis.url(), timeout)
        .await
        .unwrap();
    assert_eq!(store.timeout(), timeout);
    let until = now() + 60;
    assert_eq!(
        store.consume([5; 32], now(), until).await.unwrap(),
        Consumption::Fresh
    );
    redis.kill();
    for attempt in 0..3 {
        let started = Instant::now();
        let result = store.consume([6; 32], now(), until).await;
        assert!(result.is_err(), "attempt {attempt}: {result:?}");
        assert!(
            started.elapsed() < timeout * 3,
            "attempt {attempt} took {:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn the_store_reconnects_once_redis_is_back_and_refuses_what_was_minted_before_the_loss() {
    let mut redis = redis_or_skip!();
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let opened = store.epoch().await.unwrap();
    assert!(
        opened.abs_diff(now()) <= 1,
        "connecting dates the epoch now"
    );
    let minted_at = now();
    let until = minted_at + 60;
    assert_eq!(
        store.consume([8; 32], minted_at, until).await.unwrap(),
        Consumption::Fresh
    );
    redis.kill();
    assert!(store.consume([8; 32], minted_at, until).await.is_err());
    // The same port again (a new, empty Redis without persistence): the same store works
    // again, and a state minted before the loss is refused, not taken as fresh.
    let _back = RedisServer::start_on(redis.port).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let epoch = loop {
        match store.consume([8; 32], minted_at, until).await {
            Ok(Consumption::MintedBeforeEpoch { epoch }) => break epoch,
            Ok(other) => panic!("a state minted before the loss was {other:?}"),
            Err(err) => assert!(Instant::now() < deadline, "never reconnected: {err}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Dated Redis's TIME plus the clock skew (5 s by default).
    let skew = RedisStore::DEFAULT_CLOCK_SKEW.as_secs();
    assert!(
        epoch >= now() + skew - 1 && epoch <= now() + skew + 1,
        "{epoch}"
    );
    assert_eq!(store.epoch().await.unwrap(), epoch, "the marker stays");
    // A state minted before the epoch is refused whatever its key; one minted from it on
    // is fresh once.
    for minted in [minted_at, epoch - 1] {
        assert_eq!(
            store.consume([9; 32], minted, epoch + 60).await.unwrap(),
            Consumption::MintedBeforeEpoch { epoch }
        );
    }
    assert_eq!(
        store.consume([9; 32], epoch, epoch + 60).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([9; 32], epoch, epoch + 60).await.unwrap(),
        Consumption::AlreadyUsed
    );
}

#[tokio::test]
async fn the_epoch_marker_never_expires_and_a_refused_state_records_nothing() {
    let redis = redis_or_skip!();
    let store = RedisStore::connect(&redis.url())
        .await
        .unwrap()
        .with_key_prefix("edge:")
        .await
        .unwrap();
    assert_eq!(store.epoch_key(), "edge:epoch");
    let mut raw = raw(&redis).await;
    let ttl: i64 = redis::cmd("TTL")
        .arg("edge:epoch")
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(ttl, -1, "no expiry");
    let epoch = store.epoch().await.unwrap();
    assert_eq!(
        store.consume([1; 32], epoch - 1, now() + 60).await.unwrap(),
        Consumption::MintedBeforeEpoch { epoch }
    );
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg("edge:*")
        .query_async(&mut raw)
        .await
        .unwrap();
    assert_eq!(keys, ["edge:epoch"]);
}

#[tokio::test]
async fn a_redis_that_never_answers_times_out() {
    // Accepts connections, reads nothing, answers nothing.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            open.push(socket);
        }
    });
    let timeout = Duration::from_millis(300);
    let started = Instant::now();
    let result = match RedisStore::connect_with_timeout(
        &format!("redis://127.0.0.1:{port}/"),
        timeout,
    )
    .await
    {
        // Connecting may need no answer (RESP2, no password): the command then times out.
        Ok(store) => store.consume([7; 32], now(), now() + 60).await.map(|_| ()),
        Err(err) => Err(err),
    };
    let err = result.unwrap_err();
    assert!(
        started.elapsed() < timeout * 4,
        "took {:?}",
        started.elapsed()
    );
    assert!(
        matches!(err, StoreError::Timeout(_) | StoreError::Unavailable(_)),
        "{err:?}"
    );
    held.abort();
}

// ----- Through a server -----

/// How many times `launch` ran its action.
#[derive(Clone, Default)]
struct Launched(Arc<AtomicU32>);

/// Asks once, then launches.
#[tool(destructive)]
async fn launch(round: Round<Flow>, launched: State<Launched>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Launch?".into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok: true }),
        }) => {
            launched.0.0.fetch_add(1, Ordering::SeqCst);
            Step::done("Launched.".to_owned())
        }
        Some(_) => Step::done("Not launched.".to_owned()),
    }
}

/// One instance: its own connection to the shared Redis, the shared key.
async fn instance(redis: &RedisServer, launched: &Launched) -> Server {
    instance_with_skew(redis, launched, RedisStore::DEFAULT_CLOCK_SKEW).await
}

/// [`instance`], its store tolerating `skew` between the clocks.
async fn instance_with_skew(redis: &RedisServer, launched: &Launched, skew: Duration) -> Server {
    let store = RedisStore::connect(&redis.url())
        .await
        .unwrap()
        .with_clock_skew(skew);
    let signer = RequestStateSigner::new([9u8; 32])
        .unwrap()
        .single_use(store);
    Server::builder()
        .state(launched.clone())
        .tool(launch)
        .request_state_signer(signer)
        .build()
        .unwrap()
}

/// `launch` called with the `extra` params, from a client answering forms.
async fn call(server: &Server, extra: Value) -> Value {
    let caps = json!({"elicitation": {}});
    reply(server, &tool_call("launch", json!({}), extra, caps)).await
}

#[tokio::test]
async fn two_instances_sharing_a_redis_refuse_a_replay_on_either() {
    let mut redis = redis_or_skip!();
    let launched = Launched::default();
    let (a, b) = (
        instance(&redis, &launched).await,
        instance(&redis, &launched).await,
    );
    let first = call(&a, json!({})).await;
    let token = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
                        "requestState": token});
    let done = call(&b, answer.clone()).await;
    assert_eq!(done["result"]["content"][0]["text"], "Launched.", "{done}");
    for server in [&a, &b] {
        let replay = call(server, answer.clone()).await;
        assert_eq!(
            replay["error"],
            json!({"code": -32602, "message": "Invalid or expired \"requestState\""}),
            "{replay}"
        );
    }
    assert_eq!(launched.0.load(Ordering::SeqCst), 1);
    // With Redis gone, a fresh state fails closed: an internal error, the action not run.
    let second = call(&a, json!({})).await;
    let token = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    redis.kill();
    let mut answer = answer;
    answer["requestState"] = json!(token);
    let started = Instant::now();
    let reply = call(&b, answer).await;
    assert_eq!(
        reply["error"],
        json!({"code": -32603, "message": "Internal error"}),
        "{reply}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(launched.0.load(Ordering::SeqCst), 1);
}

/// The answer that launches, echoing `state`.
fn launch_answer(state: &Value) -> Value {
    json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
           "requestState": state})
}

/// Calls until the store answers (not `-32603` while the connection comes back), for 10 s.
async fn call_once_reconnected(server: &Server, extra: Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = call(server, extra.clone()).await;
        if reply["error"]["code"] != -32603 {
            return reply;
        }
        assert!(Instant::now() < deadline, "never reconnected: {reply}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs a flow to its end on `server`; returns the final answer (the final state in it).
async fn finish_flow(server: &Server) -> Value {
    let first = call(server, json!({})).await;
    let answer = launch_answer(&first["result"]["requestState"]);
    let done = call(server, answer.clone()).await;
    assert_eq!(done["result"]["content"][0]["text"], "Launched.", "{done}");
    answer
}

/// Waits (at most `skew` + 2 s) until the clock reaches the store's epoch, read from its
/// marker: a flow minted from then on is vouched for.
async fn wait_for_epoch(redis: &RedisServer) {
    let mut raw = raw(redis).await;
    let epoch: u64 = redis::cmd("GET")
        .arg(format!("{}epoch", RedisStore::DEFAULT_KEY_PREFIX))
        .query_async(&mut raw)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(4);
    while now() < epoch {
        assert!(Instant::now() < deadline, "epoch {epoch} too far ahead");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn after_redis_loses_its_data_a_finished_flows_final_state_is_refused_and_new_flows_work() {
    crate::support::log_capture::capture_logs();
    let mut redis = redis_or_skip!();
    let launched = Launched::default();
    let skew = Duration::from_secs(1);
    let (a, b) = (
        instance_with_skew(&redis, &launched, skew).await,
        instance_with_skew(&redis, &launched, skew).await,
    );
    let refused = json!({"code": -32602, "message": "Invalid or expired \"requestState\""});

    // 1. A restart without persistence (`--save "" --appendonly no`): the final state of the
    //    flow finished just before is refused on either instance, and nothing runs again.
    let final_answer = finish_flow(&a).await;
    assert_eq!(launched.0.load(Ordering::SeqCst), 1);
    let port = redis.port;
    redis.kill();
    let redis = RedisServer::start_on(port).unwrap();
    for server in [&b, &a] {
        let replay = call_once_reconnected(server, final_answer.clone()).await;
        assert_eq!(replay["error"], refused, "{replay}");
    }
    assert_eq!(launched.0.load(Ordering::SeqCst), 1, "no second launch");
    let logged = crate::support::log_capture::log_lines()
        .iter()
        .any(|line| line.contains("before the single-use store's epoch"));
    assert!(logged, "the reason is in the log");

    // 2. A new flow after the loss works (once the clock passes the epoch: up to `skew`).
    wait_for_epoch(&redis).await;
    let second = finish_flow(&b).await;
    assert_eq!(launched.0.load(Ordering::SeqCst), 2);
    let replay = call(&a, second.clone()).await;
    assert_eq!(replay["error"], refused, "an ordinary replay: {replay}");

    // 3. FLUSHALL: the same.
    let mut raw = raw(&redis).await;
    let () = redis::cmd("FLUSHALL").query_async(&mut raw).await.unwrap();
    let replay = call(&a, second).await;
    assert_eq!(replay["error"], refused, "after FLUSHALL: {replay}");
    assert_eq!(launched.0.load(Ordering::SeqCst), 2);
    wait_for_epoch(&redis).await;
    finish_flow(&a).await;
    assert_eq!(launched.0.load(Ordering::SeqCst), 3);

    // 4. Redis down: a fresh state still fails closed (`-32603`), nothing runs.
    let first = call(&a, json!({})).await;
    drop(raw);
    drop(redis);
    let reply = call(&b, launch_answer(&first["result"]["requestState"])).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(launched.0.load(Ordering::SeqCst), 3);
}
