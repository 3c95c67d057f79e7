//! Interoperability with an independent client: the official Python SDK client (PyPI `mcp`,
//! pinned with everything it pulls in by `interop/python/requirements.txt`) completes the
//! `deploy` example over Streamable HTTP: a confirmation, then a rollout plan and a region
//! among options the server computes for the call, then approval in a change-management page
//! (URL mode).
//!
//! The test installs the client into a virtual environment under `target/interop-python/`
//! (see `tests/common/python.rs`). When Python, venv or PyPI is unavailable outside CI, it is
//! skipped with a loud message; under `CI=true` that is a failure. The same flow with the SDK's
//! 1.x client of protocol 2025-11-25 is `tests/end_to_end/interop_python_legacy.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

use crate::common::python::{python, run_report};
use crate::common::{ExampleServer, Launch};

/// The folder pinning the client.
const CLIENT: &str = "interop/python";

#[test]
fn python_client_completes_the_three_rounds_of_the_deploy_example() {
    let Some(python) = python(CLIENT) else { return };
    let deploy = Launch::from(ExampleServer::named("deploy"))
        .labelled("python")
        .http();
    let url = deploy.url();
    let report = run_report(
        &python,
        CLIENT,
        "deploy_client.py",
        &[&url, "production"],
        "deploy-production",
    );
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(report["protocolVersion"], "2026-07-28", "{report}");
    assert_eq!(
        report["posted"][0]["method"], "server/discover",
        "the client opened with server/discover, not initialize: {report}"
    );
    crate::common::client_report::assert_deployed_to_production(&report);
    assert_eq!(
        deploy.output().matches("rolling out:").count(),
        1,
        "the deploy ran once: {}",
        deploy.output()
    );
}
