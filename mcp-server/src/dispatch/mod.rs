//! The transport-independent dispatcher: validates a request as the specification
//! requires, routes it to the method's implementation, and serializes the response.
//!
//! Validation order (pinned by the conformance suite): per-request `_meta` (`-32602`), then
//! transport headers (`-32020`, HTTP only, done by the transport between the two calls),
//! then protocol version (`-32022`), then method (`-32601`), then the handler.
//!
//! Before that, [`route`] decides the era of each request: 2026-07-28 (stateless, as above),
//! or a session of the 2025-11-25 era ([`legacy`], [`session`]). Transports reach the
//! dispatcher only through the MCP service (`crate::service`). Around every handler that may
//! take part in a multi-round request runs one guard ([`guard`]). A call that becomes a task,
//! and `tasks/*`, are [`tasks`]'s (the store and the runner are `crate::tasks`). A reply says
//! what it reports ([`Outcome`]); mapping that onto an HTTP status is the HTTP transport's
//! business.

mod gate;
mod guard;
mod legacy;
mod listen;
mod meta;
mod methods;
mod outgoing;
mod page;
mod push;
mod route;
mod session;
mod stamp;
mod task_watch;
mod tasks;

use std::panic::AssertUnwindSafe;

use bytes::Bytes;
use futures_util::FutureExt;
use serde::Serialize;
use tokio_util::sync::CancellationToken;
use typemcp_core::jsonrpc::{ErrorResponse, IncomingRequest, ResultResponse};
use typemcp_core::protocol::{
    HasMeta, ProtocolVersion, RequestMeta, TASKS_EXTENSION, methods as m, task_methods,
};
use typemcp_core::{ErrorCode, McpError, RequestId};

use crate::context::{Outbound, TransportInfo};
use crate::registry::Era;
use crate::{RequestContext, Server};

pub(crate) use meta::take_meta;
#[cfg(feature = "http")]
pub(crate) use route::SessionHeader;
pub(crate) use route::{Routed, Scope};
pub(crate) use session::Session;

/// What a reply reports, for a transport that maps it onto its own framing (the HTTP
/// transport turns it into a status: see `transport::http::status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A result (or nothing to send).
    Answered,
    /// A JSON-RPC error with this code.
    Error(ErrorCode),
    /// Refused before any method ran, because the message itself is wrong: invalid `_meta`,
    /// a missing session id, or a session header naming a revision the session does not serve.
    Malformed,
    /// The request names a session that does not exist (any more).
    UnknownSession,
}

/// A serialized JSON-RPC response and what it reports.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) body: Bytes,
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // Read by the HTTP transport.
    pub(crate) outcome: Outcome,
}

impl Reply {
    /// A serialized result.
    pub(crate) fn answered(body: Bytes) -> Self {
        Self {
            body,
            outcome: Outcome::Answered,
        }
    }

    /// An error response.
    pub(crate) fn error(id: Option<RequestId>, error: McpError) -> Self {
        let outcome = Outcome::Error(error.code);
        Self::error_as(id, error, outcome)
    }

    /// An error response reporting `outcome` (invalid `_meta` is `-32602`, and malformed).
    pub(crate) fn error_as(id: Option<RequestId>, error: McpError, outcome: Outcome) -> Self {
        let body = serde_json::to_vec(&ErrorResponse::new(id, error)).unwrap_or_else(|_| {
            br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_vec()
        });
        Self {
            body: Bytes::from(body),
            outcome,
        }
    }
}

/// A request whose `_meta` has been read and checked.
#[derive(Debug)]
pub(crate) struct CheckedRequest {
    pub(crate) request: IncomingRequest,
    pub(crate) meta: RequestMeta,
}

impl Server {
    /// Reads the request's `_meta`. On failure, the reply to send (malformed).
    pub(crate) fn check_meta(&self, mut request: IncomingRequest) -> Result<CheckedRequest, Reply> {
        match take_meta(&mut request.params) {
            Ok(meta) => Ok(CheckedRequest { request, meta }),
            Err(error) => Err(Reply::error_as(Some(request.id), error, Outcome::Malformed)),
        }
    }

    /// Checks the version and method, then runs the method.
    pub(crate) async fn dispatch(
        &self,
        checked: CheckedRequest,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> Reply {
        let CheckedRequest { request, meta } = checked;
        let id = request.id.clone();
        if !ProtocolVersion::is_supported(&meta.protocol_version) {
            return Reply::error(
                Some(id),
                McpError::unsupported_protocol_version(
                    ProtocolVersion::SUPPORTED,
                    &meta.protocol_version,
                ),
            );
        }
        let context = RequestContext::new(
            id.clone(),
            request.method.clone(),
            meta,
            cancellation,
            outbound,
            transport,
            self.clone(),
        );
        self.run_guarded(context, request).await
    }

    /// Runs the method; a handler's panic becomes `-32603`.
    async fn run_guarded(&self, context: RequestContext, request: IncomingRequest) -> Reply {
        let id = request.id.clone();
        let run = AssertUnwindSafe(self.run_method(context, request)).catch_unwind();
        match run.await {
            Ok(Ok(body)) => Reply::answered(body),
            Ok(Err(error)) => Reply::error(Some(id), error),
            Err(_) => {
                tracing::error!(request_id = %id, "a handler panicked");
                Reply::error(Some(id), McpError::internal("Internal error"))
            }
        }
    }

    async fn run_method(
        &self,
        ctx: RequestContext,
        request: IncomingRequest,
    ) -> Result<Bytes, McpError> {
        let caps = self.caps();
        let IncomingRequest { id, method, params } = request;
        let legacy = ctx.is_legacy_session();
        match method.as_str() {
            m::DISCOVER if !legacy => self.respond(&id, legacy, self.discover(&caps)),
            m::TOOLS_LIST if caps.tools.is_some() => self.respond(
                &id,
                legacy,
                self.list_tools(params, Era::of_session(legacy))?,
            ),
            m::TOOLS_CALL if caps.tools.is_some() && legacy => {
                let pushed = self.run_pushed(ctx, params, async |server, ctx, params| {
                    server.call_tool(ctx, params).await
                });
                legacy::serialize(&id, &pushed.await?)
            }
            m::TOOLS_CALL if caps.tools.is_some() => {
                match self.call_tool_or_task(ctx, params).await? {
                    tasks::Called::Now(outcome) => self.respond(&id, legacy, outcome),
                    tasks::Called::Task(task) => self.respond(&id, legacy, task),
                }
            }
            method
                if !legacy
                    && task_methods::is_task_request(method)
                    && caps
                        .extensions
                        .as_ref()
                        .is_some_and(|e| e.contains_key(TASKS_EXTENSION)) =>
            {
                if !ctx
                    .client_capabilities()
                    .declares_extension(TASKS_EXTENSION)
                {
                    return Err(tasks::tasks_required());
                }
                match method {
                    task_methods::GET => {
                        self.respond(&id, legacy, self.get_task(&ctx, params).await?)
                    }
                    task_methods::UPDATE => {
                        self.respond(&id, legacy, self.update_task(&ctx, params).await?)
                    }
                    _ => self.respond(&id, legacy, self.cancel_task(&ctx, params).await?),
                }
            }
            m::PROMPTS_LIST if caps.prompts.is_some() => {
                self.respond(&id, legacy, self.list_prompts(params)?)
            }
            m::PROMPTS_GET if caps.prompts.is_some() && legacy => {
                let pushed = self.run_pushed(ctx, params, async |server, ctx, params| {
                    server.get_prompt(ctx, params).await
                });
                legacy::serialize(&id, &pushed.await?)
            }
            m::PROMPTS_GET if caps.prompts.is_some() => {
                self.respond(&id, legacy, self.get_prompt(ctx, params).await?)
            }
            m::RESOURCES_LIST if caps.resources.is_some() => {
                self.respond(&id, legacy, self.list_resources(params)?)
            }
            m::RESOURCES_TEMPLATES_LIST if caps.resources.is_some() => {
                self.respond(&id, legacy, self.list_resource_templates(params)?)
            }
            m::RESOURCES_READ if caps.resources.is_some() && legacy => {
                let pushed = self.run_pushed(ctx, params, async |server, ctx, params| {
                    server.read_resource(ctx, params).await
                });
                legacy::serialize(&id, &pushed.await?)
            }
            m::RESOURCES_READ if caps.resources.is_some() => {
                self.respond(&id, legacy, self.read_resource(ctx, params).await?)
            }
            m::COMPLETION_COMPLETE if caps.completions.is_some() => {
                self.respond(&id, legacy, self.complete(ctx, params).await?)
            }
            m::SUBSCRIPTIONS_LISTEN if !legacy => {
                self.respond(&id, legacy, self.listen(ctx, params, &caps).await?)
            }
            _ => Err(McpError::method_not_found(&method)),
        }
    }

    /// Stamps `serverInfo` into the result's `_meta` and serializes the response. For a
    /// session of the 2025-11-25 era, the result is spelled as that era does instead.
    fn respond<R: Serialize + HasMeta>(
        &self,
        id: &RequestId,
        legacy: bool,
        mut result: R,
    ) -> Result<Bytes, McpError> {
        if legacy {
            let value = legacy::legacy_result(&result)?;
            return serde_json::to_vec(&ResultResponse::new(id.clone(), value))
                .map(Bytes::from)
                .map_err(|_| McpError::internal("Internal error"));
        }
        let server_info = self
            .info_json()
            .filter(|_| self.config().server_info_in_results);
        // Most responses fit: one allocation instead of growing from serde_json's 128 bytes.
        let mut body = Vec::with_capacity(RESPONSE_CAPACITY);
        let written = if let Some(server_info) = server_info {
            let mut own = None;
            let stamped = stamp::Stamped::new(&mut result, &mut own, server_info);
            serde_json::to_writer(&mut body, &ResultResponse::new(id.clone(), stamped))
        } else {
            serde_json::to_writer(&mut body, &ResultResponse::new(id.clone(), result))
        };
        written.map(|()| Bytes::from(body)).map_err(|err| {
            tracing::error!(error = %err, "a result could not be serialized");
            McpError::internal("Internal error")
        })
    }
}

/// The room a response body is serialized into at first.
const RESPONSE_CAPACITY: usize = 512;

/// Parses method params (with `_meta` already removed) into their typed form.
pub(crate) fn parse_params<T: serde::de::DeserializeOwned>(
    params: serde_json::Map<String, serde_json::Value>,
) -> Result<T, McpError> {
    serde_json::from_value(serde_json::Value::Object(params))
        .map_err(|err| McpError::invalid_params(format!("Invalid params: {err}")))
}
