//! Interoperability with a client of protocol 2025-11-25: the official Python SDK's 1.x client
//! (PyPI `mcp` 1.x, pinned with everything it pulls in by
//! `interop/python-legacy/requirements.txt`) opens with `initialize` and completes the `deploy`
//! example to production, over Streamable HTTP and over stdio (spawning the server itself),
//! through pushed elicitation: the server sends each question of the multi-round handler to
//! the client as an `elicitation/create` request and runs the same handler again with the
//! answers, all within the client's one `tools/call`.
//!
//! The test installs the client into a virtual environment under
//! `target/interop-python-legacy/` (see `tests/common/python.rs`); without Python, venv or
//! PyPI it is skipped outside CI and fails under `CI=true`. `interop/python-legacy/
//! deploy_client.py` prints the report the assertions of `tests/common/client_report.rs` read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::client_report::{
    assert_deployed_to_production_by_push, assert_listed_and_read_regions_as_text,
};
use crate::common::python::{python, run_report};
use crate::common::{ExampleServer, Launch};

/// The folder pinning the client.
const CLIENT: &str = "interop/python-legacy";

#[test]
fn python_legacy_client_deploys_over_http_through_pushed_elicitation() {
    let Some(python) = python(CLIENT) else { return };
    let deploy = Launch::from(ExampleServer::named("deploy"))
        .labelled("python-legacy")
        .http();
    let url = deploy.url();
    let report = run_report(
        &python,
        CLIENT,
        "deploy_client.py",
        &["http", &url, "production"],
        "deploy-http",
    );
    assert_deployed_to_production_by_push(&report);
    assert_listed_and_read_regions_as_text(&report);
    assert_eq!(
        deploy.output().matches("rolling out:").count(),
        1,
        "the deploy ran once: {}",
        deploy.output()
    );
}

#[test]
fn python_legacy_client_deploys_over_stdio_through_pushed_elicitation() {
    let Some(python) = python(CLIENT) else { return };
    let server = crate::common::example_binary("deploy");
    let report = run_report(
        &python,
        CLIENT,
        "deploy_client.py",
        &["stdio", server.to_str().unwrap(), "production"],
        "deploy-stdio",
    );
    assert_deployed_to_production_by_push(&report);
    assert_listed_and_read_regions_as_text(&report);
    assert_eq!(
        report["rolledOut"].as_array().map(Vec::len),
        Some(1),
        "the deploy ran once: {report}"
    );
}
