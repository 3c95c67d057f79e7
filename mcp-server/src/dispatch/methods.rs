//! The methods a server answers: discovery, listing, calling tools, getting prompts,
//! reading resources and completing arguments.

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde::Deserialize;
use serde_json::Value;
use typemcp_core::McpError;
use typemcp_core::protocol::{
    CallToolParams, CompleteParams, CompleteResult, CompletionReference, DiscoverResult,
    GetPromptResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, Outcome, PaginatedParams, ProtocolVersion, ReadResourceParams,
    ReadResourceResult, ServerCapabilities, TASKS_EXTENSION,
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

use typemcp_core::jsonrpc::Params;

/// A list method's result: the page of `items` the params' cursor names, under `field`, with
/// the next cursor and the list caching hints.
macro_rules! listed {
    ($server:expr, $params:expr, $result:ty, $field:ident, $items:expr) => {{
        let params: PaginatedParams = parse_params(&$params)?;
        let (items, next_cursor) =
            page($items, params.cursor.as_deref(), $server.config().page_size)?;
        let cache = $server.config().list_cache;
        let mut result = <$result>::default();
        result.$field = items;
        result.next_cursor = next_cursor;
        result.ttl_ms = cache.ttl_ms();
        result.cache_scope = cache.scope();
        Ok(result)
    }};
}

/// The params of `tools/call` and `prompts/get` as the server reads them: the name, the
/// `arguments` kept as the client's text (the handler reads them straight into its own
/// types), and the members of a multi-round retry. Checked as `CallToolParams` and
/// `GetPromptParams` are.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Call<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Params>,
    /// Kept raw, `null` included: the guard refuses what is not an object.
    #[serde(default, deserialize_with = "present")]
    input_responses: Option<Value>,
    #[serde(default)]
    request_state: Option<String>,
}

impl Call<'_> {
    /// What the first round carries.
    fn rounds(self) -> Rounds {
        Rounds::new(
            self.arguments.unwrap_or_default(),
            self.input_responses,
            self.request_state,
        )
    }
}

/// A member that is present, `null` included, reads as `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Server {
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
        listed!(
            self,
            params,
            ListToolsResult,
            tools,
            registry.tools.values().map(|r| era.listed(r.tool()))
        )
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
        let call: Call<'_> = parse_params(&params)?;
        let registry = self.snapshot();
        let route = registry
            .tools
            .get(&*call.name)
            .ok_or_else(|| McpError::invalid_params(format!("Unknown tool: {}", call.name)))?;
        let declared = era.runs_tasks()
            && ctx
                .client_capabilities()
                .declares_extension(TASKS_EXTENSION);
        match route.task_support() {
            TaskSupport::Required if !declared => return Err(tasks_required()),
            TaskSupport::Optional | TaskSupport::Required if declared => {
                // A task stores its call: read as the protocol type.
                let params: CallToolParams = parse_params(&params)?;
                return match self.start_task(ctx, route, params).await? {
                    Called::Now(outcome) => era.spell(self, id, outcome),
                    Called::Task(task) => era.spell(self, id, task),
                };
            }
            _ => {}
        }
        let rounds = call.rounds();
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
        listed!(
            self,
            params,
            ListPromptsResult,
            prompts,
            registry.prompts.values().map(|r| r.prompt().clone())
        )
    }

    /// `prompts/get`, as the era fulfils it.
    pub(super) async fn get_prompt(
        &self,
        era: &Era,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<Outcome<GetPromptResult>, McpError> {
        let call: Call<'_> = parse_params(&params)?;
        let registry = self.snapshot();
        let route = registry
            .prompts
            .get(&*call.name)
            .ok_or_else(|| McpError::invalid_params(format!("Unknown prompt: {}", call.name)))?;
        let rounds = call.rounds();
        let round = PromptRound {
            server: self,
            route,
        };
        era.fulfil(ctx, rounds, &round).await
    }

    pub(super) fn list_resources(&self, params: Params) -> Result<ListResourcesResult, McpError> {
        let registry = self.snapshot();
        listed!(
            self,
            params,
            ListResourcesResult,
            resources,
            registry
                .resources
                .values()
                .map(|r| r.resource().clone())
                .chain(registry.skills.manifests().iter().cloned())
                .collect::<Vec<_>>()
                .into_iter()
        )
    }

    pub(super) fn list_resource_templates(
        &self,
        params: Params,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let registry = self.snapshot();
        listed!(
            self,
            params,
            ListResourceTemplatesResult,
            resource_templates,
            registry
                .templates
                .iter()
                .map(|r| r.resource_template().clone())
        )
    }

    /// `resources/read`, as the era fulfils it.
    pub(super) async fn read_resource(
        &self,
        era: &Era,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let params: ReadResourceParams = parse_params(&params)?;
        let registry = self.snapshot();
        // The route first: an unknown URI is "not found" whatever state came with it.
        let (route, uri_params) = if let Some(route) = registry.resources.get(&params.uri) {
            (ReadRoute::Static(route), Vec::new())
        } else if let Some(contents) = registry.skills.read(&params.uri) {
            // A skill's file: its bytes as listed, nothing to ask.
            let cache = self.config().read_cache;
            let mut result = ReadResourceResult::new(vec![contents]);
            result.ttl_ms = cache.ttl_ms();
            result.cache_scope = cache.scope();
            return Ok(Outcome::Complete(result));
        } else if let Some((route, vars)) = registry.match_template(&params.uri) {
            (ReadRoute::Template(route), vars)
        } else {
            return Err(McpError::resource_not_found(&params.uri));
        };
        let rounds = Rounds::new(
            Params::default(),
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
        let params: CompleteParams = parse_params(&params)?;
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
