//! Serving the 2025-11-25 era (and the revisions it negotiates down to): `initialize`, and
//! the requests of an open session.
//!
//! - `initialize` answers the requested revision when it is one of
//!   [`LegacyVersion::SUPPORTED`], else [`LegacyVersion::PREFERRED`], with the capabilities
//!   derived from what is registered, `serverInfo` and `instructions`.
//! - `ping`, `logging/setLevel` (the session's log level; needs the logging capability) and
//!   `resources/subscribe`/`unsubscribe` (needs resources) are answered `{}`.
//! - Every other method runs exactly as on the 2026-07-28 wire, with the client capabilities
//!   and self-description of `initialize` standing in for per-request `_meta`, and its result
//!   loses the 2026 fields (`resultType`, `ttlMs`, `cacheScope`, the `serverInfo` in `_meta`).
//!   `server/discover` and `subscriptions/listen` do not exist in that era (`-32601`).
//! - A multi-round handler (`tools/call`, `prompts/get`, `resources/read`) that answers
//!   input-required on such a session is fulfilled by pushing: its input requests go to the
//!   client as real requests (`elicitation/create` in the spelling of the session's revision,
//!   the deprecated `sampling/createMessage` and `roots/list`), and the same handler runs again
//!   with the answers and its state, verified every round as on the 2026-07-28 wire; see
//!   [`super::push`]. The handler cannot tell the eras apart. The server's requests and the
//!   routing of the client's answers are in [`super::outgoing`].

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use typemcp_core::jsonrpc::{IncomingRequest, ResultResponse};
use typemcp_core::protocol::{
    InitializeParams, InitializeResult, RequestMeta, SetLevelParams, SubscribeParams,
    legacy_methods, meta_keys,
};
use typemcp_core::{McpError, RequestId};

use super::{Reply, Session, parse_params};
use crate::context::{Outbound, TransportInfo};
use crate::{RequestContext, Server};

/// The 2026 fields a result of the older era must not carry.
const MODERN_RESULT_FIELDS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// What a session's client is told when a result other than those of the multi-round
/// methods (which are fulfilled by pushing) asks for input: a bug, never expected.
pub(crate) const INPUT_REQUIRED_UNSUPPORTED: &str = "This request needs more input from the \
     client (input_required), which this method cannot ask on a 2025-11-25 session";

impl Server {
    /// Answers `initialize` and opens its session; `sink` receives the session's
    /// notifications outside any request. On malformed params, the reply (`-32602`).
    pub(crate) fn initialize(
        &self,
        request: IncomingRequest,
        sink: Option<mpsc::Sender<Bytes>>,
    ) -> Result<(Reply, Arc<Session>), Reply> {
        let IncomingRequest { id, params, .. } = request;
        let params: InitializeParams = parse_params(params)
            .and_then(|params| super::session::check_client_description(&params).map(|()| params))
            .map_err(|error| Reply::error(Some(id.clone()), error))?;
        let session = Session::open(self, params, sink);
        let result = InitializeResult {
            protocol_version: session.version().to_owned(),
            capabilities: self.capabilities(),
            server_info: self.info().clone(),
            instructions: self.instructions().map(str::to_owned),
        };
        match serialize(&id, &result) {
            Ok(body) => Ok((Reply::answered(body), session)),
            Err(error) => {
                session.close();
                Err(Reply::error(Some(id), error))
            }
        }
    }

    /// Serves a request of an open session.
    pub(crate) async fn dispatch_legacy(
        &self,
        request: IncomingRequest,
        session: Arc<Session>,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> Reply {
        session.touch();
        let IncomingRequest {
            id,
            method,
            mut params,
        } = request;
        let progress_token = match params.swap_remove("_meta") {
            Some(Value::Object(meta)) => meta
                .get(meta_keys::PROGRESS_TOKEN)
                .and_then(|token| serde_json::from_value(token.clone()).ok()),
            _ => None,
        };
        let caps = self.caps();
        let answered = match method.as_str() {
            legacy_methods::PING => Ok(()),
            legacy_methods::SET_LEVEL if caps.logging.is_some() => {
                parse_params::<SetLevelParams>(params).map(|p| session.set_log_level(p.level))
            }
            legacy_methods::SUBSCRIBE if caps.resources.is_some() => {
                parse_params::<SubscribeParams>(params).and_then(|p| session.subscribe(p.uri))
            }
            legacy_methods::UNSUBSCRIBE if caps.resources.is_some() => {
                parse_params::<SubscribeParams>(params).map(|p| session.unsubscribe(&p.uri))
            }
            legacy_methods::INITIALIZE => Err(McpError::invalid_request(
                "Invalid request: the session is already initialized",
            )),
            _ => {
                let meta = RequestMeta {
                    protocol_version: session.version().to_owned(),
                    client_capabilities: session.client_capabilities().clone(),
                    client_info: Some(session.client_info().clone()),
                    log_level: None,
                    progress_token,
                };
                let context = RequestContext::new(
                    id.clone(),
                    method.clone(),
                    meta,
                    cancellation,
                    outbound,
                    transport,
                    self.clone(),
                )
                .with_session(Arc::clone(&session));
                // `notifications/cancelled` POSTed over HTTP finds the request here.
                let _tracked = session.track(id.clone(), context.cancellation().clone());
                let request = IncomingRequest { id, method, params };
                return self.run_guarded(context, request).await;
            }
        };
        match answered.and_then(|()| serialize(&id, &json!({}))) {
            Ok(body) => Reply::answered(body),
            Err(error) => Reply::error(Some(id), error),
        }
    }
}

/// Serializes a response.
pub(super) fn serialize<R: serde::Serialize>(
    id: &RequestId,
    result: &R,
) -> Result<Bytes, McpError> {
    serde_json::to_vec(&ResultResponse::new(id.clone(), result))
        .map(Bytes::from)
        .map_err(|err| {
            tracing::error!(error = %err, "a result could not be serialized");
            McpError::internal("Internal error")
        })
}

/// A result as the older era spells it: without the 2026 fields. An input-required result
/// is refused: the multi-round methods push their input requests before they get here.
pub(super) fn legacy_result<R: serde::Serialize>(result: &R) -> Result<Value, McpError> {
    let mut value = serde_json::to_value(result).map_err(|err| {
        tracing::error!(error = %err, "a result could not be serialized");
        McpError::internal("Internal error")
    })?;
    if let Value::Object(map) = &mut value {
        if map.get("resultType").and_then(Value::as_str) == Some("input_required") {
            return Err(McpError::internal(INPUT_REQUIRED_UNSUPPORTED));
        }
        for field in MODERN_RESULT_FIELDS {
            map.shift_remove(field);
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use typemcp_core::ErrorCode;

    #[test]
    fn legacy_results_lose_the_2026_fields_and_refuse_input_required() {
        let stripped = legacy_result(&json!({
            "resultType": "complete", "ttlMs": 0, "cacheScope": "public", "tools": []
        }));
        assert_eq!(stripped.ok(), Some(json!({"tools": []})));
        let asking = legacy_result(&json!({"resultType": "input_required", "requestState": "s"}));
        assert_eq!(asking.map_err(|e| e.code), Err(ErrorCode::INTERNAL_ERROR));
    }
}
