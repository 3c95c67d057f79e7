//! One round of each multi-round method ([`Round`]), as the era runs it (once on the
//! 2026-07-28 wire, once per pushed round on a session): the guard's setup, the handler, the
//! guard's checks of what it returned ([`super::guard`]).

use std::future::Future;

use typemcp_core::McpError;
use typemcp_core::protocol::{CallToolResult, GetPromptResult, Outcome, ReadResourceResult};

use super::guard::{Rounds, Target};
use super::methods::ReadRoute;
use crate::registry::{OutputEra, fill_mime_types};
use crate::{PromptRoute, RequestContext, Server, ToolRoute};

/// One round of a multi-round method, which the era runs once, or once per pushed round
/// ([`Era::fulfil`](super::Era::fulfil)).
pub(super) trait Round {
    /// The method's result.
    type Result;

    /// Runs the handler once with these answers and this state, in the guard.
    fn run(
        &self,
        ctx: &RequestContext,
        rounds: Rounds,
    ) -> impl Future<Output = Result<Outcome<Self::Result>, McpError>> + Send;
}

/// A round of `tools/call`: arguments checked, the result shaped for the era.
pub(super) struct ToolRound<'a> {
    pub(super) server: &'a Server,
    pub(super) route: &'a ToolRoute,
    pub(super) output: OutputEra,
}

impl Round for ToolRound<'_> {
    type Result = CallToolResult;

    async fn run(
        &self,
        ctx: &RequestContext,
        rounds: Rounds,
    ) -> Result<Outcome<CallToolResult>, McpError> {
        let (invocation, guard) = self.server.guard(ctx.clone(), self.route, rounds).await?;
        if let Err(message) = self.route.check_arguments(&invocation.arguments) {
            return Ok(Outcome::Complete(CallToolResult::error(message)));
        }
        let mut outcome = self.route.call(invocation).await?;
        guard.finish(&outcome)?;
        if let Outcome::Complete(result) = &mut outcome {
            self.output.shape(self.route.tool(), result);
        }
        Ok(outcome)
    }
}

/// A round of `prompts/get`.
pub(super) struct PromptRound<'a> {
    pub(super) server: &'a Server,
    pub(super) route: &'a PromptRoute,
}

impl Round for PromptRound<'_> {
    type Result = GetPromptResult;

    async fn run(
        &self,
        ctx: &RequestContext,
        rounds: Rounds,
    ) -> Result<Outcome<GetPromptResult>, McpError> {
        let (invocation, guard) = self.server.guard(ctx.clone(), self.route, rounds).await?;
        let outcome = self.route.get(invocation).await?;
        guard.finish(&outcome)?;
        Ok(outcome)
    }
}

/// A round of `resources/read`: the resource's route, and the template's values.
pub(super) struct ResourceRound<'a> {
    pub(super) server: &'a Server,
    pub(super) route: ReadRoute<'a>,
    pub(super) target: Target<'a>,
    pub(super) uri_params: Vec<(String, String)>,
}

impl Round for ResourceRound<'_> {
    type Result = ReadResourceResult;

    async fn run(
        &self,
        ctx: &RequestContext,
        rounds: Rounds,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let (mut invocation, guard) = self.server.guard(ctx.clone(), self.target, rounds).await?;
        invocation.uri = Some(self.target.name.to_owned());
        invocation.uri_params.clone_from(&self.uri_params);
        let outcome = self
            .server
            .read(&self.route, self.target.name, invocation)
            .await?;
        guard.finish(&outcome)?;
        Ok(outcome)
    }
}

impl Server {
    /// Reads `uri` through its route: contents with their MIME types and the read caching
    /// hints; empty contents are "not found".
    async fn read(
        &self,
        route: &ReadRoute<'_>,
        uri: &str,
        invocation: crate::handler::Invocation,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let (mut outcome, declared) = match route {
            ReadRoute::Static(route) => (
                route.read(invocation).await?,
                route.resource().mime_type.as_deref(),
            ),
            ReadRoute::Template(route) => (
                route.read(invocation).await?,
                route.resource_template().mime_type.as_deref(),
            ),
        };
        if let Outcome::Complete(result) = &mut outcome {
            if result.contents.is_empty() {
                // An existing resource never reads as empty contents: "not found".
                return Err(McpError::resource_not_found(uri));
            }
            fill_mime_types(result, declared);
            let cache = self.config().read_cache;
            result.ttl_ms = cache.ttl_ms();
            result.cache_scope = cache.scope();
        }
        Ok(outcome)
    }
}
