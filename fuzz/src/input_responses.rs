//! `inputResponses` and form answers: the second round of a multi-round call, with a valid
//! state and fuzzed answers, and the form readers on their own.
//!
//! The first byte picks the flow (the `greet` tool asking for a [`Profile`] without a state
//! enum, or the `kinds` tool asking for a URL visit, two choices, a form built at run time,
//! or two derived forms); the rest is spliced, as text, as the value of `inputResponses` in
//! the second call, beside the state the first call returned. So the text need not be
//! JSON, and when it is, it can be any value.
//!
//! Checked: no panic; the reply is a JSON-RPC response with `id` 1; an answer that is not
//! an object is refused with `-32602`. When the text is JSON, every entry (and the value
//! itself) is also read as a [`Profile`], a [`Confirm`] answer, and its content checked against the form built at run time: an
//! answer the derived form accepts breaks none of the constraints its schema declares
//! ([`FormValidator`]), and reading is deterministic.

use std::sync::OnceLock;

use typemcp_core::form::{ElicitForm, FormValidator};
use typemcp_server::Answer;
use typemcp_server::Server;
use serde_json::{Value, json};

use crate::fixtures::{self, Confirm, Profile, assert_response, call, first_state, send};

/// One flow: the tool, its arguments, and the state its first call returned.
struct Flow {
    tool: &'static str,
    arguments: Value,
    state: String,
}

struct Fixture {
    server: Server,
    flows: Vec<Flow>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let server = fixtures::server(|s| s);
        let mut flows = vec![("greet", json!({}))];
        for kind in ["url", "choice", "form", "confirm"] {
            flows.push(("kinds", json!({"kind": kind, "max": 5})));
        }
        let flows = flows
            .into_iter()
            .map(|(tool, arguments)| {
                let state = first_state(&server, &call(tool, arguments.clone(), json!({})));
                Flow {
                    tool,
                    arguments,
                    state,
                }
            })
            .collect();
        Fixture { server, flows }
    })
}

/// The flows, by index: `greet`, then `kinds` asking for a URL visit, choices, a form built
/// at run time, and the derived forms.
pub const FLOWS: [&str; 5] = ["greet", "url", "choice", "form", "confirm"];

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&pick, answers)) = data.split_first() else {
        return;
    };
    let fixture = fixture();
    let flow = &fixture.flows[usize::from(pick) % fixture.flows.len()];
    let message = second_call(flow, answers);
    let reply = send(&fixture.server, &message);
    let reply = reply.unwrap_or_else(|| panic!("no reply to {}", lossy(&message)));
    let response = assert_response(&reply);
    let parsed: Option<Value> = serde_json::from_slice(answers).ok();
    if serde_json::from_slice::<Value>(&message).is_ok() {
        assert_eq!(response["id"], 1, "{response}");
        if parsed.as_ref().is_some_and(|v| !v.is_object()) {
            assert_eq!(response["error"]["code"], -32602, "{response}");
        }
    }
    if let Some(value) = parsed {
        read_forms(&value);
        if let Value::Object(entries) = &value {
            for entry in entries.values() {
                read_forms(entry);
            }
        }
    }
}

/// The second call of `flow`, `answers` spliced in as the text of `inputResponses`.
fn second_call(flow: &Flow, answers: &[u8]) -> Vec<u8> {
    let mut extra = json!({"requestState": flow.state, "inputResponses": "@"});
    let template = call(flow.tool, flow.arguments.clone(), extra.take());
    let text = serde_json::to_string(&template).unwrap_or_default();
    let Some((head, tail)) = text.split_once("\"@\"") else {
        panic!("no placeholder in {text}");
    };
    let mut out = head.as_bytes().to_vec();
    out.extend_from_slice(answers);
    out.extend_from_slice(tail.as_bytes());
    out
}

/// Reads `value` as an answer to each form, and checks what an accepted answer holds.
fn read_forms(value: &Value) {
    let profile = Answer::<Profile>::read(Some(value));
    if let Answer::Accepted(_) = profile {
        let content = value["content"].as_object().cloned().unwrap_or_default();
        let problems = FormValidator::new(&Profile::requested_schema()).check(&content);
        assert!(
            problems.is_empty(),
            "accepted, yet the schema's constraints are broken: {problems:?} in {value}"
        );
    }
    let again = Answer::<Profile>::read(Some(value));
    assert_eq!(
        format!("{profile:?}"),
        format!("{again:?}"),
        "reading twice differs"
    );
    let _ = Answer::<Confirm>::read(Some(value));
    if let Some(Value::Object(content)) = value.get("content") {
        let validator = FormValidator::new(&fixtures::dynamic_schema(5));
        let _ = validator.check(content);
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
