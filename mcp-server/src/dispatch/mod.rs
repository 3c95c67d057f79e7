//! The transport-independent dispatcher: serves a request whose era is decided
//! ([`era`]), by its method, and serializes the response.
//!
//! The era's checks come first ([`Server::era_of`], called by each transport as it hands the
//! request to the service); the method (`-32601` when the era or the server offers none
//! such) and the handler come here. Around every handler that may take part in a
//! multi-round request runs one guard ([`guard`]). A call that becomes a task, and
//! `tasks/*`, are [`tasks`]'s (the store and the runner are `crate::tasks`). A reply says
//! what it reports ([`Verdict`]); mapping that onto an HTTP status is the HTTP transport's
//! business.

mod era;
mod gate;
mod guard;
mod listen;
mod meta;
mod methods;
mod page;
mod response;
mod rounds;
mod skills;
mod task_watch;
mod tasks;

use std::panic::AssertUnwindSafe;

use bytes::Bytes;
use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;
use typemcp_core::jsonrpc::{ErrorResponse, IncomingRequest};
use typemcp_core::protocol::{
    SKILLS_EXTENSION, TASKS_EXTENSION, methods as m, skill_methods, task_methods,
};
use typemcp_core::{ErrorCode, McpError, RequestId};

use crate::Server;
use crate::context::TransportInfo;
use crate::outbound::Outbound;

pub(crate) use era::Era;
#[cfg(sessions)]
pub(crate) use era::Scope;
#[cfg(feature = "http")]
pub(crate) use era::SessionHeader;
#[cfg(feature = "http")]
pub(crate) use era::has_modern_meta;
pub use response::McpResponse;

/// What a reply reports, for a transport that maps it onto its own framing (the HTTP
/// transport turns it into a status: see `transport::http::status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A result (or nothing to send).
    Answered,
    /// A JSON-RPC error with this code.
    Error(ErrorCode),
    /// Refused before any method ran, because the message itself is wrong: invalid `_meta`,
    /// a missing session id, or a session header naming a revision the session does not serve.
    Malformed,
    /// The request names a session that does not exist (any more): HTTP's `Mcp-Session-Id`.
    #[cfg(feature = "http")]
    UnknownSession,
}

/// A serialized JSON-RPC response and what it reports.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) body: Bytes,
    pub(crate) verdict: Verdict,
}

impl Reply {
    /// A serialized result.
    pub(crate) fn answered(body: Bytes) -> Self {
        Self {
            body,
            verdict: Verdict::Answered,
        }
    }

    /// An error response.
    pub(crate) fn error(id: Option<RequestId>, error: McpError) -> Self {
        let verdict = Verdict::Error(error.code);
        Self::error_as(id, error, verdict)
    }

    /// The answer to a request naming a session that does not exist (any more): HTTP's 404,
    /// which tells a 2025-11-25 client to start a new session.
    #[cfg(feature = "http")]
    pub(crate) fn unknown_session(id: Option<RequestId>) -> Self {
        let error = McpError::invalid_request(
            "Session not found: it ended or expired; send initialize again",
        );
        Self::error_as(id, error, Verdict::UnknownSession)
    }

    /// An error response reporting `verdict` (invalid `_meta` is `-32602`, and malformed).
    pub(crate) fn error_as(id: Option<RequestId>, error: McpError, verdict: Verdict) -> Self {
        let body = serde_json::to_vec(&ErrorResponse::new(id, error)).unwrap_or_else(|_| {
            br#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#.to_vec()
        });
        Self {
            body: Bytes::from(body),
            verdict,
        }
    }
}

impl Server {
    /// Serves `request` in its era: `initialize` opens a session (which the answer carries
    /// to the transport), a session answers its own methods, and every other method runs in
    /// the era's context. A handler's panic becomes `-32603`.
    pub(crate) async fn dispatch(
        &self,
        mut era: Era,
        request: IncomingRequest,
        transport: TransportInfo,
        outbound: Outbound,
        cancellation: CancellationToken,
    ) -> McpResponse {
        let id = request.id.clone();
        #[cfg(sessions)]
        if let Era::Opening(sink) = era {
            return self.initialize(request, sink);
        }
        #[cfg(sessions)]
        if let Era::Session(session, _) = &era
            && let Some(answered) =
                self.serve_on_session(session, &id, &request.method, &request.params)
        {
            return McpResponse::from_result(id, answered);
        }
        let (ctx, _tracked) = era.context(self, &request, transport, outbound, cancellation);
        // The method table.
        let era = &era;
        let run = async {
            let caps = self.caps();
            let IncomingRequest { id, method, params } = request;
            if !era.offers(&method) {
                return Err(McpError::method_not_found(&method));
            }
            match method.as_str() {
                m::DISCOVER => era.spell(self, &id, self.discover(&caps)),
                m::TOOLS_LIST if caps.tools.is_some() => {
                    era.spell(self, &id, self.list_tools(params, era.output())?)
                }
                m::TOOLS_CALL if caps.tools.is_some() => {
                    self.call_tool(era, &id, ctx, params).await
                }
                method
                    if task_methods::is_task_request(method) && offers(&caps, TASKS_EXTENSION) =>
                {
                    if !ctx
                        .client_capabilities()
                        .declares_extension(TASKS_EXTENSION)
                    {
                        return Err(tasks::tasks_required());
                    }
                    match method {
                        task_methods::GET => {
                            era.spell(self, &id, self.get_task(&ctx, params).await?)
                        }
                        task_methods::UPDATE => {
                            era.spell(self, &id, self.update_task(&ctx, params).await?)
                        }
                        _ => era.spell(self, &id, self.cancel_task(&ctx, params).await?),
                    }
                }
                m::PROMPTS_LIST if caps.prompts.is_some() => {
                    era.spell(self, &id, self.list_prompts(params)?)
                }
                m::PROMPTS_GET if caps.prompts.is_some() => {
                    let prompt = self.get_prompt(era, &ctx, params).await?;
                    era.spell(self, &id, prompt)
                }
                m::RESOURCES_LIST if caps.resources.is_some() => {
                    era.spell(self, &id, self.list_resources(params)?)
                }
                m::RESOURCES_TEMPLATES_LIST if caps.resources.is_some() => {
                    era.spell(self, &id, self.list_resource_templates(params)?)
                }
                m::RESOURCES_READ if caps.resources.is_some() => {
                    let read = self.read_resource(era, &ctx, params).await?;
                    era.spell(self, &id, read)
                }
                m::COMPLETION_COMPLETE if caps.completions.is_some() => {
                    era.spell(self, &id, self.complete(ctx, params).await?)
                }
                skill_methods::LIST if offers(&caps, SKILLS_EXTENSION) => {
                    era.spell(self, &id, self.list_skills(params)?)
                }
                skill_methods::GET if offers(&caps, SKILLS_EXTENSION) => {
                    era.spell(self, &id, self.get_skill(params)?)
                }
                skill_methods::DIRECTORY_READ if offers(&caps, SKILLS_EXTENSION) => {
                    era.spell(self, &id, self.read_directory(params)?)
                }
                m::SUBSCRIPTIONS_LISTEN => {
                    era.spell(self, &id, self.listen(ctx, params, &caps).await?)
                }
                _ => Err(McpError::method_not_found(&method)),
            }
        };
        match AssertUnwindSafe(run).catch_unwind().await {
            Ok(answered) => McpResponse::from_result(id, answered),
            Err(_) => {
                let error = internal_error!(request_id = %id, "a handler panicked");
                McpResponse::error(id, error)
            }
        }
    }
}

/// Whether the server declares the extension `id`.
fn offers(caps: &typemcp_core::protocol::ServerCapabilities, id: &str) -> bool {
    caps.extensions.as_ref().is_some_and(|e| e.contains_key(id))
}

/// Parses method params into their typed form, straight from the client's text (a
/// 2026-07-28 request's `_meta`, already read, is skipped like any member the type does not
/// name).
pub(crate) fn parse_params<'a, T: serde::Deserialize<'a>>(
    params: &'a typemcp_core::jsonrpc::Params,
) -> Result<T, McpError> {
    params.parse().map_err(|err| {
        McpError::invalid_params(format!("Invalid params: {}", without_position(&err)))
    })
}

pub(crate) use typemcp_core::jsonrpc::without_position;
