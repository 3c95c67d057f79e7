//! Interoperability with a client of protocol 2025-11-25: the official TypeScript SDK 1.x
//! client (`@modelcontextprotocol/sdk`, pinned with a Node 22 runtime in
//! `interop/ts-legacy/package.json` and installed from its `package-lock.json` by the shared
//! bootstrap of `tests/common/npm.rs`) opens with `initialize` and completes the `deploy`
//! example to production, over Streamable HTTP and over stdio (`StdioClientTransport`
//! spawning the example), through pushed elicitation: the server sends each question of the
//! multi-round handler to the client as an `elicitation/create` request and runs the same
//! handler again with the answers, all within the client's one `tools/call`.
//!
//! `interop/ts-legacy/deploy_client.mjs` prints the report the assertions of
//! `tests/common/client_report.rs` read. The last test runs the modern client of
//! `interop/ts/` (protocol 2026-07-28, `input_required` rounds) and this one against one
//! deploy server: the same handler serves both eras side by side.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::common::client_report::{
    assert_deployed_to_production, assert_deployed_to_production_by_push,
    assert_listed_and_read_regions_as_text,
};
use crate::common::npm::NodePackages;
use crate::common::{ChildGuard, ExampleServer, Launch};

/// How long one client run (start, connect, every round) may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `node <script> <args>` in the pinned folder `folder` and returns the JSON report it
/// printed, its output kept in `target/interop-ts-legacy/<name>.*`.
fn run_node(folder: &str, script: &str, args: &[&str], name: &str) -> Value {
    let packages = NodePackages::install(folder);
    let out = crate::common::out_dir("interop-ts-legacy");
    let stdout_path = out.join(format!("{name}.json"));
    let stderr_path = out.join(format!("{name}.stderr"));
    let mut command = Command::new(packages.node());
    command
        .arg(script)
        .args(args)
        .current_dir(packages.dir())
        .stdin(std::process::Stdio::null())
        .stdout(fs::File::create(&stdout_path).unwrap())
        .stderr(fs::File::create(&stderr_path).unwrap());
    let mut child = ChildGuard::spawn(&mut command);
    let status = child
        .wait_timeout(RUN_TIMEOUT)
        .unwrap_or_else(|| panic!("the TypeScript client ({name}) ran over {RUN_TIMEOUT:?}"));
    let stdout = fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
    assert!(
        status.success(),
        "the TypeScript client ({name}) failed ({status}):\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("the TypeScript client ({name}) printed no JSON report ({e}):\n{stdout}\n{stderr}")
    })
}

/// The 1.x client's report after deploying to production with the server at `where_`
/// (`http` URL or `stdio` executable).
pub(crate) fn legacy_deploy(mode: &str, where_: &str, name: &str) -> Value {
    let args = [mode, where_, "production"];
    run_node("interop/ts-legacy", "deploy_client.mjs", &args, name)
}

/// How many deploys the server logging to `output` rolled out.
fn rolled_out(output: &str) -> usize {
    output.matches("rolling out:").count()
}

#[test]
fn ts_legacy_client_deploys_over_http_through_pushed_elicitation() {
    let deploy = Launch::from(ExampleServer::named("deploy"))
        .labelled("ts-legacy")
        .http();
    let report = legacy_deploy("http", &deploy.url(), "deploy-http");
    assert_deployed_to_production_by_push(&report);
    assert_listed_and_read_regions_as_text(&report);
    assert_eq!(
        rolled_out(&deploy.output()),
        1,
        "the deploy ran once: {}",
        deploy.output()
    );
}

#[test]
fn ts_legacy_client_deploys_over_stdio_through_pushed_elicitation() {
    let server = crate::common::example_binary("deploy");
    let report = legacy_deploy("stdio", path_str(&server), "deploy-stdio");
    assert_deployed_to_production_by_push(&report);
    assert_listed_and_read_regions_as_text(&report);
    assert_eq!(
        report["rolledOut"].as_array().map(Vec::len),
        Some(1),
        "the deploy ran once: {report}"
    );
}

#[test]
fn one_deploy_server_serves_the_modern_and_the_legacy_typescript_clients() {
    let deploy = Launch::from(ExampleServer::named("deploy"))
        .labelled("ts-both-eras")
        .http();
    let url = deploy.url();
    let modern = run_node(
        "interop/ts",
        "mrtr_client.mjs",
        &[&url, "deploy"],
        "modern-deploy",
    );
    assert_eq!(modern["error"], Value::Null, "{modern}");
    assert_eq!(modern["protocolVersion"], "2026-07-28", "{modern}");
    assert_eq!(modern["posted"][0]["method"], "server/discover", "{modern}");
    assert_deployed_to_production(&modern);
    let legacy = legacy_deploy("http", &url, "legacy-deploy-beside-modern");
    assert_deployed_to_production_by_push(&legacy);
    assert_eq!(
        rolled_out(&deploy.output()),
        2,
        "each client's deploy ran once: {}",
        deploy.output()
    );
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
