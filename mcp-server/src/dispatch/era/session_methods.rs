//! What only a session of the 2025-11-25 era (and the revisions it negotiates down to) has:
//! `initialize`, which opens it, the methods it answers by itself, and its spelling of results.
//!
//! - `initialize` answers the requested revision when it is one of
//!   [`LegacyVersion::SUPPORTED`](typemcp_core::protocol::LegacyVersion::SUPPORTED), else
//!   [`LegacyVersion::PREFERRED`](typemcp_core::protocol::LegacyVersion::PREFERRED), with the capabilities
//!   derived from what is registered, `serverInfo` and `instructions`.
//! - `ping`, `logging/setLevel` (the session's log level; needs the logging capability) and
//!   `resources/subscribe`/`unsubscribe` (needs resources) are answered `{}`; `initialize`
//!   again is refused.
//! - Every other method runs exactly as on the 2026-07-28 wire, with the client capabilities
//!   and self-description of `initialize` standing in for per-request `_meta` (see
//!   [`super::Era::context`]), and its result loses the 2026 fields (`resultType`, `ttlMs`,
//!   `cacheScope`, the `serverInfo` in `_meta`): [`legacy_result`].
//!   `server/discover` and `subscriptions/listen` do not exist in that era (`-32601`).
//! - A multi-round handler that answers input-required on such a session is fulfilled by
//!   pushing: see [`super::push`].

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc};
use typemcp_core::jsonrpc::{IncomingRequest, ResultResponse};
use typemcp_core::protocol::{
    InitializeParams, InitializeResult, ResourceUpdatedParams, SetLevelParams, SubscribeParams,
    legacy_methods, methods,
};
use typemcp_core::{McpError, RequestId};

use crate::Server;
use crate::dispatch::McpResponse;
use crate::dispatch::{Reply, parse_params};
use crate::server::Change;
use crate::session::Session;

/// The 2026 fields a result of the older era must not carry.
const MODERN_RESULT_FIELDS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// What a session's client is told when a result other than those of the multi-round
/// methods (which are fulfilled by pushing) asks for input: a bug, never expected.
pub(crate) const INPUT_REQUIRED_UNSUPPORTED: &str = "This request needs more input from the \
     client (input_required), which this method cannot ask on a 2025-11-25 session";

impl Server {
    /// Answers `initialize` and opens its session, which the answer carries to the
    /// transport; `sink` receives the session's notifications outside any request. On
    /// malformed params, `-32602` and no session.
    pub(crate) fn initialize(
        &self,
        request: IncomingRequest,
        sink: Option<mpsc::Sender<Bytes>>,
    ) -> McpResponse {
        let IncomingRequest { id, params, .. } = request;
        let params: InitializeParams = match parse_params(&params)
            .and_then(|params| crate::session::check_client_description(&params).map(|()| params))
        {
            Ok(params) => params,
            Err(error) => return McpResponse::from_reply(Reply::error(Some(id), error)),
        };
        let session = Session::new(params, sink);
        // Subscribed before the task first runs, so no change after `initialize` is lost.
        let changes = self.subscribe_changes();
        tokio::spawn(forward_changes(self.clone(), changes, Arc::clone(&session)));
        let result = InitializeResult {
            protocol_version: session.version().to_owned(),
            capabilities: self.capabilities(),
            server_info: self.info().clone(),
            instructions: self.instructions().map(str::to_owned),
        };
        match serialize(&id, &result) {
            Ok(body) => McpResponse::opening(Reply::answered(body), session),
            Err(error) => {
                session.close();
                McpResponse::from_reply(Reply::error(Some(id), error))
            }
        }
    }

    /// The session another instance opened, as a shared store's record describes it, served
    /// here from now on: the server's changes are forwarded to it as to one opened here.
    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    pub(crate) fn restore_session(&self, record: crate::session::Record) -> Arc<Session> {
        let session = Session::restore(record);
        let changes = self.subscribe_changes();
        tokio::spawn(forward_changes(self.clone(), changes, Arc::clone(&session)));
        session
    }

    /// Marks the session used, and serves one of the methods only a session offers
    /// (`ping`, `logging/setLevel`, `resources/subscribe`/`unsubscribe`, `initialize`
    /// again); `None` for any other, or one whose capability the server did not declare.
    pub(in crate::dispatch) fn serve_on_session(
        &self,
        session: &Session,
        id: &RequestId,
        method: &str,
        params: &typemcp_core::jsonrpc::Params,
    ) -> Option<Result<Bytes, McpError>> {
        session.touch();
        let caps = self.caps();
        let answered = match method {
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
            _ => return None,
        };
        Some(answered.and_then(|()| serialize(id, &json!({}))))
    }
}

/// Forwards the server's changes to a session until it ends or the server shuts down:
/// `notifications/*/list_changed` for the lists the server declared, and
/// `notifications/resources/updated` for subscribed resources (or a parent of them).
async fn forward_changes(
    server: Server,
    mut changes: broadcast::Receiver<Change>,
    session: Arc<Session>,
) {
    loop {
        let change = tokio::select! {
            () = session.closed().cancelled() => return,
            // Ending the session also ends its GET stream, so a graceful shutdown can finish.
            () = server.shutdown_token().cancelled() => return session.close(),
            change = changes.recv() => change,
        };
        let caps = server.caps();
        let changes_now = match change {
            Ok(change) => vec![change],
            Err(RecvError::Lagged(_)) => Change::LISTS.to_vec(),
            Err(RecvError::Closed) => return,
        };
        for change in changes_now {
            let (method, params) = match change {
                Change::ToolsListChanged if caps.tools.is_some() => {
                    (methods::TOOLS_LIST_CHANGED, json!({}))
                }
                Change::PromptsListChanged if caps.prompts.is_some() => {
                    (methods::PROMPTS_LIST_CHANGED, json!({}))
                }
                Change::ResourcesListChanged if caps.resources.is_some() => {
                    (methods::RESOURCES_LIST_CHANGED, json!({}))
                }
                Change::ResourceUpdated(uri) if session.is_subscribed(&uri) => {
                    let params = ResourceUpdatedParams { uri, meta: None };
                    match serde_json::to_value(params) {
                        Ok(params) => (methods::RESOURCES_UPDATED, params),
                        Err(_) => continue,
                    }
                }
                _ => continue,
            };
            session.notify(method, params).await;
        }
    }
}

/// Serializes a response as it is.
pub(super) fn serialize<R: serde::Serialize>(
    id: &RequestId,
    result: &R,
) -> Result<Bytes, McpError> {
    serde_json::to_vec(&ResultResponse::new(id.clone(), result))
        .map(Bytes::from)
        .map_err(|err| internal_error!(error = %err, "a result could not be serialized"))
}

/// A result as the older era spells it: without the 2026 fields. An input-required result
/// is refused: the multi-round methods push their input requests before they get here.
pub(super) fn legacy_result<R: serde::Serialize>(result: &R) -> Result<Value, McpError> {
    let mut value = serde_json::to_value(result)
        .map_err(|err| internal_error!(error = %err, "a result could not be serialized"))?;
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
