//! Interoperability with an independent client: the official TypeScript SDK client
//! (`@modelcontextprotocol/client`, pinned with a Node 22 runtime in `interop/ts/package.json`
//! and installed from `interop/ts/package-lock.json` by the shared bootstrap of
//! `tests/common/npm.rs`) against the `conformance_server` and `deploy` examples over
//! Streamable HTTP.
//!
//! `interop/ts/mrtr_client.mjs` pins protocol 2026-07-28 (`server/discover`), calls one
//! multi-round (SEP-2322, `input_required`) tool, lets the client fulfil each round through
//! its registered `elicitation/create` handler, and prints a JSON report: the negotiated
//! version, the questions it was asked, the requests it POSTed and the final text or error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::process::Command;
use std::sync::LazyLock;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::npm::NodePackages;
use crate::common::{ChildGuard, ExampleServer, HttpServer, code};

/// One fixture server for the whole binary, on a free loopback port.
static SERVER: LazyLock<HttpServer> = LazyLock::new(HttpServer::start);

/// How long one client run (start, connect, every round) may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The `deploy` example over HTTP, for the whole binary.
static DEPLOY: LazyLock<HttpServer> = LazyLock::new(|| ExampleServer::named("deploy").http());

/// Runs `node <script> <args…>` in `interop/ts`, its output in `target/interop-ts/<name>.*`;
/// the JSON report it printed. Fails when it does not finish in time, fails, or prints none.
pub(crate) fn run_script(script: &str, args: &[&str], name: &str) -> Value {
    let packages = NodePackages::install("interop/ts");
    let out = crate::common::out_dir("interop-ts");
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
        panic!("the TypeScript client printed no JSON report ({e}):\n{stdout}\n{stderr}")
    })
}

/// Runs `mrtr_client.mjs` for `scenario` against the server at `url` and returns its report.
fn run_client(url: &str, scenario: &str) -> Value {
    let report = run_script("mrtr_client.mjs", &[url, scenario], scenario);
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

#[test]
fn ts_client_completes_multi_round_elicitation() {
    let report = run_client(&SERVER.url(), "multi_round");
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["isError"], false, "{report}");
    assert_eq!(
        report["text"], "Multi-round complete for Alice who likes blue",
        "{report}"
    );
    assert_eq!(
        report["asked"],
        json!([
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?"
        ]),
        "one elicitation per round, in order: {report}"
    );
    assert_eq!(
        crate::common::client_report::tool_calls(&report),
        [(false, false), (true, true), (true, true)],
        "the first call, then two retries carrying inputResponses and requestState: {report}"
    );
}

#[test]
fn ts_client_completes_request_state_round() {
    let report = run_client(&SERVER.url(), "request_state");
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["text"], "state-ok: confirmed", "{report}");
    assert_eq!(report["asked"], json!(["Please confirm"]));
    assert_eq!(
        crate::common::client_report::tool_calls(&report),
        [(false, false), (true, true)],
        "{report}"
    );
}

#[test]
fn ts_client_tampered_request_state_is_refused() {
    let report = run_client(&SERVER.url(), "tampered_state");
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
        crate::common::client_report::tool_calls(&report),
        [(false, false), (true, true)],
        "{report}"
    );
}

#[test]
fn ts_client_completes_the_three_rounds_of_the_deploy_example() {
    let report = run_client(&DEPLOY.url(), "deploy");
    assert_eq!(report["error"], Value::Null, "{report}");
    crate::common::client_report::assert_deployed_to_production(&report);
}

/// The 2025-era suite's `test_elicitation` tool, a multi-round handler that older clients get
/// a pushed `elicitation/create` request from (see `tests/conformance`), is one
/// `input_required` round for a 2026-07-28 client.
#[test]
fn ts_client_answers_the_elicitation_tool_of_the_older_suite_in_one_round() {
    let report = run_client(&SERVER.url(), "elicitation");
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["isError"], false, "{report}");
    assert_eq!(report["asked"], json!(["Who are you?"]), "{report}");
    assert_eq!(
        report["text"],
        r#"User response: action=accept, content={"username":"Alice","email":"alice@example.com"}"#,
        "{report}"
    );
    assert_eq!(
        crate::common::client_report::tool_calls(&report),
        [(false, false), (true, true)],
        "{report}"
    );
}

/// The skills example over HTTP, for the whole binary.
static SKILLS: LazyLock<HttpServer> = LazyLock::new(|| ExampleServer::named("skills").http());

/// Runs `skills_client.mjs` in `mode` (`modern` or `legacy`) against the skills example.
fn run_skills_client(mode: &str) -> Value {
    let url = SKILLS.url();
    run_script(
        "skills_client.mjs",
        &[url.as_str(), mode],
        &format!("skills-{mode}"),
    )
}

/// The TypeScript client's skills extension lists the example's two skills, gets each, and
/// reads every file of each with its size and digest verified (and each SKILL.md's
/// frontmatter), in both eras; each skill's root lists its files and folders.
#[test]
fn ts_client_lists_fetches_and_verifies_every_skill_file_in_both_eras() {
    for mode in ["modern", "legacy"] {
        let report = run_skills_client(mode);
        assert_eq!(report["error"], Value::Null, "{mode}: {report}");
        assert_eq!(report["supported"], true, "{mode}: {report}");
        assert_eq!(report["directoryRead"], true, "{mode}: {report}");
        let skills = report["skills"].as_array().unwrap();
        let names: Vec<&str> = skills.iter().filter_map(|s| s["name"].as_str()).collect();
        assert_eq!(names, ["refunds", "pdf-processing"], "{mode}: {report}");
        let pdf = &skills[1];
        let files = pdf["files"].as_array().unwrap();
        assert_eq!(
            files.len(),
            3,
            "{mode}: SKILL.md, FORMS.md, invoice.md: {report}"
        );
        for file in files {
            assert_eq!(file["verified"], true, "{mode}: {file}");
        }
        let forms =
            crate::common::root_dir().join("examples/skills/pdf-processing/references/FORMS.md");
        let forms_len = fs::metadata(forms).unwrap().len();
        let read = files
            .iter()
            .find(|f| f["uri"] == "skill://pdf-processing/references/FORMS.md")
            .unwrap();
        assert_eq!(read["bytes"], forms_len, "{mode}: {read}");
        assert_eq!(
            pdf["children"],
            json!([
                {"name": "SKILL.md", "mimeType": "text/markdown"},
                {"name": "references", "mimeType": "inode/directory"},
                {"name": "templates", "mimeType": "inode/directory"}
            ]),
            "{mode}: {report}"
        );
    }
}
