//! One round of each multi-round method, as the era runs it (once on the 2026-07-28 wire,
//! once per pushed round on a session): the guard's setup, the handler, the guard's checks of
//! what it returned ([`super::guard`]).

use typemcp_core::McpError;
use typemcp_core::protocol::{CallToolResult, GetPromptResult, Outcome, ReadResourceResult};

use super::guard::{Rounds, Target};
use super::methods::ReadRoute;
use crate::registry::{OutputEra, fill_mime_types};
use crate::{PromptRoute, RequestContext, Server, ToolRoute};

impl Server {
    /// One run of a tool, in the guard: arguments checked, the result shaped for the era.
    pub(super) async fn tool_round(
        &self,
        ctx: &RequestContext,
        route: &ToolRoute,
        rounds: Rounds,
        output: OutputEra,
    ) -> Result<Outcome<CallToolResult>, McpError> {
        let (invocation, guard) = self.guard(ctx.clone(), route, rounds).await?;
        if let Err(message) = route.check_arguments(&invocation.arguments) {
            return Ok(Outcome::Complete(CallToolResult::error(message)));
        }
        let mut outcome = route.call(invocation).await?;
        guard.finish(&outcome)?;
        if let Outcome::Complete(result) = &mut outcome {
            output.shape(route.tool(), result);
        }
        Ok(outcome)
    }

    /// One run of a prompt, in the guard.
    pub(super) async fn prompt_round(
        &self,
        ctx: &RequestContext,
        route: &PromptRoute,
        rounds: Rounds,
    ) -> Result<Outcome<GetPromptResult>, McpError> {
        let (invocation, guard) = self.guard(ctx.clone(), route, rounds).await?;
        let outcome = route.get(invocation).await?;
        guard.finish(&outcome)?;
        Ok(outcome)
    }

    /// One read of a resource, in the guard.
    pub(super) async fn resource_round(
        &self,
        ctx: &RequestContext,
        route: &ReadRoute<'_>,
        target: Target<'_>,
        uri_params: &[(String, String)],
        rounds: Rounds,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let (mut invocation, guard) = self.guard(ctx.clone(), target, rounds).await?;
        invocation.uri = Some(target.name.to_owned());
        invocation.uri_params = uri_params.to_vec();
        let outcome = self.read(route, target.name, invocation).await?;
        guard.finish(&outcome)?;
        Ok(outcome)
    }

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
