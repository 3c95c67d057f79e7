//! The `deploy` example's multi-round flow, as the end-to-end tests drive it: its calls, the
//! questions of each round, and the answers a client gives.
//!
//! To production it takes three rounds and a final call: `confirm` (round 1), then `rollout`
//! and `region` together (round 2), then the URL-mode `approval` (round 3), then the
//! answer that completes it. Each call echoes the previous round's `requestState`.

use serde_json::{Map, Value, json};

use super::{META_CLIENT_CAPABILITIES, request_with_meta};

/// What round 1 asks.
pub const CONFIRM_PRODUCTION: [(&str, &str); 1] = [("confirm", "Deploy to Production?")];
/// What round 2 asks.
pub const CONFIGURE: [(&str, &str); 2] = [
    ("rollout", "How should it roll out?"),
    ("region", "Which region?"),
];
/// What round 3 (production only) asks.
pub const APPROVE: [(&str, &str); 1] = [(
    "approval",
    "Approve the deploy in the change-management page.",
)];

/// A client that answers forms and URL-mode questions.
pub fn full_capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

/// `tools/call` of `deploy` to `target` from a client declaring `capabilities`, resuming
/// with `inputResponses` and `requestState` when given.
pub fn deploy_call(
    id: u64,
    target: &str,
    capabilities: &Value,
    answers: Option<(Value, &str)>,
) -> Value {
    let mut params = json!({"name": "deploy", "arguments": {"target": target}});
    if let Some((answers, state)) = answers {
        params["inputResponses"] = answers;
        params["requestState"] = json!(state);
    }
    let meta = Map::from_iter([(META_CLIENT_CAPABILITIES.to_owned(), capabilities.clone())]);
    request_with_meta(id, "tools/call", params, meta)
}

/// An `input_required` round of `deploy`: checks it asks exactly the keys of `asks`, each
/// with its message, and returns the questions' params and the round's `requestState`.
#[track_caller]
pub fn expect_round(response: &Value, asks: &[(&str, &str)]) -> (Map<String, Value>, String) {
    assert!(response.get("error").is_none(), "{response}");
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response}");
    let requests = result["inputRequests"].as_object().unwrap();
    let keys: Vec<&str> = asks.iter().map(|(key, _)| *key).collect();
    assert_eq!(requests.keys().collect::<Vec<_>>(), keys, "{response}");
    let mut params = Map::new();
    for (key, message) in asks {
        let ask = &requests[*key];
        assert_eq!(ask["method"], "elicitation/create", "{response}");
        assert_eq!(ask["params"]["message"], *message, "{response}");
        params.insert((*key).to_owned(), ask["params"].clone());
    }
    let state = result["requestState"].as_str().expect("a requestState");
    (params, state.to_owned())
}

/// An accepted form answer.
pub fn accepted(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The answers of round 1: go ahead.
pub fn confirmed() -> Value {
    json!({"confirm": accepted(json!({"ok": true}))})
}

/// The answers of round 2: three replicas all at once, in `region`.
pub fn configured(region: &str) -> Value {
    let plan = json!({"strategy": "immediate", "replicas": 3, "reason": "e2e"});
    json!({"rollout": accepted(plan), "region": accepted(json!({"region": region}))})
}

/// The answer of round 3: the user went to the approval page.
pub fn consented() -> Value {
    json!({"approval": {"action": "accept"}})
}

/// The text of the completed production deploy in `region`, as the tool words it.
pub fn is_production_deploy(text: &str, region: &str) -> bool {
    let start = format!("Deployed to Production in {region} with 3 replicas, all at once (");
    text.starts_with(&start) && text.contains("; e2e), change CHG-") && text.ends_with(" approved.")
}
