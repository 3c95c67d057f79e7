//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): `skills/list`,
//! `skills/get` and `resources/directory/read`, and the skill entry both lists carry.
//!
//! A skill is a folder of files, minimally a `SKILL.md`; each file is an ordinary resource
//! (`skill://<skill-path>/<file-path>`) read with `resources/read`. An entry carries the
//! `SKILL.md` frontmatter verbatim and a manifest of every file with its SHA-256 digest and
//! size, which a client verifies what it reads against (see [`crate::skills`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{CacheScope, Meta, Resource, ResultType};

/// The extension's identifier, under which a server declares it in `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory resource (a skill's root and each folder in it).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The extension's methods.
pub mod skill_methods {
    /// Enumerates the skills a server serves (paginated).
    pub const LIST: &str = "skills/list";
    /// The entry of one skill, named by the URI of its `SKILL.md`.
    pub const GET: &str = "skills/get";
    /// The direct children of a directory resource (behind `directoryRead: true`).
    pub const DIRECTORY_READ: &str = "resources/directory/read";
}

/// One file of a skill, with the digest and size of its raw bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of the file's bytes.
    pub digest: String,
    /// The file's length in bytes.
    pub size: u64,
}

impl SkillResource {
    /// The manifest entry of a file at `uri` with these bytes.
    ///
    /// ```
    /// use typemcp_core::protocol::SkillResource;
    /// let file = SkillResource::of("skill://a/SKILL.md", b"");
    /// assert_eq!(file.size, 0);
    /// assert!(file.digest.starts_with("sha256:e3b0c442"));
    /// ```
    pub fn of(uri: impl Into<String>, bytes: &[u8]) -> Self {
        Self {
            uri: uri.into(),
            digest: crate::skills::digest(bytes),
            size: bytes.len() as u64,
        }
    }
}

/// A skill's files: the complete manifest, or `"dynamic"` when the content is generated and
/// no stable digests can be given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// Every file of the skill, `SKILL.md` included, each once.
    Files(Vec<SkillResource>),
    /// Generated content: nothing to verify against.
    Dynamic(Dynamic),
}

impl Default for SkillResources {
    fn default() -> Self {
        Self::Files(Vec::new())
    }
}

impl SkillResources {
    /// The manifest, unless the skill is dynamic.
    pub fn files(&self) -> Option<&[SkillResource]> {
        match self {
            Self::Files(files) => Some(files),
            Self::Dynamic(_) => None,
        }
    }
}

/// The string `"dynamic"`, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// The entry of one skill, as `skills/list` and `skills/get` carry it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` frontmatter, verbatim (`name` and `description` always among it).
    pub frontmatter: Map<String, Value>,
    /// The skill's files.
    pub resources: SkillResources,
}

impl Skill {
    /// An entry.
    pub fn new(
        uri: impl Into<String>,
        frontmatter: Map<String, Value>,
        resources: SkillResources,
    ) -> Self {
        Self {
            uri: uri.into(),
            frontmatter,
            resources,
        }
    }

    /// The frontmatter's `name`.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The frontmatter's `description`.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }
}

/// The result of `skills/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// The entries of this page.
    pub skills: Vec<Skill>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds (absent on 2025-11-25, read as 0).
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse it.
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The params of `skills/get` (without `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

impl GetSkillParams {
    /// The params naming the skill at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self { uri: uri.into() }
    }
}

/// The result of `skills/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// The entry.
    pub skill: Skill,
    /// Freshness in milliseconds (absent on 2025-11-25, read as 0).
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse it.
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The params of `resources/directory/read` (without `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadDirectoryParams {
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// The page to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

impl ReadDirectoryParams {
    /// The params reading the first page of the directory at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            cursor: None,
        }
    }
}

/// The result of `resources/directory/read`: the directory's direct children, files with
/// their resource metadata and folders as directory resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadDirectoryResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// The children of this page.
    pub resources: Vec<Resource>,
    /// Cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds: not in the extension's text, but the TypeScript SDK's
    /// client refuses a 2026-07-28 result without it, as for `resources/list` (absent on
    /// 2025-11-25, read as 0).
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse it (with `ttlMs`).
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_are_a_manifest_or_the_word_dynamic() {
        let dynamic: SkillResources = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(dynamic.files(), None);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        let files: SkillResources = serde_json::from_value(
            json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 1}]),
        )
        .unwrap();
        assert_eq!(files.files().map(<[_]>::len), Some(1));
        assert!(serde_json::from_value::<SkillResources>(json!("static")).is_err());
        assert!(serde_json::from_value::<SkillResources>(json!(null)).is_err());
    }

    #[test]
    fn an_entry_without_resources_is_refused() {
        let entry = json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}});
        assert!(serde_json::from_value::<Skill>(entry).is_err());
    }
}
