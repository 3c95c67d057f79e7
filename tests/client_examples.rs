//! The examples driven by `typemcp-client` as a user's test would drive them: each started as
//! a child process over stdio, in both eras (2026-07-28 chosen automatically, a 2025-11-25
//! session forced), the `deploy` flow's three rounds answered with form types mirroring the
//! example's own (a confirmation, a rollout plan and a region, then the URL approval), and a
//! form answered with the wrong type failing before it is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde::Serialize;
use serde_json::json;
use typemcp_client::{Client, ClientError, Era, EraChoice, Reply, Scripted, ToolResultExt};
use typemcp_server::ElicitForm;

/// The example's `Confirm`, as a test writes it.
#[derive(ElicitForm, Serialize)]
struct Confirm {
    ok: bool,
}

/// The example's `Rollout`: the same fields (its strategy as the option's value).
#[derive(ElicitForm, Serialize)]
struct Rollout {
    strategy: String,
    replicas: u8,
    reason: Option<String>,
}

/// The one-field form a `OneOf<String>` question under `region` is.
#[derive(ElicitForm, Serialize)]
struct Region {
    region: String,
}

/// The example `name`, started over stdio and connected in `era`, answering with `script`.
async fn start(name: &str, era: EraChoice, script: Scripted) -> Client {
    let mut command = tokio::process::Command::new(common::example_binary(name));
    command.stderr(std::process::Stdio::null());
    Client::builder()
        .era(era)
        .answers(script)
        .spawn(command)
        .await
        .unwrap()
}

fn production_deploy() -> Scripted {
    Scripted::new()
        .reply("confirm", Reply::accept(&Confirm { ok: true }))
        .reply(
            "rollout",
            Reply::accept(&Rollout {
                strategy: "rolling".into(),
                replicas: 3,
                reason: Some("release 42".into()),
            }),
        )
        .reply(
            "region",
            Reply::accept(&Region {
                region: "us-east-1".into(),
            }),
        )
        .reply("approval", Reply::visited())
}

#[tokio::test]
async fn deploy_runs_its_three_rounds_over_stdio_in_both_eras() {
    for (choice, era) in [
        (EraChoice::Automatic, Era::Modern),
        (EraChoice::Session, Era::Session),
    ] {
        let client = start("deploy", choice, production_deploy()).await;
        assert_eq!(client.era(), era);
        let tools: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|tool| tool.name)
            .collect();
        assert!(tools.iter().any(|name| name == "deploy"), "{tools:?}");
        let done = client
            .call_tool("deploy", json!({"target": "production"}))
            .await
            .unwrap();
        let text = done.text();
        assert!(
            text.starts_with("Deployed to Production in us-east-1 with 3 replicas")
                && text.contains("release 42"),
            "{era:?}: {text}"
        );
    }
}

#[tokio::test]
async fn deploy_refuses_a_rollout_answered_with_the_wrong_form_type() {
    let script = Scripted::new()
        .reply("confirm", Reply::accept(&Confirm { ok: true }))
        .reply("rollout", Reply::accept(&Confirm { ok: true }))
        .reply(
            "region",
            Reply::accept(&Region {
                region: "eu-west-1".into(),
            }),
        );
    let client = start("deploy", EraChoice::Automatic, script).await;
    let error = client
        .call_tool("deploy", json!({"target": "staging"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ClientError::Unanswered { question, reason } if question == "rollout" && reason.contains("Confirm")),
        "{error:?}"
    );
}
