//! What an interop client (TypeScript, Python; of either protocol era) reports after driving
//! an example, and the assertions they share about it. A report is JSON: `protocolVersion`,
//! `asked` (the messages of the questions it was asked, `url: …` for URL mode), `urls`,
//! `posted` (the requests it sent, with `inputResponses` / `requestState` flags), `text` and
//! `isError` of the final result; a client of 2025-11-25 adds `pushed` (the params of the
//! `elicitation/create` requests the server sent it) and, when it spawned the server over
//! stdio, `rolledOut` (the server's log lines of deploys rolled out).

use serde_json::Value;

/// The `tools/call` requests of a report, as `(inputResponses, requestState)` flags.
pub fn tool_calls(report: &Value) -> Vec<(bool, bool)> {
    let posted = report["posted"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    posted
        .iter()
        .filter(|p| p["method"] == "tools/call")
        .map(|p| (p["inputResponses"] == true, p["requestState"] == true))
        .collect()
}

/// Asserts the client went through the three rounds of the `deploy` example to production:
/// confirm; the rollout form and the region (one round, in either order); the approval in
/// URL mode; and a final result naming the plan and the approved change.
pub fn assert_deployed_to_production(report: &Value) {
    assert_production_outcome(report);
    assert_eq!(
        tool_calls(report),
        [(false, false), (true, true), (true, true), (true, true)],
        "the first call, then three retries carrying inputResponses and requestState: {report}"
    );
}

/// Asserts a client of protocol 2025-11-25 went through the same three rounds of the `deploy`
/// example to production, each question pushed to it as an `elicitation/create` request in
/// the spelling of 2025-11-25, during its one `tools/call` (opened with `initialize`, never
/// retried with `inputResponses` or `requestState`).
pub fn assert_deployed_to_production_by_push(report: &Value) {
    assert_eq!(report["error"], Value::Null, "{report}");
    assert_eq!(
        report["protocolVersion"], "2025-11-25",
        "the client negotiated 2025-11-25 with initialize: {report}"
    );
    assert_eq!(
        report["posted"][0]["method"], "initialize",
        "the client opened with initialize: {report}"
    );
    assert_production_outcome(report);
    assert_eq!(
        tool_calls(report),
        [(false, false)],
        "one tools/call, the questions pushed to the client during it: {report}"
    );
    assert_pushed_in_2025_spelling(report);
}

/// The regions of production as `list_regions` of the `deploy` example writes them.
pub const PRODUCTION_REGIONS: &str = r#"[{"id":"eu-west-1","label":"Europe (Ireland)"},{"id":"us-east-1","label":"US East (Virginia)"},{"id":"ap-south-1","label":"Asia Pacific (Mumbai)"}]"#;

/// Asserts a client of protocol 2025-11-25 listed the `deploy` example's tools (`list_regions`,
/// whose structured output is a list, without `outputSchema`: that era allows only objects)
/// and called `list_regions`, getting the regions as text without `structuredContent`.
pub fn assert_listed_and_read_regions_as_text(report: &Value) {
    assert_eq!(report["regionsError"], Value::Null, "{report}");
    let tools = report["tools"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["deploy", "list_regions"], "{report}");
    for tool in tools {
        assert!(
            tool["outputSchemaType"].is_null() || tool["outputSchemaType"] == "object",
            "a 2025-11-25 client is listed object output schemas only: {report}"
        );
    }
    let regions = &report["regions"];
    assert_eq!(regions["isError"], false, "{report}");
    assert_eq!(regions["structured"], false, "{report}");
    assert_eq!(regions["text"], PRODUCTION_REGIONS, "{report}");
}

/// The questions, the approval URL and the final text of a deploy to production.
fn assert_production_outcome(report: &Value) {
    assert_eq!(report["isError"], false, "{report}");
    let asked: Vec<&str> = report["asked"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert_eq!(asked.len(), 4, "{report}");
    // Round 2 asks two questions at once; a client may fulfil them in either order.
    let mut second = asked[1..3].to_vec();
    second.sort_unstable();
    assert_eq!(asked[0], "Deploy to Production?", "{report}");
    assert_eq!(
        second,
        ["How should it roll out?", "Which region?"],
        "{report}"
    );
    assert_eq!(
        asked[3], "url: Approve the deploy in the change-management page.",
        "the approval is asked in URL mode: {report}"
    );
    let url = report["urls"][0].as_str().unwrap_or_default();
    assert!(
        url.starts_with("https://changes.example.com/requests/CHG-"),
        "{report}"
    );
    let text = report["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with(
            "Deployed to Production in us-east-1 with 3 replicas, all at once (approved at "
        ) && text.contains("; interop check), change CHG-")
            && text.ends_with(" approved."),
        "{report}"
    );
}

/// The `elicitation/create` params a client of 2025-11-25 received (`pushed`), in the order
/// asked: the forms as flat `requestedSchema` objects of the 2025-11-25 vocabulary, the
/// URL-mode approval with the `elicitationId` that revision requires, and none of the
/// multi-round fields of 2026-07-28.
fn assert_pushed_in_2025_spelling(report: &Value) {
    let pushed = report["pushed"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    assert_eq!(pushed.len(), 4, "{report}");
    let form = |key: &str| {
        let found = pushed
            .iter()
            .find(|p| p["requestedSchema"]["properties"].get(key).is_some());
        let params = found.unwrap_or_else(|| panic!("no form asking `{key}` was pushed: {report}"));
        assert!(
            params.get("mode").is_none() || params["mode"] == "form",
            "a form is form mode: {params}"
        );
        let schema = &params["requestedSchema"];
        assert_eq!(schema["type"], "object", "{params}");
        schema["properties"].clone()
    };
    let confirm = form("ok");
    assert_eq!(confirm["ok"]["type"], "boolean", "{confirm}");
    let rollout = form("replicas");
    assert_eq!(rollout["replicas"]["type"], "integer", "{rollout}");
    assert_eq!(rollout["replicas"]["minimum"], 1, "{rollout}");
    assert_eq!(rollout["replicas"]["maximum"], 12, "{rollout}");
    assert_eq!(rollout["replicas"]["default"], 2, "{rollout}");
    assert_eq!(rollout["strategy"]["type"], "string", "{rollout}");
    assert_eq!(rollout["reason"]["maxLength"], 200, "{rollout}");
    let region = form("region");
    let options: Vec<&Value> = region["region"]["oneOf"]
        .as_array()
        .map(|o| o.iter().map(|option| &option["const"]).collect())
        .unwrap_or_default();
    assert_eq!(
        options,
        ["eu-west-1", "us-east-1", "ap-south-1"],
        "the regions of Production, titled (oneOf const/title): {region}"
    );
    assert!(
        region["region"]["oneOf"]
            .as_array()
            .is_some_and(|o| o.iter().all(|option| option["title"].is_string())),
        "{region}"
    );
    let approval = &pushed[3];
    assert_eq!(approval["mode"], "url", "{approval}");
    assert!(
        approval["elicitationId"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "a URL-mode request of 2025-11-25 carries an elicitationId: {approval}"
    );
    for params in pushed {
        for field in ["inputResponses", "requestState", "resultType"] {
            assert!(params.get(field).is_none(), "{field} in {params}");
        }
    }
}
