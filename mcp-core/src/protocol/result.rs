//! What every result shares: `resultType`, and the caching hints of cacheable results.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::Meta;

/// The `resultType` discriminator: `"complete"`, `"input_required"`, or an extension's value.
///
/// ```
/// use typemcp_core::protocol::ResultType;
/// assert_eq!(serde_json::to_string(&ResultType::COMPLETE).unwrap(), "\"complete\"");
/// assert_eq!(ResultType::default(), ResultType::COMPLETE);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResultType(pub Cow<'static, str>);

impl ResultType {
    /// The request is finished and this is its result.
    pub const COMPLETE: Self = Self(Cow::Borrowed("complete"));
    /// The server needs input from the client before it can finish (MRTR).
    pub const INPUT_REQUIRED: Self = Self(Cow::Borrowed("input_required"));
}

impl Default for ResultType {
    /// A result with no `resultType` is complete (legacy servers omit it).
    fn default() -> Self {
        Self::COMPLETE
    }
}

/// Who may reuse a cached result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: shared caches may serve it to any caller.
    #[default]
    Public,
    /// Reuse only within the same authorization context.
    Private,
}

/// A result with nothing in it but `resultType` (and `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Always `complete`.
    #[serde(default)]
    pub result_type: ResultType,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Results whose `_meta` the server can fill (with `io.modelcontextprotocol/serverInfo`).
pub trait HasMeta {
    /// The result's `_meta`, created empty when absent.
    fn meta_mut(&mut self) -> &mut Meta;

    /// Takes the result's `_meta` out (leaving none), so that a caller can write it beside
    /// the result's other fields with entries of its own.
    fn take_meta(&mut self) -> Option<Meta>;
}

macro_rules! has_meta {
    ($($ty:ty),* $(,)?) => {$(
        impl HasMeta for $ty {
            fn meta_mut(&mut self) -> &mut Meta {
                self.meta.get_or_insert_with(Meta::new)
            }

            fn take_meta(&mut self) -> Option<Meta> {
                self.meta.take()
            }
        }
    )*};
}

has_meta!(
    EmptyResult,
    super::DiscoverResult,
    super::ListToolsResult,
    super::CallToolResult,
    super::ListPromptsResult,
    super::GetPromptResult,
    super::ListResourcesResult,
    super::ListResourceTemplatesResult,
    super::ReadResourceResult,
    super::CompleteResult,
    super::InputRequiredResult,
    super::ListSkillsResult,
    super::GetSkillResult,
    super::ReadDirectoryResult,
);

impl HasMeta for super::SubscriptionsListenResult {
    fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }

    fn take_meta(&mut self) -> Option<Meta> {
        Some(std::mem::take(&mut self.meta))
    }
}

impl<T: HasMeta> HasMeta for super::Outcome<T> {
    fn meta_mut(&mut self) -> &mut Meta {
        match self {
            Self::Complete(result) => result.meta_mut(),
            Self::InputRequired(result) => result.meta_mut(),
        }
    }

    fn take_meta(&mut self) -> Option<Meta> {
        match self {
            Self::Complete(result) => result.take_meta(),
            Self::InputRequired(result) => result.take_meta(),
        }
    }
}
