//! The `deploy` example behind a real load balancer: nginx (Debian's package, started by the
//! test, `tests/common/nginx.rs`) round-robin over three instances with no affinity, sharing
//! one key ring and one Redis (`--redis`: single use and the 2025-11-25 sessions).
//!
//! - The official 1.x clients of protocol 2025-11-25 (Python `mcp` 1.x and the TypeScript SDK
//!   1.x, pinned in `interop/python-legacy` and `interop/ts-legacy`) each complete a
//!   production deploy 20 times out of 20 through it: `initialize` on one instance, the call
//!   on another, each of the three pushed questions answered wherever the balancer sends the
//!   answer (forwarded to the instance waiting for it). Every deploy ran once, and every
//!   instance served requests.
//! - The 2026-07-28 clients complete the same deploy 20 times each through the same balancer
//!   (each round a new request carrying `requestState`, verified and consumed once on
//!   whichever instance gets it): the Python SDK 2.x and TypeScript SDK 2.x clients (pinned
//!   in `interop/python` and `interop/ts`) and the typed client.
//! - An instance stopped mid-flow: the call it held ends with it, the answer to its question
//!   is refused with 410 and a message saying so, and the session goes on on the others; a
//!   session deleted through the balancer is 404 on every instance.
//!
//! Without nginx or redis-server the tests print a loud SKIPPED and pass, except under CI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use typemcp_client::{Client, EraChoice, ToolResultExt};

use crate::common::client_report::{
    assert_deployed_to_production, assert_deployed_to_production_by_push,
};
use crate::common::nginx::Nginx;
use crate::common::python::{python, run_report};
use crate::common::redis::RedisServer;
use crate::common::{ExampleServer, HttpServer};

/// How many deploys each client completes.
const RUNS: usize = 20;

/// Three `deploy` instances sharing a key ring and `redis`, behind nginx.
struct Deployment {
    instances: Vec<HttpServer>,
    nginx: Nginx,
    _redis: RedisServer,
}

fn deployment(test: &str) -> Option<Deployment> {
    let redis = RedisServer::start(test)?;
    let ring = format!("k1:{}", STANDARD.encode([9u8; 32]));
    let instances: Vec<HttpServer> = ["a", "b", "c"]
        .iter()
        .map(|name| {
            ExampleServer::named("deploy")
                .with_args(["--redis", &redis.url()])
                .with_env("MCP_REQUEST_STATE_KEYS", &ring)
                .without_env("MCP_REQUEST_STATE_KEY")
                .labelled(&format!("{test}-{name}"))
                .http()
        })
        .collect();
    let ports: Vec<u16> = instances.iter().map(|i| i.port).collect();
    let nginx = Nginx::start(test, &ports)?;
    Some(Deployment {
        instances,
        nginx,
        _redis: redis,
    })
}

impl Deployment {
    /// How many deploys the instances rolled out, together.
    fn rolled_out(&self) -> usize {
        let each = self
            .instances
            .iter()
            .map(|i| i.output().matches("rolling out:").count());
        each.sum()
    }
}

#[test]
fn legacy_python_and_typescript_clients_deploy_20_of_20_through_round_robin_nginx() {
    let Some(python) = python("interop/python-legacy") else {
        return;
    };
    let Some(deployment) = deployment("balancer-legacy") else {
        return;
    };
    let url = deployment.nginx.url();
    for run in 0..RUNS {
        let report = run_report(
            &python,
            "interop/python-legacy",
            "deploy_client.py",
            &["http", &url, "production"],
            &format!("balancer-{run}"),
        );
        assert_deployed_to_production_by_push(&report);
    }
    assert_eq!(deployment.rolled_out(), RUNS, "each Python deploy ran once");
    for run in 0..RUNS {
        let name = format!("balancer-{run}");
        let report = crate::interop_ts_legacy::legacy_deploy("http", &url, &name);
        assert_deployed_to_production_by_push(&report);
    }
    assert_eq!(
        deployment.rolled_out(),
        2 * RUNS,
        "each TypeScript deploy ran once"
    );
    for instance in &deployment.instances {
        let output = instance.output();
        assert!(
            output.contains("rolling out:"),
            "every instance served some of the calls: {output}"
        );
    }
}

/// Asserts a report of a 2026-07-28 client: opened with `server/discover`, deployed.
#[track_caller]
fn assert_modern_deploy(report: &Value) {
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["protocolVersion"], "2026-07-28", "{report}");
    assert_eq!(report["posted"][0]["method"], "server/discover", "{report}");
    assert_deployed_to_production(report);
}

#[test]
fn modern_python_and_typescript_clients_deploy_20_of_20_through_the_same_balancer() {
    let Some(python) = python("interop/python") else {
        return;
    };
    let Some(deployment) = deployment("balancer-modern-peers") else {
        return;
    };
    let url = deployment.nginx.url();
    for run in 0..RUNS {
        let report = run_report(
            &python,
            "interop/python",
            "deploy_client.py",
            &[&url, "production"],
            &format!("balancer-{run}"),
        );
        assert_modern_deploy(&report);
    }
    for run in 0..RUNS {
        let name = format!("balancer-{run}");
        let report = crate::interop_ts::run_script("mrtr_client.mjs", &[&url, "deploy"], &name);
        assert_modern_deploy(&report);
    }
    assert_eq!(deployment.rolled_out(), 2 * RUNS, "each deploy ran once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typed_client_deploys_20_of_20_through_the_same_balancer() {
    let Some(deployment) = tokio::task::spawn_blocking(|| deployment("balancer-modern"))
        .await
        .unwrap()
    else {
        return;
    };
    for run in 0..RUNS {
        let client = Client::builder()
            .era(EraChoice::Modern)
            .answers(crate::client_examples::production_deploy())
            .connect_http(&deployment.nginx.url())
            .await
            .unwrap();
        let result = client
            .call_tool("deploy", json!({"target": "production"}))
            .await
            .unwrap();
        assert!(
            result.text().contains("us-east-1"),
            "run {run}: {}",
            result.text()
        );
    }
    assert_eq!(deployment.rolled_out(), RUNS);
    let _ = tokio::task::spawn_blocking(move || drop(deployment)).await;
}

/// A POST of `message` to `url` on a 2025-11-25 `session` (if any), accepting JSON and SSE.
fn post(url: &str, session: Option<&str>, message: &Value) -> reqwest::blocking::Response {
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .build()
        .unwrap();
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    request.send().unwrap()
}

#[test]
fn an_instance_stopped_mid_flow_ends_its_call_and_the_session_goes_on() {
    let Some(mut deployment) = deployment("balancer-stopped") else {
        return;
    };
    let url = deployment.nginx.url();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}, "url": {}}},
        "clientInfo": {"name": "balancer-test", "version": "1"}}});
    let opened = post(&url, None, &initialize);
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    // The call goes to instance A itself, which pushes its first question on the stream.
    let a = deployment.instances.remove(0);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "deploy", "arguments": {"target": "production"}}});
    let stream = post(&a.url(), Some(&session), &call);
    assert_eq!(stream.status(), 200);
    let mut lines = BufReader::new(stream).lines();
    let pushed: Value = loop {
        let line = lines
            .next()
            .expect("the stream ended before a question")
            .unwrap();
        if let Some(data) = line.strip_prefix("data:")
            && let Ok(message) = serde_json::from_str::<Value>(data.trim())
            && message["method"] == "elicitation/create"
        {
            break message;
        }
    };
    drop(a);
    // Its stream ends with it, without the call's result.
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        !rest.iter().any(|line| line.contains("\"result\"")),
        "no result after the instance stopped: {rest:?}"
    );
    let answer = json!({"jsonrpc": "2.0", "id": pushed["id"],
                        "result": {"action": "accept", "content": {"ok": true}}});
    let refused = post(&url, Some(&session), &answer);
    assert_eq!(refused.status(), 410);
    let body: Value = serde_json::from_str(&refused.text().unwrap()).unwrap();
    let said = body["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("no longer running"), "{said}");
    // The session lives on the other instances: the call again, through the balancer.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    for _ in 0..4 {
        let listed = post(&url, Some(&session), &list);
        assert_eq!(listed.status(), 200);
    }
    // Deleted through the balancer, it is gone on every instance.
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .build()
        .unwrap();
    let deleted = client
        .delete(&url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .unwrap();
    assert_eq!(deleted.status(), 200);
    // Each instance acts on the announcement as it arrives, well before the second after
    // which it would read the session from Redis anyway.
    let deadline = Instant::now() + Duration::from_millis(300);
    for instance in &deployment.instances {
        while post(&instance.url(), Some(&session), &list).status() != 404 {
            assert!(
                Instant::now() < deadline,
                "{} still serves the session",
                instance.url()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
