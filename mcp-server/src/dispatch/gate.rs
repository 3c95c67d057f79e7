//! The capability gate: an input request is only ever sent to a client that declared the
//! matching capability on this very request; otherwise the call fails with `-32021`.
//! `Round::ask` and `Inputs::ask` check before the handler returns (so it can still act on
//! it), and the guard skips the gate for the result they built with the state they minted in
//! this request; every other `input_required` result, however built, passes this gate. (A
//! handler that copies such a result from `Step::asking` and changes its questions before
//! returning it with the same state is trusted: only its own code can do that.)
//! The error's message names each capability missing (``the client did not declare the
//! `elicitation.form` capability``), its `data.requiredCapabilities` holds them as an object.

use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::protocol::{ClientCapabilities, InputRequiredResult, Outcome};

use crate::state::{merge_capability, missing_capability};

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
        return Err(internal_error!(
            "a handler returned an input-required result with neither input requests nor state"
        ));
    }
    let mut required = serde_json::Map::new();
    for request in input_requests.iter().flat_map(|r| r.values()) {
        if let Some(missing) = missing_capability(request, caps) {
            merge_capability(&mut required, missing);
        }
    }
    if required.is_empty() {
        Ok(())
    } else {
        Err(McpError::missing_client_capability(Value::Object(required)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use typemcp_core::ErrorCode;
    use typemcp_core::protocol::{
        CallToolResult, CreateMessageParams, ElicitRequestParams, InputRequest, RequestedSchema,
    };

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
    fn the_message_names_each_missing_capability() {
        let form =
            InputRequest::Elicitation(ElicitRequestParams::form("?", RequestedSchema::default()));
        let err = check_input_requests(&asking(vec![form.clone()]), &caps(json!({})))
            .expect_err("refused");
        assert_eq!(
            err.message,
            "Missing required client capability: the client did not declare the \
             `elicitation.form` capability"
        );
        let url = InputRequest::Elicitation(ElicitRequestParams::url("go", "https://x"));
        let sampling = InputRequest::Sampling(CreateMessageParams::default());
        let err = check_input_requests(
            &asking(vec![url, sampling, InputRequest::list_roots()]),
            &caps(json!({"elicitation": {"form": {}}})),
        )
        .expect_err("refused");
        assert_eq!(
            err.message,
            "Missing required client capability: the client did not declare the \
             `elicitation.url`, `sampling` and `roots` capabilities"
        );
        assert_eq!(
            super::super::tasks::tasks_required().message,
            "Missing required client capability: the client did not declare the \
             `extensions[\"io.modelcontextprotocol/tasks\"]` capability"
        );
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
