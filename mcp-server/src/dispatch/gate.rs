//! The capability gate: an input request is only ever sent to a client that declared the
//! matching capability on this very request; otherwise the call fails with `-32021`.

use mcp_core::McpError;
use mcp_core::protocol::{
    ClientCapabilities, ElicitRequestParams, InputRequest, InputRequiredResult, Outcome,
};
use serde_json::{Value, json};

/// The capability an input request needs, as a `ClientCapabilities` fragment, when the
/// client did not declare it.
pub(crate) fn missing_capability(
    request: &InputRequest,
    caps: &ClientCapabilities,
) -> Option<Value> {
    match request {
        InputRequest::Elicitation(ElicitRequestParams::Form { .. })
            if !caps.supports_elicitation_form() =>
        {
            Some(json!({ "elicitation": { "form": {} } }))
        }
        InputRequest::Elicitation(ElicitRequestParams::Url { .. })
            if !caps.supports_elicitation_url() =>
        {
            Some(json!({ "elicitation": { "url": {} } }))
        }
        InputRequest::Sampling(params) if !caps.supports_sampling() => {
            let _ = params;
            Some(json!({ "sampling": {} }))
        }
        InputRequest::Sampling(params)
            if (params.tools.is_some() || params.tool_choice.is_some())
                && caps.sampling.as_ref().is_none_or(|s| s.tools.is_none()) =>
        {
            Some(json!({ "sampling": { "tools": {} } }))
        }
        InputRequest::ListRoots(_) if !caps.supports_roots() => Some(json!({ "roots": {} })),
        _ => None,
    }
}

/// Refuses an input-required outcome that asks for something the client cannot give.
pub(crate) fn check_input_requests<T>(
    outcome: &Outcome<T>,
    caps: &ClientCapabilities,
) -> Result<(), McpError> {
    let Outcome::InputRequired(InputRequiredResult {
        input_requests,
        request_state,
        ..
    }) = outcome
    else {
        return Ok(());
    };
    if input_requests.as_ref().is_none_or(|r| r.is_empty()) && request_state.is_none() {
        tracing::error!(
            "a handler returned an input-required result with neither input requests nor state"
        );
        return Err(McpError::internal("Internal error"));
    }
    let mut required = serde_json::Map::new();
    for request in input_requests.iter().flat_map(|r| r.values()) {
        if let Some(Value::Object(missing)) = missing_capability(request, caps) {
            for (key, value) in missing {
                merge(required.entry(key).or_insert_with(|| json!({})), value);
            }
        }
    }
    if required.is_empty() {
        Ok(())
    } else {
        Err(McpError::missing_client_capability(Value::Object(required)))
    }
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(into), Value::Object(from)) = (into, from) {
        for (k, v) in from {
            into.entry(k).or_insert(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::ErrorCode;
    use mcp_core::protocol::{CallToolResult, CreateMessageParams, RequestedSchema};

    fn caps(v: Value) -> ClientCapabilities {
        serde_json::from_value(v).unwrap_or_default()
    }

    fn asking(requests: Vec<InputRequest>) -> Outcome<CallToolResult> {
        let mut r = InputRequiredResult::new();
        for (i, req) in requests.into_iter().enumerate() {
            r = r.with_request(format!("k{i}"), req);
        }
        Outcome::InputRequired(r)
    }

    #[test]
    fn undeclared_kinds_are_refused_with_the_capabilities_needed() {
        let form =
            InputRequest::Elicitation(ElicitRequestParams::form("?", RequestedSchema::default()));
        let sampling = InputRequest::Sampling(CreateMessageParams::default());
        let out = asking(vec![
            form.clone(),
            sampling.clone(),
            InputRequest::list_roots(),
        ]);
        let err = check_input_requests(&out, &caps(json!({}))).expect_err("refused");
        assert_eq!(err.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            err.data,
            Some(
                json!({"requiredCapabilities": {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}})
            )
        );
        assert!(
            check_input_requests(
                &out,
                &caps(json!({"elicitation": {}, "sampling": {}, "roots": {}}))
            )
            .is_ok()
        );
        let url = asking(vec![InputRequest::Elicitation(ElicitRequestParams::url(
            "go",
            "https://x",
        ))]);
        assert!(check_input_requests(&url, &caps(json!({"elicitation": {}}))).is_err());
        assert!(check_input_requests(&url, &caps(json!({"elicitation": {"url": {}}}))).is_ok());
    }

    #[test]
    fn an_empty_input_required_result_is_an_internal_error() {
        let out: Outcome<CallToolResult> = Outcome::InputRequired(InputRequiredResult::new());
        assert_eq!(
            check_input_requests(&out, &caps(json!({}))).map_err(|e| e.code),
            Err(ErrorCode::INTERNAL_ERROR)
        );
    }
}
