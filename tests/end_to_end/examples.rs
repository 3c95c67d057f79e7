//! Every example of the root package is accounted for: each server of
//! [`crate::common::EXAMPLE_SERVERS`] is tested as its users' clients see it, with `typemcp-client`
//! over stdio and HTTP in both eras, in `tests/end_to_end/client_examples.rs`; this file holds what only
//! the raw wire shows, and the examples that run on their own.
//!
//! - `deploy`'s states are good for one use: replaying any state of a finished flow is
//!   refused (what a client never sends, so only the raw wire shows it).
//! - `input_required` and `conformance_client` run to completion.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::process::Command;
use std::time::Duration;

use crate::common::deploy::{
    APPROVE, CONFIGURE, CONFIRM_PRODUCTION, configured, confirmed, consented, deploy_call,
    expect_round, full_capabilities, is_production_deploy,
};
use crate::common::{
    EXAMPLE_SERVERS, ExampleServer, HttpClient, INVALID_STATE, Session, assert_error, code,
    tool_text,
};
use serde_json::{Value, json};

/// Examples that are not servers: they run on their own and exit.
const STANDALONE: [&str; 2] = ["input_required", "conformance_client"];

#[test]
fn every_example_is_exercised() {
    let dir = crate::common::root_dir().join("examples");
    let found: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {dir:?}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let covered: BTreeSet<String> = EXAMPLE_SERVERS
        .iter()
        .map(|example| example.name)
        .chain(STANDALONE)
        .map(str::to_owned)
        .collect();
    assert_eq!(
        found, covered,
        "every example in examples/ is a server of crate::common::EXAMPLE_SERVERS or in STANDALONE"
    );
}

// ---------------------------------------------------------------------------------------------
// deploy

/// Each state of `deploy` is good for one use (its in-memory single-use store, without
/// `--redis`): each round signs its own state, and replaying any state of a finished flow
/// (the last would deploy again, an earlier one would rewind it) is refused with the one
/// fixed message. Only the raw wire shows this: a client echoes each state once.
#[test]
fn deploy_refuses_every_state_of_a_finished_flow() {
    let server = ExampleServer::named("deploy").http();
    let mut http = HttpClient::new(server.url());
    let capabilities = full_capabilities();
    let call = |id, answers| deploy_call(id, "production", &capabilities, answers);
    let mut send = |message: Value| http.send(&message);
    let (_, state1) = expect_round(&send(call(1, None)), &CONFIRM_PRODUCTION);
    let second = send(call(2, Some((confirmed(), &state1))));
    let (_, state2) = expect_round(&second, &CONFIGURE);
    let third = send(call(3, Some((configured("us-east-1"), &state2))));
    let (_, state3) = expect_round(&third, &APPROVE);
    assert!(
        state1 != state2 && state2 != state3,
        "each round signs its own state"
    );
    let done = send(call(4, Some((consented(), &state3))));
    let text = tool_text(&done["result"]);
    assert!(is_production_deploy(&text, "us-east-1"), "{done}");

    let replays = [
        (confirmed(), &state1),
        (configured("us-east-1"), &state2),
        (consented(), &state3),
    ];
    for (id, (answers, state)) in (10..).zip(replays) {
        let refused = send(call(id, Some((answers, state))));
        let error = assert_error(
            &refused,
            Some(&json!(id)),
            code::INVALID_PARAMS,
            INVALID_STATE,
        );
        assert_eq!(error["message"], INVALID_STATE, "{refused}");
    }
}

// ---------------------------------------------------------------------------------------------
// Examples that run on their own

#[test]
fn input_required_runs_its_flow_and_refuses_the_tampered_state() {
    let log = crate::common::out_dir("examples-e2e").join("input_required.log");
    let mut command = Command::new(crate::common::example_binary("input_required"));
    let mut run = crate::common::ChildGuard::spawn_logged(command.env("RUST_LOG", "warn"), &log);
    let status = run.wait_timeout(Duration::from_secs(30));
    let stdout = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        status.is_some_and(|status| status.success()),
        "input_required failed or hung ({status:?}):\n{stdout}"
    );
    assert!(
        stdout.contains(r#"Done: "Deployed to production with 3 replicas.""#),
        "{stdout}"
    );
    assert!(
        stdout.contains("-32602"),
        "the tampered state is refused: {stdout}"
    );
}

/// The conformance client (its scenarios run under the suite in `tests/conformance`) drives
/// the conformance server as its doc comment says: every tool called, every resource read and
/// every prompt got, then exit 0; without a URL, or without a server, it exits 1.
#[test]
fn conformance_client_drives_the_conformance_server_and_exits() {
    let dir = crate::common::out_dir("examples-e2e");
    let server = crate::common::HttpServer::try_start(
        Some(&dir.join("conformance_client-server.log")),
        Duration::from_mins(1),
    )
    .unwrap_or_else(|error| panic!("conformance_server did not start: {error}"));
    let log = dir.join("conformance_client.log");
    let client = crate::common::example_binary("conformance_client");
    let mut command = Command::new(&client);
    command.arg(server.url()).env("RUST_LOG", "info");
    let mut run = crate::common::ChildGuard::spawn_logged(&mut command, &log);
    let status = run.wait_timeout(Duration::from_mins(1));
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        status.is_some_and(|status| status.success()),
        "conformance_client failed or hung ({status:?}):\n{output}"
    );
    assert!(output.contains("era=Modern"), "{output}");
    // Every form is answered (only the tools that need the tasks extension, or fail on
    // purpose, are refused).
    for step in [
        "tools/list",
        "test_simple_text",
        "test_elicitation",
        "test_input_required_result_multi_round",
        "resources/list",
        "test://input-required/secret",
        "prompts/list",
        "test_input_required_result_prompt",
    ] {
        assert!(
            output.contains(&format!("done what={step}")),
            "{step} not done:\n{output}"
        );
    }
    drop(server);
    for args in [&[][..], &["http://127.0.0.1:9/mcp"][..]] {
        let status = Command::new(&client)
            .args(args)
            .env("RUST_LOG", "off")
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1), "{args:?}");
    }
}
