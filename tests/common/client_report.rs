//! What an interop client (TypeScript, Python) reports after driving an example, and the
//! assertions both share about it. A report is JSON: `asked` (the messages of the questions
//! it was asked, `url: …` for URL mode), `urls`, `posted` (the requests it sent, with
//! `inputResponses` / `requestState` flags), `text` and `isError` of the final result.

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
    assert_eq!(
        tool_calls(report),
        [(false, false), (true, true), (true, true), (true, true)],
        "the first call, then three retries carrying inputResponses and requestState: {report}"
    );
}
