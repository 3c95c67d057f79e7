//! The payloads of MCP 2026-07-28: requests, results and notifications a server handles.
//!
//! Every result type carries `resultType` (always set on the wire); the cacheable ones
//! (`server/discover`, the four `*/list` methods and `resources/read`) also carry
//! `ttlMs` and `cacheScope`. Field names follow `schema/2026-07-28/schema.ts`.

mod capabilities;
mod completion;
mod content;
mod discover;
mod elicitation;
mod implementation;
mod input_required;
mod legacy;
mod legacy_requests;
mod logging;
mod meta;
mod notifications;
mod pagination;
pub mod param_headers;
mod prompts;
mod resources;
mod result;
mod roots;
mod sampling;
mod skills;
mod subscriptions;
mod tasks;
mod tools;
mod version;

pub use capabilities::{
    ClientCapabilities, CompletionsCapability, ElicitationCapability, LoggingCapability,
    PromptsCapability, ResourcesCapability, RootsCapability, SamplingCapability,
    ServerCapabilities, ToolsCapability,
};
pub use completion::{
    CompleteArgument, CompleteContext, CompleteParams, CompleteResult, Completion,
    CompletionReference,
};
pub use content::{Annotations, ContentBlock, ResourceContents, Role};
pub use discover::DiscoverResult;
pub use elicitation::{
    ArrayType, BooleanSchema, BooleanType, ElicitAction, ElicitRequestParams, ElicitResult,
    EnumOption, FormMode, LegacyTitledEnumSchema, NumberSchema, NumberType, ObjectType,
    PrimitiveSchemaDefinition, RequestedSchema, StringFormat, StringSchema, StringType,
    TitledItems, TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema, UrlMode,
};
pub use implementation::{Icon, IconTheme, Implementation};
pub use input_required::{InputRequest, InputRequests, InputRequiredResult, Outcome};
pub use legacy::{
    InitializeParams, InitializeResult, LegacyVersion, SetLevelParams, SubscribeParams,
    legacy_methods, new_session_id,
};
pub use legacy_requests::{PushedRequest, Unspellable, legacy_push_request};
pub use logging::{LoggingLevel, LoggingMessageParams};
pub use meta::{Meta, ProgressToken, RequestMeta, meta_keys};
pub use notifications::{
    CancelledParams, ListChangedParams, ProgressParams, ResourceUpdatedParams, methods,
};
pub use pagination::PaginatedParams;
pub use prompts::{
    GetPromptParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage,
};
pub use resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceParams, ReadResourceResult,
    Resource, ResourceTemplate,
};
pub use result::{CacheScope, EmptyResult, HasMeta, ResultType};
pub use roots::{ListRootsResult, Root};
pub use sampling::{
    CreateMessageParams, CreateMessageResult, IncludeContext, ModelHint, ModelPreferences,
    SamplingMessage,
};
pub use skills::{
    DIRECTORY_MIME_TYPE, Dynamic, GetSkillParams, GetSkillResult, ListSkillsResult,
    ReadDirectoryParams, ReadDirectoryResult, SKILLS_EXTENSION, Skill, SkillResource,
    SkillResources, skill_methods,
};
pub use subscriptions::{
    ListenParams, SubscriptionAcknowledgedParams, SubscriptionFilter, SubscriptionsListenResult,
};
pub use tasks::{
    CreateTaskResult, DetailedTask, TASKS_EXTENSION, Task, TaskDetail, TaskIdParams, TaskStatus,
    UpdateTaskParams, task_methods,
};
pub use tools::{CallToolParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations};
pub use version::ProtocolVersion;
