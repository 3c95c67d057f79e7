//! Reading the replies of multi-round calls: the state of an input-required result, the text
//! of a complete one.

use serde_json::Value;

/// The `requestState` of an input-required reply.
#[track_caller]
pub fn state_of(reply: &Value) -> String {
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    let state = reply["result"]["requestState"].as_str();
    state
        .unwrap_or_else(|| panic!("no requestState in {reply}"))
        .to_owned()
}

/// The text of a complete tool result.
#[track_caller]
pub fn text_of(reply: &Value) -> String {
    assert!(reply.get("error").is_none(), "unexpected error: {reply}");
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    let text = reply["result"]["content"][0]["text"].as_str();
    text.unwrap_or_else(|| panic!("no text in {reply}"))
        .to_owned()
}
