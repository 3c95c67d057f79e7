//! The methods a server answers: discovery, listing, calling tools, getting prompts,
//! reading resources and completing arguments.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use mcp_core::McpError;
use mcp_core::protocol::{
    CallToolParams, CallToolResult, CompleteParams, CompleteResult, CompletionReference,
    DiscoverResult, GetPromptParams, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Outcome, PaginatedParams,
    ProtocolVersion, ReadResourceParams, ReadResourceResult, ServerCapabilities,
};
use serde_json::{Map, Value};

use std::sync::Arc;

use super::gate::check_input_requests;
use super::page::page;
use super::parse_params;
use crate::handler::Invocation;
use crate::registry::CompletionRequest;
use crate::state::{
    BindingContext, StateContext, check_input_responses, check_outgoing, verify_incoming,
};
use crate::{RequestContext, Server};

type Params = Map<String, Value>;

impl Server {
    /// Before a handler that may take part in a multi-round request: `inputResponses` must be
    /// an object, and an echoed state must verify under this request's binding.
    fn prepare_state(
        &self,
        ctx: &RequestContext,
        target: &str,
        arguments: &Value,
        input_responses: &Option<Value>,
        request_state: Option<&str>,
    ) -> Result<Option<StateContext>, McpError> {
        check_input_responses(input_responses.as_ref())?;
        let Some(signer) = &self.config().state_signer else {
            return Ok(None);
        };
        let binding = signer.bind_for(&BindingContext {
            request: ctx,
            target,
            arguments,
        });
        let payload = verify_incoming(signer, &binding, request_state, target)?;
        Ok(Some(StateContext {
            signer: Arc::clone(signer),
            binding,
            payload,
        }))
    }

    pub(super) fn discover(&self, capabilities: ServerCapabilities) -> DiscoverResult {
        let cache = self.config().list_cache;
        DiscoverResult {
            supported_versions: ProtocolVersion::SUPPORTED
                .iter()
                .map(|v| (*v).to_owned())
                .collect(),
            capabilities,
            instructions: self.instructions().map(str::to_owned),
            ttl_ms: cache.ttl_ms(),
            cache_scope: cache.scope(),
            ..DiscoverResult::default()
        }
    }

    pub(super) fn list_tools(&self, params: Params) -> Result<ListToolsResult, McpError> {
        let params: PaginatedParams = parse_params(params)?;
        let registry = self.snapshot();
        let (tools, next_cursor) = page(
            registry.tools.values().map(|r| r.tool().clone()),
            params.cursor.as_deref(),
            self.config().page_size,
        )?;
        let cache = self.config().list_cache;
        Ok(ListToolsResult {
            tools,
            next_cursor,
            ttl_ms: cache.ttl_ms(),
            cache_scope: cache.scope(),
            ..ListToolsResult::default()
        })
    }

    pub(super) async fn call_tool(
        &self,
        ctx: RequestContext,
        params: Params,
    ) -> Result<Outcome<CallToolResult>, McpError> {
        let params: CallToolParams = parse_params(params)?;
        let registry = self.snapshot();
        let route = registry
            .tools
            .get(&params.name)
            .ok_or_else(|| McpError::invalid_params(format!("Unknown tool: {}", params.name)))?;
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        let state = self.prepare_state(
            &ctx,
            &params.name,
            &arguments,
            &params.input_responses,
            params.request_state.as_deref(),
        )?;
        if let Err(message) = route.check_arguments(&arguments) {
            return Ok(Outcome::Complete(CallToolResult::error(message)));
        }
        let caps = ctx.client_capabilities().clone();
        let invocation = Invocation {
            input_responses: params.input_responses,
            request_state: params.request_state,
            state: state.clone(),
            ..Invocation::new(ctx, arguments)
        };
        let outcome = route.call(invocation).await?;
        finish(&outcome, state.as_ref(), &caps)?;
        Ok(outcome)
    }

    pub(super) fn list_prompts(&self, params: Params) -> Result<ListPromptsResult, McpError> {
        let params: PaginatedParams = parse_params(params)?;
        let registry = self.snapshot();
        let (prompts, next_cursor) = page(
            registry.prompts.values().map(|r| r.prompt().clone()),
            params.cursor.as_deref(),
            self.config().page_size,
        )?;
        let cache = self.config().list_cache;
        Ok(ListPromptsResult {
            prompts,
            next_cursor,
            ttl_ms: cache.ttl_ms(),
            cache_scope: cache.scope(),
            ..ListPromptsResult::default()
        })
    }

    pub(super) async fn get_prompt(
        &self,
        ctx: RequestContext,
        params: Params,
    ) -> Result<Outcome<GetPromptResult>, McpError> {
        let params: GetPromptParams = parse_params(params)?;
        let registry = self.snapshot();
        let route = registry
            .prompts
            .get(&params.name)
            .ok_or_else(|| McpError::invalid_params(format!("Unknown prompt: {}", params.name)))?;
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        let state = self.prepare_state(
            &ctx,
            &params.name,
            &arguments,
            &params.input_responses,
            params.request_state.as_deref(),
        )?;
        let caps = ctx.client_capabilities().clone();
        let invocation = Invocation {
            input_responses: params.input_responses,
            request_state: params.request_state,
            state: state.clone(),
            ..Invocation::new(ctx, arguments)
        };
        let outcome = route.get(invocation).await?;
        finish(&outcome, state.as_ref(), &caps)?;
        Ok(outcome)
    }

    pub(super) fn list_resources(&self, params: Params) -> Result<ListResourcesResult, McpError> {
        let params: PaginatedParams = parse_params(params)?;
        let registry = self.snapshot();
        let (resources, next_cursor) = page(
            registry.resources.values().map(|r| r.resource().clone()),
            params.cursor.as_deref(),
            self.config().page_size,
        )?;
        let cache = self.config().list_cache;
        Ok(ListResourcesResult {
            resources,
            next_cursor,
            ttl_ms: cache.ttl_ms(),
            cache_scope: cache.scope(),
            ..ListResourcesResult::default()
        })
    }

    pub(super) fn list_resource_templates(
        &self,
        params: Params,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let params: PaginatedParams = parse_params(params)?;
        let registry = self.snapshot();
        let (resource_templates, next_cursor) = page(
            registry
                .templates
                .iter()
                .map(|r| r.resource_template().clone()),
            params.cursor.as_deref(),
            self.config().page_size,
        )?;
        let cache = self.config().list_cache;
        Ok(ListResourceTemplatesResult {
            resource_templates,
            next_cursor,
            ttl_ms: cache.ttl_ms(),
            cache_scope: cache.scope(),
            ..ListResourceTemplatesResult::default()
        })
    }

    pub(super) async fn read_resource(
        &self,
        ctx: RequestContext,
        params: Params,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let params: ReadResourceParams = parse_params(params)?;
        let registry = self.snapshot();
        let caps = ctx.client_capabilities().clone();
        let no_arguments = Value::Object(Map::new());
        // The route first: an unknown URI is "not found" whatever state came with it.
        let (route, uri_params) = if let Some(route) = registry.resources.get(&params.uri) {
            (ReadRoute::Static(route), Vec::new())
        } else if let Some((route, vars)) = registry.match_template(&params.uri) {
            (ReadRoute::Template(route), vars)
        } else {
            return Err(McpError::resource_not_found(&params.uri));
        };
        let state = self.prepare_state(
            &ctx,
            &params.uri,
            &no_arguments,
            &params.input_responses,
            params.request_state.as_deref(),
        )?;
        let invocation = Invocation {
            uri: Some(params.uri.clone()),
            uri_params,
            input_responses: params.input_responses,
            request_state: params.request_state,
            state: state.clone(),
            ..Invocation::new(ctx, no_arguments)
        };
        let outcome = match route {
            ReadRoute::Static(route) => route.read(invocation).await?,
            ReadRoute::Template(route) => route.read(invocation).await?,
        };
        let mut outcome = outcome;
        if let Outcome::Complete(result) = &mut outcome {
            if result.contents.is_empty() {
                // An existing resource never reads as empty contents: that means "not found".
                return Err(McpError::resource_not_found(&params.uri));
            }
            let cache = self.config().read_cache;
            result.ttl_ms = cache.ttl_ms();
            result.cache_scope = cache.scope();
        }
        finish(&outcome, state.as_ref(), &caps)?;
        Ok(outcome)
    }

    pub(super) async fn complete(
        &self,
        ctx: RequestContext,
        params: Params,
    ) -> Result<CompleteResult, McpError> {
        let params: CompleteParams = parse_params(params)?;
        let registry = self.snapshot();
        let request = CompletionRequest {
            context: ctx,
            argument: params.argument.name,
            value: params.argument.value,
            arguments: params.context.and_then(|c| c.arguments).unwrap_or_default(),
        };
        let completing = match &params.reference {
            CompletionReference::Prompt { name, .. } => registry
                .prompts
                .get(name)
                .map(|p| p.completions().complete(request))
                .ok_or_else(|| McpError::invalid_params(format!("Unknown prompt: {name}")))?,
            CompletionReference::Resource { uri } => {
                match registry
                    .templates
                    .iter()
                    .find(|t| &t.resource_template().uri_template == uri)
                {
                    Some(template) => template.completions().complete(request),
                    // A concrete resource has nothing to complete.
                    None if registry.resources.contains_key(uri) => {
                        Box::pin(async { Ok(Default::default()) })
                    }
                    None => {
                        return Err(McpError::invalid_params(format!(
                            "Unknown resource template: {uri}"
                        )));
                    }
                }
            }
        };
        let completion = AssertUnwindSafe(completing)
            .catch_unwind()
            .await
            .map_err(|_| McpError::internal("Internal error"))??;
        Ok(CompleteResult {
            completion,
            ..CompleteResult::default()
        })
    }
}

/// After such a handler: a returned state must verify under the request's binding, and every
/// input request must be one the client declared it can answer.
fn finish<T>(
    outcome: &Outcome<T>,
    state: Option<&StateContext>,
    caps: &mcp_core::protocol::ClientCapabilities,
) -> Result<(), McpError> {
    if let Some(state) = state {
        check_outgoing(outcome, &state.signer, &state.binding)?;
    }
    check_input_requests(outcome, caps)
}

/// The route that reads a URI.
enum ReadRoute<'a> {
    Static(&'a crate::ResourceRoute),
    Template(Arc<crate::ResourceTemplateRoute>),
}
