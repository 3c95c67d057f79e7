//! JSON-RPC decoding and dispatch: any bytes handed to [`Server::handle_message`], the
//! in-process entry point every transport shares.
//!
//! The server has plain, form and multi-round tools, a prompt, a resource and a template,
//! and a request-state signer whose binding is fixed, so that a state pasted into any
//! request resumes. Each occurrence of `$STATE` in the input is replaced by a state the
//! server minted at start-up (a `greet` state at `$STATE`, then `kinds` states, one per
//! question kind, at `$STATE1` to `$STATE4`), so the fuzzer reaches the paths behind a valid
//! state too.
//!
//! Checked: no panic; a request (an object with an `id` and a `method`) gets exactly one
//! reply, a notification or a response none; every reply is a JSON-RPC response (valid
//! JSON, `jsonrpc: "2.0"`, exactly one of `result` and `error`, an `id` unless the message
//! as a whole was refused) whose `id` is the request's when the request was valid JSON with a
//! valid id.

use std::sync::OnceLock;

use typemcp_server::Server;
use serde_json::{Value, json};

use crate::fixtures::{self, assert_response, call, first_state, send};

struct Fixture {
    server: Server,
    /// `$STATE`, `$STATE1` .. `$STATE4`, longest placeholder first.
    states: Vec<(String, String)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let server = fixtures::server(|s| s.bind_to(fixtures::fixed_binding()));
        let mut states = Vec::new();
        for (i, kind) in ["url", "choice", "form", "confirm"].iter().enumerate() {
            let first = call("kinds", json!({"kind": kind, "max": 3}), json!({}));
            states.push((format!("$STATE{}", i + 1), first_state(&server, &first)));
        }
        let greet = call("greet", json!({}), json!({}));
        states.push(("$STATE".to_owned(), first_state(&server, &greet)));
        Fixture { server, states }
    })
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let fixture = fixture();
    let message = substitute(data, &fixture.states);
    let reply = send(&fixture.server, &message);
    let parsed: Option<Value> = serde_json::from_slice(&message).ok();
    let request_id = parsed
        .as_ref()
        .filter(|m| m.get("method").is_some())
        .and_then(|m| m.get("id"))
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64());
    match reply {
        Some(reply) => {
            let response = assert_response(&reply);
            match (request_id, response.get("id")) {
                (Some(id), Some(echoed)) => assert_eq!(echoed, id, "{response}"),
                // Without an id only when the message as a whole is refused (duplicate
                // members, say, which `Value` reads as the last one).
                (Some(_), None) => {
                    let code = response["error"]["code"].as_i64();
                    assert!(matches!(code, Some(-32700 | -32600)), "{response}");
                }
                (None, _) => {}
            }
        }
        None => assert!(
            parsed.is_some() && request_id.is_none(),
            "no reply to {}",
            String::from_utf8_lossy(&message)
        ),
    }
}

/// `data` with each placeholder replaced by its state.
fn substitute(data: &[u8], states: &[(String, String)]) -> Vec<u8> {
    let mut out = data.to_vec();
    for (placeholder, state) in states {
        let (needle, with) = (placeholder.as_bytes(), state.as_bytes());
        let mut replaced = Vec::with_capacity(out.len());
        let mut rest = out.as_slice();
        while let Some(at) = rest.windows(needle.len()).position(|w| w == needle) {
            replaced.extend_from_slice(&rest[..at]);
            replaced.extend_from_slice(with);
            rest = &rest[at + needle.len()..];
        }
        replaced.extend_from_slice(rest);
        out = replaced;
    }
    out
}
