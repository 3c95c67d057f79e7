//! The skills extension's methods (SEP-2640): `skills/list`, `skills/get` and
//! `resources/directory/read`, over the skills of the registry's snapshot. The skills'
//! files themselves are read through `resources/read` (see `methods`).

use typemcp_core::McpError;
use typemcp_core::protocol::{
    GetSkillParams, GetSkillResult, ListSkillsResult, PaginatedParams, ReadDirectoryParams,
    ReadDirectoryResult,
};

use super::page::page;
use super::parse_params;
use crate::Server;

use typemcp_core::jsonrpc::Params;

impl Server {
    /// `skills/list`: every entry, paginated as the other lists are (an entry is never
    /// split), with the list caching hints.
    pub(super) fn list_skills(&self, params: Params) -> Result<ListSkillsResult, McpError> {
        let params: PaginatedParams = parse_params(&params)?;
        let registry = self.snapshot();
        let config = self.config();
        let (skills, next_cursor) = page(
            registry.skills.entries().iter().cloned(),
            params.cursor.as_deref(),
            config.page_size,
        )?;
        let mut result = ListSkillsResult::default();
        result.skills = skills;
        result.next_cursor = next_cursor;
        result.ttl_ms = config.list_cache.ttl_ms();
        result.cache_scope = config.list_cache.scope();
        Ok(result)
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`; `-32602` for any
    /// other URI. Cached as a read is.
    pub(super) fn get_skill(&self, params: Params) -> Result<GetSkillResult, McpError> {
        let params: GetSkillParams = parse_params(&params)?;
        let registry = self.snapshot();
        let skill = registry.skills.get(&params.uri).ok_or_else(|| {
            McpError::invalid_params(format!("No skill is served at {}", params.uri))
        })?;
        let cache = self.config().read_cache;
        let mut result = GetSkillResult::default();
        result.skill = skill.clone();
        result.ttl_ms = cache.ttl_ms();
        result.cache_scope = cache.scope();
        Ok(result)
    }

    /// `resources/directory/read`: the direct children of a skill's folder (its root or any
    /// folder in it, or a prefix above it); `-32602` for a URI that is no directory. Cached
    /// as a list is.
    pub(super) fn read_directory(&self, params: Params) -> Result<ReadDirectoryResult, McpError> {
        let params: ReadDirectoryParams = parse_params(&params)?;
        let registry = self.snapshot();
        let children = registry.skills.directory(&params.uri).ok_or_else(|| {
            McpError::invalid_params(format!("{} is not a directory resource", params.uri))
        })?;
        let (resources, next_cursor) = page(
            children.cloned(),
            params.cursor.as_deref(),
            self.config().page_size,
        )?;
        let cache = self.config().list_cache;
        let mut result = ReadDirectoryResult::default();
        result.resources = resources;
        result.next_cursor = next_cursor;
        result.ttl_ms = cache.ttl_ms();
        result.cache_scope = cache.scope();
        Ok(result)
    }
}
