//! What a server refuses to be built with, or a running server to add: [`BuildError`].

/// Why a server could not be built, or a route could not be added to a running one: a
/// configuration mistake, found once at start-up instead of failing every call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools share a name.
    #[error("duplicate tool name {0:?}")]
    DuplicateTool(String),
    /// Two prompts share a name.
    #[error("duplicate prompt name {0:?}")]
    DuplicatePrompt(String),
    /// Two resources share a URI, or two templates share a template.
    #[error("duplicate resource {0:?}")]
    DuplicateResource(String),
    /// A resource template is malformed.
    #[error("resource template {template:?} is malformed: {source}")]
    InvalidUriTemplate {
        /// The template as written.
        template: String,
        /// What is wrong with it.
        source: typemcp_core::uri_template::UriTemplateError,
    },
    /// No request-state key could be generated.
    #[error("request-state signer: {0}")]
    StateKey(#[from] typemcp_core::state::KeyError),
    /// A tool's schema is unusable.
    #[error("{0}")]
    InvalidSchema(String),
    /// A tool's `x-mcp-header` annotation breaks the rules of SEP-2243 (clients would drop
    /// the tool from `tools/list`): see [`ToolRoute::input_schema`](crate::ToolRoute::input_schema).
    #[error("tool {tool:?} mirrors property {property:?} into a header it cannot have: {reason}")]
    InvalidParamHeader {
        /// The tool.
        tool: String,
        /// The annotated property (`region`, `location.region`), or the JSON pointer of a
        /// schema that is not a property reached through `properties` alone.
        property: String,
        /// The rule it breaks.
        reason: String,
    },
    /// A skill cannot be served (the skills extension): its `SKILL.md` is missing or has
    /// no frontmatter, the frontmatter's name is not its folder's, two skills share a name,
    /// a file lies outside its folder (through `..` or a symbolic link), or the skill is
    /// over the extension's limits (512 files, 16 MiB).
    #[error("skill file {file}: {reason}")]
    InvalidSkill {
        /// The file at fault: its path on disk, or its `skill://` URI for a skill built in code.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A handler takes `State<T>`, and no `T` was registered.
    #[error(
        "{handler} takes `State<{state}>`, but no `{state}` was registered with `ServerBuilder::state`"
    )]
    MissingState {
        /// The handler, as `tool "name"`, `prompt "name"` or `resource "uri"`.
        handler: String,
        /// The state's type.
        state: &'static str,
    },
    /// A handler takes `Round<S>` (or another extractor that signs `requestState`) on a server
    /// built without a request-state signer.
    #[error(
        "{handler} takes `{extractor}`, which needs a request-state signer, but the server was built with `without_request_state_signer()`"
    )]
    MissingSigner {
        /// The handler, as `tool "name"`, `prompt "name"` or `resource "uri"`.
        handler: String,
        /// The extractor's type.
        extractor: &'static str,
    },
}
