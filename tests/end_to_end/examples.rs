//! Every example of the root package is accounted for: each server of
//! [`crate::common::EXAMPLE_SERVERS`] is tested as its users' clients see it, with `typemcp-client`
//! over stdio and HTTP in both eras, in `tests/end_to_end/client_examples.rs`; this file holds what only
//! the raw wire shows, and the examples that run on their own.
//!
//! - `deploy`, started over stdio and over Streamable HTTP (`--http PORT`) and driven by hand:
//!   its listing (only the lists its capabilities declare; the others `Method not found`;
//!   descriptions, object input schemas, unique names, every `$ref` resolving inside its
//!   schema), then every round of its `input_required` flow (a form, then a form and options
//!   computed per call, then a URL-mode approval), answering each round's elicitations in
//!   `inputResponses` and echoing its `requestState`; each state is good for one use, so
//!   replaying any state of the finished flow is refused.
//! - `input_required` and `conformance_client` run to completion.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeSet, HashSet};
use std::process::Command;
use std::time::Duration;

use crate::common::deploy::{accepted, deploy_call, expect_round};
use crate::common::{
    EXAMPLE_SERVERS, ExampleServer, HttpClient, LISTS, META_SERVER_INFO, PROTOCOL_VERSION, Session,
    assert_refs_resolve, code, request, tool_text,
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
// What every server must list

/// What a server lists, by list method (only those its capabilities declare).
struct Listing {
    lists: Vec<(&'static str, Vec<Value>)>,
}

impl Listing {
    /// The `name` (or, for templates, `uriTemplate`) of every item of `method`; empty if the
    /// server does not offer the list.
    fn names(&self, method: &str) -> Vec<String> {
        let key = if method == "resources/templates/list" {
            "uriTemplate"
        } else {
            "name"
        };
        let items = self.lists.iter().find(|(m, _)| *m == method);
        items
            .map(|(_, items)| items.iter())
            .into_iter()
            .flatten()
            .map(|item| item[key].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// The item called `name` of `method`.
    #[track_caller]
    fn item(&self, method: &str, name: &str) -> &Value {
        let items = self.lists.iter().find(|(m, _)| *m == method);
        items
            .and_then(|(_, items)| items.iter().find(|item| item["name"] == name))
            .unwrap_or_else(|| panic!("{method} lists nothing called {name}"))
    }
}

/// Discovers `example` on `session`, lists what its capabilities offer (and checks the other
/// lists are refused), and checks every listing: the server's name in `_meta`, a description
/// for every tool and prompt, object input schemas, unique names, resolving `$ref`s.
fn list_everything<S: Session>(session: &mut S, example: ExampleServer) -> Listing {
    let label = session.label();
    let discover = session.result("server/discover", json!({}));
    assert_eq!(
        discover["_meta"][META_SERVER_INFO]["name"], example.server_name,
        "{label}: {discover}"
    );
    let versions = discover["supportedVersions"].as_array().unwrap();
    assert!(
        versions.contains(&json!(PROTOCOL_VERSION)),
        "{label}: {discover}"
    );

    let mut lists = Vec::new();
    for (method, key, capability) in LISTS {
        if discover["capabilities"].get(capability).is_none() {
            let response = session.request(method, method, json!({}));
            crate::common::assert_error(
                &response,
                Some(&json!(method)),
                code::METHOD_NOT_FOUND,
                method,
            );
            continue;
        }
        let items = session.list(method, key);
        let mut names = HashSet::new();
        for item in &items {
            let name = item["name"].as_str().unwrap_or_default();
            assert!(
                !name.is_empty(),
                "{label}: {method}: an item without a name: {item}"
            );
            assert!(
                names.insert(name.to_owned()),
                "{label}: {method}: {name:?} twice"
            );
            if matches!(key, "tools" | "prompts") {
                let description = item["description"].as_str().unwrap_or_default();
                assert!(
                    !description.trim().is_empty(),
                    "{label}: {name} has no description"
                );
            }
            if key == "tools" {
                assert_eq!(item["inputSchema"]["type"], "object", "{label}: {item}");
                for schema in ["inputSchema", "outputSchema"] {
                    assert_refs_resolve(&item[schema], &item[schema], &format!("{name} {schema}"));
                }
            }
        }
        lists.push((method, items));
    }
    Listing { lists }
}

/// Sends a request and returns the response to it, over one transport.
type SendFn<'a> = dyn FnMut(&Value) -> Value + 'a;

/// Runs `check` against `name` over stdio, then over HTTP: with the transport's [`SendFn`],
/// its name, and what the server listed.
fn over_both_transports(name: &str, check: fn(&mut SendFn<'_>, &str, Listing)) {
    let example = ExampleServer::named(name);
    let mut stdio = example.stdio();
    let listing = list_everything(&mut stdio, example);
    check(&mut |message| stdio.send(message), "stdio", listing);

    let server = example.http();
    let mut http = HttpClient::new(server.url());
    let listing = list_everything(&mut http, example);
    check(&mut |message| http.send(message), "HTTP", listing);
}

/// The complete result of `message` sent with `send`.
#[track_caller]
fn complete(send: &mut SendFn<'_>, message: &Value) -> Value {
    let response = send(message);
    assert!(response.get("error").is_none(), "{message}: {response}");
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    response["result"].clone()
}

// ---------------------------------------------------------------------------------------------
// deploy

#[test]
fn deploy_completes_its_rounds_over_both_transports() {
    over_both_transports("deploy", |send, transport, listing| {
        assert_eq!(
            listing.names("tools/list"),
            ["deploy", "list_regions"],
            "{transport}"
        );
        // A list as structured output: its schema and `structuredContent` as they are on
        // the 2026-07-28 wire (the 2025-11-25 era is checked by the legacy interop tests).
        let regions = listing.item("tools/list", "list_regions");
        assert_eq!(regions["outputSchema"]["type"], "array", "{regions}");
        assert_eq!(regions["annotations"]["readOnlyHint"], true, "{regions}");
        let params = json!({"name": "list_regions", "arguments": {"target": "staging"}});
        let listed = complete(send, &request(20, "tools/call", params));
        let staging = json!([{"id": "eu-west-1", "label": "Europe (Ireland)"}]);
        assert_eq!(
            listed["structuredContent"], staging,
            "{transport}: {listed}"
        );
        assert_eq!(
            listed["content"],
            json!([{"type": "text", "text": staging.to_string()}]),
            "{transport}: {listed}"
        );
        let deploy = listing.item("tools/list", "deploy");
        assert_eq!(deploy["annotations"]["destructiveHint"], true, "{deploy}");
        assert_eq!(
            deploy["inputSchema"]["required"],
            json!(["target"]),
            "{deploy}"
        );
        let caps = json!({"elicitation": {"form": {}, "url": {}}});
        let call = |id, answers| deploy_call(id, "production", &caps, answers);

        // Round 1: confirm.
        let first = send(&call(1, None));
        let (_, state1) = expect_round(&first, &[("confirm", "Deploy to Production?")]);
        let confirm = json!({"confirm": accepted(json!({"ok": true}))});
        // Round 2: a derived form and options computed for this call, together.
        let second = send(&call(2, Some((confirm, &state1))));
        let asks = [
            ("rollout", "How should it roll out?"),
            ("region", "Which region?"),
        ];
        let (params, state2) = expect_round(&second, &asks);
        assert_ne!(
            state1, state2,
            "{transport}: each round signs its own state"
        );
        let rollout = &params["rollout"]["requestedSchema"]["properties"];
        let fields: Vec<&String> = rollout.as_object().unwrap().keys().collect();
        assert_eq!(fields, ["strategy", "replicas", "reason"], "{transport}");
        let regions = &params["region"]["requestedSchema"]["properties"]["region"]["oneOf"];
        assert_eq!(
            regions,
            &json!([
                {"const": "eu-west-1", "title": "Europe (Ireland)"},
                {"const": "us-east-1", "title": "US East (Virginia)"},
                {"const": "ap-south-1", "title": "Asia Pacific (Mumbai)"},
            ]),
            "{transport}"
        );
        let plan = json!({"strategy": "immediate", "replicas": 3, "reason": "e2e"});
        let configure = |region: &str| json!({"rollout": accepted(plan.clone()), "region": accepted(json!({"region": region}))});
        // A region that was not offered is asked again, saying why. The state echoed with it
        // was consumed (single use), so the same questions come with a new state.
        let again = send(&call(3, Some((configure("mars"), &state2))));
        let asked_again = [
            asks[0],
            (
                "region",
                "Which region?\n\nThe previous answer was not valid (`region`: \"mars\" is not \
                 one of Europe (Ireland), US East (Virginia), Asia Pacific (Mumbai)). Please \
                 answer again.",
            ),
        ];
        let (_, reasked) = expect_round(&again, &asked_again);
        assert_ne!(
            reasked, state2,
            "{transport}: a consumed state is not handed back"
        );
        // Round 3: approval in the change-management page, in URL mode.
        let third = send(&call(4, Some((configure("us-east-1"), &reasked))));
        let approve = [(
            "approval",
            "Approve the deploy in the change-management page.",
        )];
        let (params, state3) = expect_round(&third, &approve);
        let approval = &params["approval"];
        assert_eq!(approval["mode"], "url", "{transport}: {approval}");
        let url = approval["url"].as_str().unwrap();
        assert!(
            url.starts_with("https://changes.example.com/requests/CHG-"),
            "{transport}: {approval}"
        );
        assert!(approval.get("requestedSchema").is_none(), "{approval}");
        let consent = json!({"approval": {"action": "accept"}});
        let done = complete(send, &call(5, Some((consent, &state3))));
        let text = tool_text(&done);
        assert!(
            text.starts_with(
                "Deployed to Production in us-east-1 with 3 replicas, all at once (approved at "
            ) && text.contains("; e2e), change CHG-")
                && text.ends_with(" approved."),
            "{transport}: {done}"
        );

        // Every state of the finished flow was consumed: replaying any of them (the last
        // one would deploy again, an earlier one would rewind the flow) is refused.
        let consent = json!({"approval": {"action": "accept"}});
        let replays = [
            (
                state1.as_str(),
                json!({"confirm": accepted(json!({"ok": true}))}),
            ),
            (state2.as_str(), configure("us-east-1")),
            (reasked.as_str(), configure("us-east-1")),
            (state3.as_str(), consent),
        ];
        for (id, (state, answers)) in (60..).zip(replays) {
            let refused = send(&call(id, Some((answers, state))));
            let error = crate::common::assert_error(
                &refused,
                Some(&json!(id)),
                code::INVALID_PARAMS,
                crate::common::INVALID_STATE,
            );
            assert_eq!(
                error["message"],
                crate::common::INVALID_STATE,
                "{transport}"
            );
        }

        // Declining the confirmation ends the flow in the second call.
        let first = send(&call(6, None));
        let (_, state) = expect_round(&first, &[("confirm", "Deploy to Production?")]);
        let declined = json!({"confirm": {"action": "decline"}});
        let done = complete(send, &call(7, Some((declined, &state))));
        assert_eq!(tool_text(&done), "Deploy declined.", "{transport}: {done}");

        // Staging runs in one region and needs no approval page.
        let staging = |id, answers| deploy_call(id, "staging", &caps, answers);
        let first = send(&staging(7, None));
        let (_, state) = expect_round(&first, &[("confirm", "Deploy to Staging?")]);
        let confirm = json!({"confirm": accepted(json!({"ok": true}))});
        let second = send(&staging(8, Some((confirm, &state))));
        let (params, state) = expect_round(&second, &asks);
        let options = &params["region"]["requestedSchema"]["properties"]["region"]["oneOf"];
        assert_eq!(options.as_array().map(Vec::len), Some(1), "{transport}");
        let done = complete(send, &staging(9, Some((configure("eu-west-1"), &state))));
        assert!(
            tool_text(&done).starts_with("Deployed to Staging in eu-west-1 with 3 replicas"),
            "{transport}: {done}"
        );

        // A client without URL mode is refused before a change request is opened: the
        // handler checks first (-32021, naming the capability).
        let forms = json!({"elicitation": {"form": {}}});
        let form_only = |id, answers| deploy_call(id, "production", &forms, answers);
        let first = send(&form_only(10, None));
        let (_, state) = expect_round(&first, &[("confirm", "Deploy to Production?")]);
        let confirm = json!({"confirm": accepted(json!({"ok": true}))});
        let second = send(&form_only(11, Some((confirm, &state))));
        let (_, state) = expect_round(&second, &asks);
        let refused = send(&form_only(12, Some((configure("eu-west-1"), &state))));
        assert_eq!(
            refused["error"]["code"],
            code::MISSING_CLIENT_CAPABILITY,
            "{transport}: {refused}"
        );
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {"url": {}}}),
            "{transport}: {refused}"
        );

        // A target outside the enum is a tool error naming the argument.
        let moon = crate::common::call_tool(13, "deploy", json!({"target": "moon"}));
        let refused = complete(send, &moon);
        assert_eq!(refused["isError"], true, "{transport}: {refused}");
        assert!(
            tool_text(&refused).contains("target"),
            "{transport}: {refused}"
        );
    });
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
