//! The methods a server answers: discovery, listing, calling tools, getting prompts,
//! reading resources and completing arguments.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::{
    CallToolParams, CompleteParams, CompleteResult, CompletionReference, DiscoverResult,
    GetPromptParams, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Outcome, PaginatedParams, ProtocolVersion,
    ReadResourceParams, ReadResourceResult, ServerCapabilities, TASKS_EXTENSION,
};

use std::sync::Arc;

use bytes::Bytes;
use typemcp_core::RequestId;

use super::era::Era;
use super::guard::{Rounds, Target};
use super::page::page;
use super::parse_params;
use super::rounds::{PromptRound, ResourceRound, ToolRound};
use super::tasks::{Called, tasks_required};
use crate::registry::{CompletionRequest, OutputEra};
use crate::tasks::TaskSupport;
use crate::{RequestContext, Server};

type Params = Map<String, Value>;

impl Server {
    /// One page of a list, with the list caching hints.
    fn list_page<T: Clone>(
        &self,
        params: Params,
        items: impl ExactSizeIterator<Item = T>,
    ) -> Result<ListPage<T>, McpError> {
        let params: PaginatedParams = parse_params(params)?;
        let (items, next_cursor) = page(items, params.cursor.as_deref(), self.config().page_size)?;
        let cache = self.config().list_cache;
        Ok(ListPage {
            items,
            next_cursor,
            ttl_ms: cache.ttl_ms(),
            cache_scope: cache.scope(),
        })
    }

    pub(super) fn discover(&self, capabilities: &ServerCapabilities) -> DiscoverResult {
        let cache = self.config().list_cache;
        let mut result = DiscoverResult::default();
        result.supported_versions = ProtocolVersion::SUPPORTED
            .iter()
            .map(|v| (*v).to_owned())
            .collect();
        result.capabilities = capabilities.clone();
        result.instructions = self.instructions().map(str::to_owned);
        result.ttl_ms = cache.ttl_ms();
        result.cache_scope = cache.scope();
        result
    }

    /// `tools/list`, each tool as `era` lists it (see [`OutputEra::listed`]).
    pub(super) fn list_tools(
        &self,
        params: Params,
        era: OutputEra,
    ) -> Result<ListToolsResult, McpError> {
        let registry = self.snapshot();
        let page = self.list_page(
            params,
            registry.tools.values().map(|r| era.listed(r.tool())),
        )?;
        let mut result = ListToolsResult::default();
        result.tools = page.fill(
            &mut result.next_cursor,
            &mut result.ttl_ms,
            &mut result.cache_scope,
        );
        Ok(result)
    }

    /// `tools/call`: a task where the era runs them and the tool and client agree, else the
    /// tool's outcome as the era fulfils it.
    pub(super) async fn call_tool(
        &self,
        era: &Era,
        id: &RequestId,
        ctx: RequestContext,
        params: Params,
    ) -> Result<Bytes, McpError> {
        let params: CallToolParams = parse_params(params)?;
        let registry = self.snapshot();
        let route = registry
            .tools
            .get(&params.name)
            .ok_or_else(|| McpError::invalid_params(format!("Unknown tool: {}", params.name)))?;
        let declared = era.runs_tasks()
            && ctx
                .client_capabilities()
                .declares_extension(TASKS_EXTENSION);
        match route.task_support() {
            TaskSupport::Required if !declared => return Err(tasks_required()),
            TaskSupport::Optional | TaskSupport::Required if declared => {
                return match self.start_task(ctx, route, params).await? {
                    Called::Now(outcome) => era.spell(self, id, outcome),
                    Called::Task(task) => era.spell(self, id, task),
                };
            }
            _ => {}
        }
        let rounds = Rounds::new(
            Value::Object(params.arguments.unwrap_or_default()),
            params.input_responses,
            params.request_state,
        );
        let round = ToolRound {
            server: self,
            route,
            output: era.output(),
        };
        let outcome = era.fulfil(&ctx, rounds, &round).await?;
        era.spell(self, id, outcome)
    }

    pub(super) fn list_prompts(&self, params: Params) -> Result<ListPromptsResult, McpError> {
        let registry = self.snapshot();
        let page = self.list_page(
            params,
            registry.prompts.values().map(|r| r.prompt().clone()),
        )?;
        let mut result = ListPromptsResult::default();
        result.prompts = page.fill(
            &mut result.next_cursor,
            &mut result.ttl_ms,
            &mut result.cache_scope,
        );
        Ok(result)
    }

    /// `prompts/get`, as the era fulfils it.
    pub(super) async fn get_prompt(
        &self,
        era: &Era,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<Outcome<GetPromptResult>, McpError> {
        let params: GetPromptParams = parse_params(params)?;
        let registry = self.snapshot();
        let route = registry
            .prompts
            .get(&params.name)
            .ok_or_else(|| McpError::invalid_params(format!("Unknown prompt: {}", params.name)))?;
        let rounds = Rounds::new(
            Value::Object(params.arguments.unwrap_or_default()),
            params.input_responses,
            params.request_state,
        );
        let round = PromptRound {
            server: self,
            route,
        };
        era.fulfil(ctx, rounds, &round).await
    }

    pub(super) fn list_resources(&self, params: Params) -> Result<ListResourcesResult, McpError> {
        let registry = self.snapshot();
        let page = self.list_page(
            params,
            registry.resources.values().map(|r| r.resource().clone()),
        )?;
        let mut result = ListResourcesResult::default();
        result.resources = page.fill(
            &mut result.next_cursor,
            &mut result.ttl_ms,
            &mut result.cache_scope,
        );
        Ok(result)
    }

    pub(super) fn list_resource_templates(
        &self,
        params: Params,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let registry = self.snapshot();
        let templates = registry
            .templates
            .iter()
            .map(|r| r.resource_template().clone());
        let page = self.list_page(params, templates)?;
        let mut result = ListResourceTemplatesResult::default();
        result.resource_templates = page.fill(
            &mut result.next_cursor,
            &mut result.ttl_ms,
            &mut result.cache_scope,
        );
        Ok(result)
    }

    /// `resources/read`, as the era fulfils it.
    pub(super) async fn read_resource(
        &self,
        era: &Era,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let params: ReadResourceParams = parse_params(params)?;
        let registry = self.snapshot();
        // The route first: an unknown URI is "not found" whatever state came with it.
        let (route, uri_params) = if let Some(route) = registry.resources.get(&params.uri) {
            (ReadRoute::Static(route), Vec::new())
        } else if let Some((route, vars)) = registry.match_template(&params.uri) {
            (ReadRoute::Template(route), vars)
        } else {
            return Err(McpError::resource_not_found(&params.uri));
        };
        let rounds = Rounds::new(
            Value::Object(Map::new()),
            params.input_responses,
            params.request_state,
        );
        let uri = params.uri.as_str();
        let requirements = match &route {
            ReadRoute::Static(route) => route.requirements(),
            ReadRoute::Template(route) => route.requirements(),
        };
        let round = ResourceRound {
            server: self,
            target: Target::new(uri, requirements),
            route,
            uri_params,
        };
        era.fulfil(ctx, rounds, &round).await
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
            _ => {
                return Err(McpError::invalid_params(
                    "Unsupported completion reference".to_owned(),
                ));
            }
        };
        let completion = AssertUnwindSafe(completing)
            .catch_unwind()
            .await
            .map_err(|_| internal_error!("a completion handler panicked"))??;
        let mut result = CompleteResult::default();
        result.completion = completion;
        Ok(result)
    }
}

/// The route that reads a URI.
pub(super) enum ReadRoute<'a> {
    Static(&'a crate::ResourceRoute),
    Template(Arc<crate::ResourceTemplateRoute>),
}

/// One page of a list result.
struct ListPage<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
    ttl_ms: u64,
    cache_scope: typemcp_core::protocol::CacheScope,
}

impl<T> ListPage<T> {
    /// Writes the page's cursor and caching hints into a list result's fields, and returns
    /// the items for its list field.
    fn fill(
        self,
        next_cursor: &mut Option<String>,
        ttl_ms: &mut u64,
        cache_scope: &mut typemcp_core::protocol::CacheScope,
    ) -> Vec<T> {
        *next_cursor = self.next_cursor;
        *ttl_ms = self.ttl_ms;
        *cache_scope = self.cache_scope;
        self.items
    }
}
