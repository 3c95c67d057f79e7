//! Every official example of MCP 2026-07-28 against the `typemcp-core` wire types.
//!
//! The examples are the files of the specification repository, vendored unchanged under
//! `tests/spec/2026-07-28/examples/<TypeName>/<name>.json` (`tests/spec/README.md` names the
//! commit); [`examples`] loads them once, keyed `<TypeName>/<name>`. The folder name is a type
//! of `schema.ts`; [`readers`] maps it to the way our code reads that type (requests as the
//! server reads them: parsed by `parse_message`, `_meta` split off into a [`RequestMeta`]).
//! Every file is read and written back and must come back unchanged, except where
//! [`differences`] records the precise, intended difference (our type normalizes, or the
//! example is stale). [`probes`] pin what the typed values mean; [`composed_and_off_file_cases`]
//! covers what no single file shows.
//!
//! Coverage is checked both ways: a file whose folder has no reader fails with its name, and
//! so does a reader, difference or probe that matches no file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::any::type_name;
use std::collections::BTreeMap;
use std::panic::Location;
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use typemcp_core::jsonrpc::{
    ErrorResponse, IncomingMessage, Notification, ResultResponse, parse_message,
};
use typemcp_core::protocol::{
    CacheScope, CallToolParams, CallToolResult, CancelledParams, ClientCapabilities,
    CompleteParams, CompleteResult, CompletionReference, ContentBlock, CreateMessageParams,
    CreateMessageResult, DiscoverResult, ElicitAction, ElicitRequestParams, ElicitResult,
    GetPromptParams, GetPromptResult, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ListChangedParams, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListRootsResult, ListToolsResult, ListenParams, LoggingLevel,
    LoggingMessageParams, Meta, ModelPreferences, NumberType, Outcome, PaginatedParams,
    PrimitiveSchemaDefinition, ProgressParams, ProgressToken, ReadResourceParams,
    ReadResourceResult, RequestMeta, Resource, ResourceContents, ResourceUpdatedParams, ResultType,
    Root, SamplingMessage, ServerCapabilities, StringFormat, SubscriptionAcknowledgedParams,
    SubscriptionsListenResult, Tool, meta_keys,
};
use typemcp_core::{ErrorCode, McpError, RequestId};

// ---------------------------------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------------------------------

/// All example files, `<TypeName>/<name>` (without `.json`) to JSON, read once.
fn examples() -> &'static BTreeMap<String, Value> {
    static EXAMPLES: OnceLock<BTreeMap<String, Value>> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec/2026-07-28/examples");
        let entries = |dir: &Path| {
            std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
                .map(|entry| entry.unwrap())
        };
        let mut examples = BTreeMap::new();
        for folder in entries(&root) {
            for file in entries(&folder.path()) {
                let name = file.file_name().to_string_lossy().into_owned();
                let stem = name
                    .strip_suffix(".json")
                    .unwrap_or_else(|| panic!("{name}"));
                let key = format!("{}/{stem}", folder.file_name().to_string_lossy());
                let text = std::fs::read_to_string(file.path()).unwrap();
                let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{key}: {e}"));
                examples.insert(key, json);
            }
        }
        assert!(examples.len() > 100, "only {} examples", examples.len());
        examples
    })
}

/// The JSON of one example, by `<TypeName>/<name>`.
fn example(key: &str) -> &'static Value {
    examples()
        .get(key)
        .unwrap_or_else(|| panic!("no example {key}"))
}

/// The folder (type name) of an example key.
fn type_of(key: &str) -> &str {
    key.split_once('/').map_or(key, |(ty, _)| ty)
}

// ---------------------------------------------------------------------------------------------
// Readers: how our code reads each type, and what it writes back
// ---------------------------------------------------------------------------------------------

/// A wire type.
trait Wire: Serialize + DeserializeOwned + 'static {}
impl<T: Serialize + DeserializeOwned + 'static> Wire for T {}

/// Reads an example and returns what our types write back, or why it was refused.
type Reader = Box<dyn Fn(&Value) -> Result<Value, String>>;

fn decode<T: DeserializeOwned>(json: &Value) -> Result<T, String> {
    serde_json::from_value(json.clone())
        .map_err(|err| format!("cannot read as {}: {err}", type_name::<T>()))
}

fn encode<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serializable")
}

/// `Ok` when `cond` holds, else the message.
fn ensure(cond: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(message()) }
}

/// Read as `T`.
fn plain<T: Wire>() -> Reader {
    Box::new(|json| decode::<T>(json).map(|typed| encode(&typed)))
}

/// Request params as the server reads them: `_meta` as a [`RequestMeta`], the rest as `P`.
/// Every request example carries the same client `_meta` (apart from a progress token).
fn split_params<P: Wire>(params: &Value) -> Result<Value, String> {
    let mut rest = params
        .as_object()
        .cloned()
        .ok_or("params is not an object")?;
    let meta = rest
        .remove("_meta")
        .ok_or("a 2026-07-28 request carries _meta")?;
    let meta: RequestMeta = decode(&meta)?;
    ensure(
        meta.protocol_version == "2026-07-28"
            && meta.client_info == Some(Implementation::new("ExampleClient", "1.0.0"))
            && meta.client_capabilities == ClientCapabilities::default()
            && meta.log_level.is_none(),
        || format!("unexpected request _meta {meta:?}"),
    )?;
    let mut back = encode(&decode::<P>(&Value::Object(rest))?);
    let object = back
        .as_object_mut()
        .ok_or("params written as a non-object")?;
    object.insert("_meta".into(), encode(&meta));
    Ok(back)
}

/// `…RequestParams`.
fn params<P: Wire>() -> Reader {
    Box::new(split_params::<P>)
}

/// A request envelope, parsed as the server parses it.
fn request<P: Wire>(method: &'static str) -> Reader {
    Box::new(move |json| {
        let bytes = serde_json::to_vec(json).unwrap();
        let Ok(IncomingMessage::Request(request)) = parse_message(&bytes) else {
            return Err("not parsed as a request".into());
        };
        ensure(request.method == method, || {
            format!("method {}", request.method)
        })?;
        let params = split_params::<P>(&Value::Object(request.params.to_object()))?;
        Ok(json!({"jsonrpc": "2.0", "id": request.id, "method": method, "params": params}))
    })
}

/// A notification, as the server writes it (`Notification<P>`) and as it reads one.
fn notification<P: Wire>(method: &'static str) -> Reader {
    Box::new(move |json| {
        let typed: Notification<P> = decode(json)?;
        let back = encode(&typed);
        let bytes = serde_json::to_vec(json).unwrap();
        let Ok(IncomingMessage::Notification(incoming)) = parse_message(&bytes) else {
            return Err("not parsed as a notification".into());
        };
        let params = encode(&decode::<P>(&Value::Object(incoming.params.to_object()))?);
        ensure(
            typed.method == method && incoming.method == method && params == back["params"],
            || {
                format!(
                    "method {} / {}, params read as {params}",
                    typed.method, incoming.method
                )
            },
        )?;
        Ok(back)
    })
}

/// A JSON-RPC error response (`whole`) or a bare error object, with the given code.
fn error(code: ErrorCode, whole: bool) -> Reader {
    Box::new(move |json| {
        let error: McpError = decode(if whole { &json["error"] } else { json })?;
        ensure(error.code == code, || format!("{error:?}"))?;
        if whole {
            plain::<ErrorResponse>()(json)
        } else {
            Ok(encode(&error))
        }
    })
}

/// A result of `tools/call`, `prompts/get` or `resources/read`: also read through [`Outcome`],
/// as complete.
fn complete<T: Wire>() -> Reader {
    Box::new(|json| {
        let outcome: Outcome<T> = decode(json)?;
        ensure(matches!(outcome, Outcome::Complete(_)), || {
            "not complete".into()
        })?;
        let back = encode(&outcome);
        ensure(back == encode(&decode::<T>(json)?), || {
            "Outcome writes differently".into()
        })?;
        Ok(back)
    })
}

/// The response to such a method.
fn complete_response<T: Wire>() -> Reader {
    Box::new(|json| {
        let response: ResultResponse<Outcome<T>> = decode(json)?;
        let complete = matches!(response.result, Outcome::Complete(_));
        ensure(complete, || "not complete".into()).map(|()| encode(&response))
    })
}

/// An `InputRequiredResult`, also as the outcome of each of the three methods that return one.
fn input_required() -> Reader {
    fn through<T: Wire>(json: &Value) -> Result<(), String> {
        let outcome: Outcome<T> = decode(json)?;
        let what = || format!("as Outcome<{}>", type_name::<T>());
        ensure(matches!(outcome, Outcome::InputRequired(_)), what)?;
        ensure(&encode(&outcome) == json, what)
    }
    Box::new(|json| {
        through::<CallToolResult>(json)?;
        through::<GetPromptResult>(json)?;
        through::<ReadResourceResult>(json)?;
        plain::<InputRequiredResult>()(json)
    })
}

/// Input responses: each is exactly one of an elicitation or a sampling result.
fn input_responses() -> Reader {
    Box::new(|json| {
        let responses = json.as_object().ok_or("not an object")?;
        let mut back = Map::new();
        for (key, response) in responses {
            let elicit = decode::<ElicitResult>(response).map(|r| encode(&r));
            let sampled = decode::<CreateMessageResult>(response).map(|r| encode(&r));
            let read = match (elicit, sampled) {
                (Ok(read), Err(_)) | (Err(_), Ok(read)) => read,
                other => return Err(format!("{key}: {other:?}")),
            };
            back.insert(key.clone(), read);
        }
        Ok(Value::Object(back))
    })
}

/// A sampling content block: kept as raw JSON in a [`SamplingMessage`] (our [`ContentBlock`]
/// is the tool/prompt union, which has no `tool_use`/`tool_result`, as in schema.ts); the
/// nested `content` of a tool result is a [`ContentBlock`] array.
fn sampling_content(role: &'static str) -> Reader {
    Box::new(move |json| {
        if let Some(nested) = json.get("content") {
            let blocks = plain::<Vec<ContentBlock>>()(nested)?;
            ensure(&blocks == nested, || {
                format!("nested content written as {blocks}")
            })?;
        }
        let message = plain::<SamplingMessage>()(&json!({"role": role, "content": json}))?;
        Ok(message["content"].clone())
    })
}

/// Every example folder, and how it is read.
#[rustfmt::skip]
fn readers() -> BTreeMap<&'static str, Reader> {
    use PrimitiveSchemaDefinition as Field;
    use ResultResponse as Response;
    BTreeMap::from([
        // JSON-RPC errors.
        ("HeaderMismatchError", error(ErrorCode::HEADER_MISMATCH, true)),
        ("MissingRequiredClientCapabilityError",
            error(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, true)),
        ("UnsupportedProtocolVersionError", error(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, true)),
        ("InternalError", error(ErrorCode::INTERNAL_ERROR, false)),
        ("InvalidParamsError", error(ErrorCode::INVALID_PARAMS, false)),
        ("MethodNotFoundError", error(ErrorCode::METHOD_NOT_FOUND, false)),
        ("ParseError", error(ErrorCode::PARSE_ERROR, false)),
        // Requests and their params.
        ("CallToolRequest", request::<CallToolParams>("tools/call")),
        ("CompleteRequest", request::<CompleteParams>("completion/complete")),
        ("DiscoverRequest", request::<Map<String, Value>>("server/discover")),
        ("GetPromptRequest", request::<GetPromptParams>("prompts/get")),
        ("ListPromptsRequest", request::<PaginatedParams>("prompts/list")),
        ("ListResourceTemplatesRequest", request::<PaginatedParams>("resources/templates/list")),
        ("ListResourcesRequest", request::<PaginatedParams>("resources/list")),
        ("ListToolsRequest", request::<PaginatedParams>("tools/list")),
        ("ReadResourceRequest", request::<ReadResourceParams>("resources/read")),
        ("SubscriptionsListenRequest", request::<ListenParams>("subscriptions/listen")),
        ("CallToolRequestParams", params::<CallToolParams>()),
        ("CompleteRequestParams", params::<CompleteParams>()),
        ("GetPromptRequestParams", params::<GetPromptParams>()),
        ("PaginatedRequestParams", params::<PaginatedParams>()),
        // Results and their responses.
        ("CallToolResult", complete::<CallToolResult>()),
        ("GetPromptResult", complete::<GetPromptResult>()),
        ("ReadResourceResult", complete::<ReadResourceResult>()),
        ("CompleteResult", plain::<CompleteResult>()),
        ("DiscoverResult", plain::<DiscoverResult>()),
        ("ListPromptsResult", plain::<ListPromptsResult>()),
        ("ListResourceTemplatesResult", plain::<ListResourceTemplatesResult>()),
        ("ListResourcesResult", plain::<ListResourcesResult>()),
        ("ListToolsResult", plain::<ListToolsResult>()),
        ("SubscriptionsListenResult", plain::<SubscriptionsListenResult>()),
        ("CallToolResultResponse", complete_response::<CallToolResult>()),
        ("GetPromptResultResponse", complete_response::<GetPromptResult>()),
        ("ReadResourceResultResponse", complete_response::<ReadResourceResult>()),
        ("CompleteResultResponse", plain::<Response<CompleteResult>>()),
        ("DiscoverResultResponse", plain::<Response<DiscoverResult>>()),
        ("ListPromptsResultResponse", plain::<Response<ListPromptsResult>>()),
        ("ListResourceTemplatesResultResponse", plain::<Response<ListResourceTemplatesResult>>()),
        ("ListResourcesResultResponse", plain::<Response<ListResourcesResult>>()),
        ("ListToolsResultResponse", plain::<Response<ListToolsResult>>()),
        ("SubscriptionsListenResultResponse", plain::<Response<SubscriptionsListenResult>>()),
        // Notifications and their params.
        ("CancelledNotification", notification::<CancelledParams>("notifications/cancelled")),
        ("LoggingMessageNotification",
            notification::<LoggingMessageParams>("notifications/message")),
        ("ProgressNotification", notification::<ProgressParams>("notifications/progress")),
        ("PromptListChangedNotification",
            notification::<ListChangedParams>("notifications/prompts/list_changed")),
        ("ResourceListChangedNotification",
            notification::<ListChangedParams>("notifications/resources/list_changed")),
        ("ResourceUpdatedNotification",
            notification::<ResourceUpdatedParams>("notifications/resources/updated")),
        ("SubscriptionsAcknowledgedNotification",
            notification::<SubscriptionAcknowledgedParams>(
                "notifications/subscriptions/acknowledged")),
        ("ToolListChangedNotification",
            notification::<ListChangedParams>("notifications/tools/list_changed")),
        ("CancelledNotificationParams", plain::<CancelledParams>()),
        ("LoggingMessageNotificationParams", plain::<LoggingMessageParams>()),
        ("ProgressNotificationParams", plain::<ProgressParams>()),
        ("ResourceUpdatedNotificationParams", plain::<ResourceUpdatedParams>()),
        // Capabilities, tools, resources, content.
        ("ClientCapabilities", plain::<ClientCapabilities>()),
        ("ServerCapabilities", plain::<ServerCapabilities>()),
        ("Tool", plain::<Tool>()),
        ("Resource", plain::<Resource>()),
        ("AudioContent", plain::<ContentBlock>()),
        ("EmbeddedResource", plain::<ContentBlock>()),
        ("ImageContent", plain::<ContentBlock>()),
        ("ResourceLink", plain::<ContentBlock>()),
        ("TextContent", plain::<ContentBlock>()),
        ("BlobResourceContents", plain::<ResourceContents>()),
        ("TextResourceContents", plain::<ResourceContents>()),
        // Multi round-trip requests and elicitation.
        ("InputRequiredResult", input_required()),
        ("InputRequests", plain::<InputRequests>()),
        ("InputResponses", input_responses()),
        ("ElicitRequest", plain::<InputRequest>()),
        ("ElicitRequestFormParams", plain::<ElicitRequestParams>()),
        ("ElicitRequestURLParams", plain::<ElicitRequestParams>()),
        ("ElicitResult", plain::<ElicitResult>()),
        ("BooleanSchema", plain::<Field>()),
        ("NumberSchema", plain::<Field>()),
        ("StringSchema", plain::<Field>()),
        ("TitledMultiSelectEnumSchema", plain::<Field>()),
        ("TitledSingleSelectEnumSchema", plain::<Field>()),
        ("UntitledMultiSelectEnumSchema", plain::<Field>()),
        ("UntitledSingleSelectEnumSchema", plain::<Field>()),
        // Sampling and roots (deprecated, still on the wire as input requests and responses).
        ("CreateMessageRequest", plain::<InputRequest>()),
        ("CreateMessageRequestParams", plain::<CreateMessageParams>()),
        ("CreateMessageResult", plain::<CreateMessageResult>()),
        ("ModelPreferences", plain::<ModelPreferences>()),
        ("SamplingMessage", plain::<SamplingMessage>()),
        ("ToolResultContent", sampling_content("user")),
        ("ToolUseContent", sampling_content("assistant")),
        ("ListRootsRequest", plain::<InputRequest>()),
        ("ListRootsResult", plain::<ListRootsResult>()),
        ("Root", plain::<Root>()),
    ])
}

// ---------------------------------------------------------------------------------------------
// Intended differences
// ---------------------------------------------------------------------------------------------

/// How our reading of one example differs from "unchanged", on purpose.
enum Difference {
    /// Read, and written back with these members changed (`None`: dropped).
    Rewrites(Vec<(&'static str, Option<Value>)>),
}

#[rustfmt::skip]
fn differences() -> BTreeMap<&'static str, Difference> {
    use Difference::Rewrites;
    // `progress` and `total` are `f64`: the integers 50 and 100 come back as 50.0 and 100.0.
    // The same JSON number (schema.ts types them `number`), but `Value` tells them apart.
    let floats = |progress, total| {
        Rewrites(vec![(progress, Some(json!(50.0))), (total, Some(json!(100.0)))])
    };
    BTreeMap::from([
        ("ProgressNotification/progress-message", floats("/params/progress", "/params/total")),
        ("ProgressNotificationParams/progress-message", floats("/progress", "/total")),
        // Stale (spec notes §5.1 and §13.6): input requests carry no JSON-RPC `id`, so it is
        // ignored. `params` is optional for roots/list in schema.ts; we always write `{}`.
        ("ListRootsRequest/list-roots-request",
            Rewrites(vec![("/id", None), ("/params", Some(json!({})))])),
        // The example omits `ttlMs` and `cacheScope`, which schema.ts requires on every
        // ReadResourceResult (`extends CacheableResult`; the caching page says servers MUST
        // include both). We always write both; read, their absence (a 2025-11-25 server has
        // neither) means not to be reused: 0 ms, private.
        ("ReadResourceResultResponse/read-resource-result-response", Rewrites(
            vec![("/result/ttlMs", Some(json!(0))), ("/result/cacheScope", Some(json!("private")))],
        )),
    ])
}

/// `json` with the members at `changes` set (`None`: removed).
fn patched(json: &Value, changes: &[(&str, Option<Value>)]) -> Value {
    let mut json = json.clone();
    for (pointer, value) in changes {
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let object = json
            .pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .unwrap();
        match value {
            Some(value) => object.insert(key.to_owned(), value.clone()),
            None => object.remove(key),
        };
    }
    json
}

/// What reading `json` should write back, and what it did.
fn read_back(
    read: &Reader,
    json: &Value,
    difference: Option<&Difference>,
) -> Result<(Value, Value), String> {
    match difference {
        None => read(json).map(|back| (back, json.clone())),
        Some(Difference::Rewrites(changes)) => {
            let expected = patched(json, changes);
            ensure(&expected != json, || "an empty difference".into())?;
            read(json).map(|back| (back, expected))
        }
    }
}

#[test]
fn every_example_reads_and_writes_back() {
    let (readers, differences) = (readers(), differences());
    let mut failures = Vec::new();
    for (key, json) in examples() {
        let Some(read) = readers.get(type_of(key)) else {
            failures.push(format!("{key}: no reader for `{}`", type_of(key)));
            continue;
        };
        match read_back(read, json, differences.get(key.as_str())) {
            Ok((back, expected)) if back == expected => {}
            Ok((back, expected)) => {
                failures.push(format!("{key}: wrote\n{back:#}\nnot\n{expected:#}"))
            }
            Err(err) => failures.push(format!("{key}: {err}")),
        }
    }
    for ty in readers
        .keys()
        .filter(|ty| !examples().keys().any(|key| type_of(key) == **ty))
    {
        failures.push(format!("reader for `{ty}`, which has no example"));
    }
    for key in differences
        .keys()
        .filter(|key| !examples().contains_key(**key))
    {
        failures.push(format!("difference for {key}, which does not exist"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// Probes: what the typed values mean
// ---------------------------------------------------------------------------------------------

/// Reads a value as some type and tells whether a predicate holds.
type Check = Box<dyn Fn(&Value) -> Result<bool, String>>;

/// A predicate on the value at a JSON pointer in one example, read as some type.
struct Probe {
    /// `<TypeName>/<name>`, then the pointer (`""`: the whole file).
    at: (&'static str, &'static str),
    check: Check,
    line: &'static Location<'static>,
}

#[track_caller]
fn probe<T: Wire>(key: &'static str, pointer: &'static str, check: fn(T) -> bool) -> Probe {
    let check = Box::new(move |json: &Value| decode::<T>(json).map(check));
    Probe {
        at: (key, pointer),
        check,
        line: Location::caller(),
    }
}

/// `meta` holds the subscription id `listen-1`.
fn listen_1(meta: Option<&Meta>) -> bool {
    meta.is_some_and(|m| m[meta_keys::SUBSCRIPTION_ID] == "listen-1")
}

#[rustfmt::skip]
fn probes() -> Vec<Probe> {
    use PrimitiveSchemaDefinition as Field;
    const LISTEN: &str = "SubscriptionsListenRequest/listen-for-list-changes";
    let (header_mismatch, missing_capability, full_input_required) = (
        "HeaderMismatchError/header-mismatch",
        "MissingRequiredClientCapabilityError/missing-elicitation-capability",
        "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state",
    );
    vec![
        // Errors: our constructors build the specification's error objects.
        probe(header_mismatch, "/id", |id: RequestId| id == RequestId::Number(1)),
        probe(header_mismatch, "/error", |e: McpError| {
            let message = "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'";
            e == McpError::header_mismatch(message)
        }),
        probe("UnsupportedProtocolVersionError/unsupported-version", "/error", |e: McpError| {
            e == McpError::unsupported_protocol_version(&["2026-07-28", "2025-11-25"], "1900-01-01")
        }),
        // Only the free-text message differs.
        probe(missing_capability, "/error", |e: McpError| {
            let built = McpError::missing_client_capability(json!({"elicitation": {}}));
            (built.code, &built.data) == (e.code, &e.data)
        }),
        probe(missing_capability, "/error/data/requiredCapabilities",
            |c: ClientCapabilities| c.supports_elicitation_form()),
        probe("InvalidParamsError/unknown-tool", "",
            |e: McpError| e == McpError::invalid_params("Unknown tool: invalid_tool_name")),
        // server/discover.
        probe("DiscoverRequest/server-discover-request", "/id",
            |id: RequestId| id == RequestId::from("discover-1")),
        probe("DiscoverRequest/server-discover-request", "/params",
            |p: Map<String, Value>| p.keys().eq(["_meta"])),
        probe("DiscoverResult/server-capabilities-discovery", "", |r: DiscoverResult| {
            r.result_type == ResultType::COMPLETE
                && r.supported_versions == ["2026-07-28"]
                && r.capabilities.tools.is_some() && r.capabilities.resources.is_some()
                && (r.ttl_ms, r.cache_scope) == (3_600_000, CacheScope::Public)
                && r.meta.is_some_and(|m| {
                    let info = Implementation::new("ExampleServer", "1.0.0");
                    decode(&m[meta_keys::SERVER_INFO]) == Ok(info)
                })
        }),
        probe("DiscoverResultResponse/discover-result-response", "",
            |r: ResultResponse<DiscoverResult>| {
            r.id == RequestId::from("discover-1") && r.result.instructions.is_none()
        }),
        // Capabilities.
        probe("ClientCapabilities/elicitation-form-and-url-mode-support", "",
            |c: ClientCapabilities| {
            c.supports_elicitation_form() && c.supports_elicitation_url()
        }),
        probe("ClientCapabilities/elicitation-form-only-implicit", "", |c: ClientCapabilities| {
            c.supports_elicitation_form() && !c.supports_elicitation_url()
        }),
        probe("ClientCapabilities/extensions-ui-mime-types", "", |c: ClientCapabilities| {
            c.extensions.is_some_and(|e| e.contains_key("io.modelcontextprotocol/ui"))
        }),
        probe("ClientCapabilities/roots-minimum-baseline-support", "",
            |c: ClientCapabilities| c.supports_roots()),
        probe("ClientCapabilities/sampling-context-inclusion-support-deprecated", "",
            |c: ClientCapabilities| {
            c.supports_sampling() && c.sampling.is_some_and(|s| s.context.is_some())
        }),
        probe("ClientCapabilities/sampling-minimum-baseline-support", "",
            |c: ClientCapabilities| c.supports_sampling()),
        probe("ClientCapabilities/sampling-tool-use-support", "", |c: ClientCapabilities| {
            c.sampling.is_some_and(|s| s.tools.is_some())
        }),
        // Tools.
        probe("ListToolsRequest/list-tools-request", "/params",
            |p: PaginatedParams| p.cursor.is_none()),
        probe("PaginatedRequestParams/list-with-cursor", "",
            |p: PaginatedParams| p.cursor.as_deref() == Some("eyJwYWdlIjogMn0=")),
        probe("ListToolsResult/tools-list-with-cursor-and-ttl", "", |r: ListToolsResult| {
            r.tools[0].name == "get_weather"
                && r.next_cursor.as_deref() == Some("next-page-cursor")
                && (r.ttl_ms, r.cache_scope) == (300_000, CacheScope::Public)
        }),
        probe("ListToolsResult/tools-list-with-cursor-and-ttl", "/tools/0/icons/0",
            |i: typemcp_core::protocol::Icon| {
            (i.src.as_str(), i.mime_type.as_deref(), i.sizes, i.theme)
                == ("https://example.com/weather-icon.png", Some("image/png"),
                    Some(vec!["48x48".into()]), None)
        }),
        probe("ListToolsResultResponse/list-tools-result-response", "/result",
            |r: ListToolsResult| r.ttl_ms == 3_600_000),
        probe("Tool/tool-with-array-output-schema", "",
            |t: Tool| t.output_schema.is_some_and(|s| s["type"] == "array")),
        // The recommended no-parameter schema is what `Tool::new` produces.
        probe("Tool/with-no-parameters", "", |t: Tool| {
            t == Tool::new("get_current_time").with_description("Returns the current server time")
        }),
        probe("CallToolRequest/call-tool-request", "/id",
            |id: RequestId| id == RequestId::from("call-tool-example")),
        probe("CallToolRequest/call-tool-request", "/params", |p: CallToolParams| {
            p.name == "get_weather"
                && p.arguments.is_some_and(|a| a["location"] == "New York")
                && (p.input_responses, p.request_state) == (None, None)
        }),
        probe("CallToolRequestParams/get-weather-tool-call-params", "",
            |p: CallToolParams| p.name == "get_weather"),
        probe("CallToolRequestParams/get-weather-tool-call-params", "/_meta",
            |m: RequestMeta| m.progress_token.is_none()),
        probe("CallToolRequestParams/tool-call-params-with-progress-token", "",
            |p: CallToolParams| p.name == "build_simulation"),
        probe("CallToolRequestParams/tool-call-params-with-progress-token", "/_meta",
            |m: RequestMeta| {
            m.progress_token == Some(ProgressToken::String("oivaizmir".into()))
        }),
        probe("CallToolResult/invalid-tool-input-error", "", |r: CallToolResult| {
            let message = "Invalid departure date: must be in the future. Current date is 08/08/2025.";
            r == CallToolResult::error(message)
        }),
        probe("CallToolResult/result-with-array-structured-content", "", |r: CallToolResult| {
            r.structured_content.is_some_and(|s| s.is_array()) && r.is_error.is_none()
        }),
        probe("CallToolResult/result-with-structured-content", "", |r: CallToolResult| {
            r.structured_content.is_some_and(|s| s["humidity"] == 65)
        }),
        probe("CallToolResult/result-with-unstructured-text", "",
            |r: CallToolResult| r.is_error == Some(false)),
        probe("CallToolResultResponse/call-tool-result-response", "/result",
            |r: Outcome<CallToolResult>| {
            matches!(r, Outcome::Complete(r) if r.content.len() == 1)
        }),
        // Content blocks and resource contents.
        probe("TextContent/text-content", "",
            |b: ContentBlock| b == ContentBlock::text("Tool result text")),
        probe("ImageContent/image-png-content-with-annotations", "", |b: ContentBlock| {
            matches!(b, ContentBlock::Image { ref mime_type, annotations: Some(ref a), .. }
                if mime_type == "image/png" && a.priority == Some(0.9))
        }),
        probe("AudioContent/audio-wav-content", "", |b: ContentBlock| {
            let data = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";
            b == ContentBlock::audio(data, "audio/wav")
        }),
        probe("ResourceLink/file-resource-link", "", |b: ContentBlock| {
            matches!(b, ContentBlock::ResourceLink { ref uri, ref name, .. }
                if uri == "file:///project/src/main.rs" && name == "main.rs")
        }),
        probe("EmbeddedResource/embedded-file-resource-with-annotations", "", |b: ContentBlock| {
            matches!(b, ContentBlock::Resource {
                resource: ResourceContents::Text { .. }, annotations: Some(_), ..
            })
        }),
        probe("TextResourceContents/text-file-contents", "", |c: ResourceContents| {
            c == ResourceContents::text("file:///example.txt", "text/plain", "Resource content")
        }),
        probe("BlobResourceContents/image-file-contents", "",
            |c: ResourceContents| matches!(c, ResourceContents::Blob { .. })),
        // Prompts.
        probe("ListPromptsRequest/list-prompts-request", "/params",
            |p: PaginatedParams| p == PaginatedParams::default()),
        probe("ListPromptsResult/prompts-list-with-cursor-and-ttl", "", |r: ListPromptsResult| {
            r.prompts[0].arguments.as_ref().is_some_and(|a| a[0].required == Some(true))
        }),
        probe("GetPromptRequest/get-prompt-request", "/params",
            |p: GetPromptParams| p.name == "code_review"),
        probe("GetPromptRequestParams/get-code-review-prompt", "", |p: GetPromptParams| {
            p.arguments.is_some_and(|a| a["code"] == "def hello():\n    print('world')")
        }),
        probe("GetPromptResult/code-review-prompt", "", |r: GetPromptResult| {
            let text = "Please review this Python code:\ndef hello():\n    print('world')";
            r.messages[0].content.as_text() == Some(text)
        }),
        // Resources.
        probe("ListResourcesRequest/list-resources-request", "/params",
            |p: PaginatedParams| p.cursor.is_none()),
        probe("ListResourceTemplatesRequest/list-resource-templates-request", "/params",
            |p: PaginatedParams| p.cursor.is_none()),
        probe("ListResourcesResult/resources-list-with-cursor-and-ttl", "",
            |r: ListResourcesResult| r.cache_scope == CacheScope::Private),
        probe("Resource/file-resource-with-annotations", "", |r: Resource| {
            r.annotations.and_then(|a| a.last_modified).as_deref() == Some("2025-01-12T15:00:58Z")
        }),
        probe("ListResourceTemplatesResult/resource-templates-list-with-cursor-and-ttl", "",
            |r: ListResourceTemplatesResult| {
            r.resource_templates[0].uri_template == "file:///{path}"
        }),
        probe("ReadResourceRequest/read-resource-request", "/params",
            |p: ReadResourceParams| p.uri == "file:///project/src/main.rs"),
        probe("ReadResourceResult/file-resource-contents", "", |r: ReadResourceResult| {
            (r.ttl_ms, r.cache_scope) == (60_000, CacheScope::Private)
        }),
        // Completion.
        probe("CompleteRequest/completion-request", "/params", |p: CompleteParams| {
            matches!(p.reference,
                CompletionReference::Prompt { ref name, title: None } if name == "code_review")
                && (p.argument.name.as_str(), p.argument.value.as_str()) == ("language", "py")
        }),
        probe("CompleteRequestParams/prompt-argument-completion-with-context", "",
            |p: CompleteParams| {
            p.context.and_then(|c| c.arguments).is_some_and(|a| a["language"] == "python")
        }),
        probe("CompleteRequestParams/prompt-argument-completion", "",
            |p: CompleteParams| p.context.is_none()),
        probe("CompleteResult/multiple-completion-values-with-more-available", "",
            |r: CompleteResult| {
            r.completion.has_more == Some(true)
        }),
        probe("CompleteResult/single-completion-value", "",
            |r: CompleteResult| r.completion.values == ["flask"]),
        // Subscriptions and the notifications they carry.
        probe(LISTEN, "/id", |id: RequestId| id == RequestId::from("listen-1")),
        probe(LISTEN, "/params", |p: ListenParams| {
            p.notifications.tools_list_changed == Some(true)
                && p.notifications.prompts_list_changed.is_none()
                && p.notifications.resource_subscriptions
                    == Some(vec!["file:///project/config.json".to_owned()])
        }),
        probe("SubscriptionsAcknowledgedNotification/listen-acknowledged", "/params",
            |p: SubscriptionAcknowledgedParams| {
            let listen: ListenParams = decode(&example(LISTEN)["params"]).unwrap();
            p.notifications == listen.notifications && listen_1(Some(&p.meta))
        }),
        probe("SubscriptionsListenResult/listen-closed", "",
            |r: SubscriptionsListenResult| listen_1(Some(&r.meta))),
        probe("ToolListChangedNotification/tools-list-changed", "/params",
            |p: ListChangedParams| listen_1(p.meta.as_ref())),
        probe("PromptListChangedNotification/prompts-list-changed", "/params",
            |p: ListChangedParams| listen_1(p.meta.as_ref())),
        probe("ResourceListChangedNotification/resources-list-changed", "/params",
            |p: ListChangedParams| listen_1(p.meta.as_ref())),
        probe("ResourceUpdatedNotification/file-resource-updated-notification", "/params",
            |p: ResourceUpdatedParams| {
            p.uri == "file:///project/src/main.rs"
        }),
        probe("ResourceUpdatedNotificationParams/file-resource-updated", "",
            |p: ResourceUpdatedParams| p.meta.is_none()),
        // Progress, logging, cancellation.
        probe("ProgressNotification/progress-message", "/params", |p: ProgressParams| {
            p.progress_token == ProgressToken::String("oivaizmir".into())
                && (p.progress, p.total) == (50.0, Some(100.0))
        }),
        probe("LoggingMessageNotification/log-database-connection-failed", "/params",
            |p: LoggingMessageParams| {
            p.level == LoggingLevel::Error
        }),
        probe("LoggingMessageNotificationParams/log-database-connection-failed", "",
            |p: LoggingMessageParams| {
            p.logger.as_deref() == Some("database")
        }),
        probe("CancelledNotification/user-requested-cancellation", "/params", |p: CancelledParams| {
            p.request_id == RequestId::from("123")
        }),
        probe("CancelledNotificationParams/user-requested-cancellation", "", |p: CancelledParams| {
            p.reason.as_deref() == Some("User requested cancellation")
        }),
        // Multi round-trip requests.
        probe(full_input_required, "", |r: InputRequiredResult| {
            let requests = r.input_requests.unwrap_or_default();
            r.result_type == ResultType::INPUT_REQUIRED
                && requests.keys().eq(["github_login", "capital_of_france"])
                // `mode` is omitted here: it reads as form mode and stays omitted.
                && matches!(requests["github_login"],
                    InputRequest::Elicitation(ElicitRequestParams::Form { mode: None, .. }))
                && matches!(requests["capital_of_france"],
                    InputRequest::Sampling(CreateMessageParams { max_tokens: 100, .. }))
        }),
        probe("InputRequiredResult/input-required-result-with-request-state-only", "",
            |r: InputRequiredResult| {
            let state = "eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9";
            r == InputRequiredResult::new().with_state(state)
        }),
        probe("InputRequests/elicitation-and-sampling-input-requests", "", |r: InputRequests| {
            matches!(r["github_login"],
                InputRequest::Elicitation(ElicitRequestParams::Form { mode: Some(_), .. }))
        }),
        probe("InputResponses/elicitation-and-sampling-input-responses", "/github_login",
            |r: ElicitResult| {
            r.action == ElicitAction::Accept
        }),
        probe("InputResponses/elicitation-and-sampling-input-responses", "/capital_of_france",
            |r: CreateMessageResult| {
            r.text() == Some("The capital of France is Paris.")
        }),
        // Elicitation.
        probe("ElicitRequest/elicitation-request", "", |r: InputRequest| {
            matches!(r,
                InputRequest::Elicitation(ElicitRequestParams::Form { requested_schema: s, .. })
                if matches!(s.properties["name"], Field::String(_)) && s.required == ["name"])
        }),
        probe("ElicitRequestFormParams/elicit-multiple-fields", "", |p: ElicitRequestParams| {
            matches!(p, ElicitRequestParams::Form { requested_schema: s, .. }
                if s.properties.keys().eq(["name", "email", "age"])
                    && matches!(&s.properties["email"],
                        Field::String(s) if s.format == Some(StringFormat::Email))
                    && matches!(&s.properties["age"], Field::Number(n)
                        if n.kind == NumberType::Number && n.minimum == Some(18.into())))
        }),
        probe("ElicitRequestFormParams/elicit-single-field", "", |p: ElicitRequestParams| {
            matches!(p, ElicitRequestParams::Form { mode: Some(_), .. })
        }),
        probe("ElicitRequestURLParams/elicit-sensitive-data", "", |p: ElicitRequestParams| {
            let url = "https://mcp.example.com/ui/set_api_key";
            p == ElicitRequestParams::url("Please provide your API key to continue.", url)
        }),
        probe("StringSchema/email-input-schema", "", |f: Field| {
            matches!(&f, Field::String(s) if s.format == Some(StringFormat::Email)
                && (s.min_length, s.max_length) == (Some(3), Some(50))
                && s.default.as_deref() == Some("user@example.com"))
        }),
        probe("NumberSchema/number-input-schema", "", |f: Field| {
            matches!(&f,
                Field::Number(n) if n.kind == NumberType::Number && n.default == Some(50.into()))
        }),
        probe("BooleanSchema/boolean-input-schema", "",
            |f: Field| matches!(&f, Field::Boolean(b) if b.default == Some(false))),
        probe("UntitledSingleSelectEnumSchema/color-select-schema", "", |f: Field| {
            matches!(&f, Field::UntitledSingleSelect(s)
                if s.values == ["Red", "Green", "Blue"] && s.default.as_deref() == Some("Red"))
        }),
        probe("TitledSingleSelectEnumSchema/titled-color-select-schema", "", |f: Field| {
            matches!(&f, Field::TitledSingleSelect(s)
                if s.one_of.len() == 3
                    && s.one_of[0].value == "#FF0000"
                    && s.one_of[0].title == "Red")
        }),
        probe("UntitledMultiSelectEnumSchema/color-multi-select-schema", "", |f: Field| {
            matches!(&f, Field::UntitledMultiSelect(s)
                if s.items.values == ["Red", "Green", "Blue"]
                    && (s.min_items, s.max_items) == (Some(1), Some(2)))
        }),
        probe("TitledMultiSelectEnumSchema/titled-color-multi-select-schema", "", |f: Field| {
            matches!(&f, Field::TitledMultiSelect(s)
                if s.items.any_of.len() == 3
                    && s.default == Some(vec!["#FF0000".into(), "#00FF00".into()]))
        }),
        probe("ElicitResult/accept-url-mode-no-content", "",
            |r: ElicitResult| (r.action, r.content) == (ElicitAction::Accept, None)),
        probe("ElicitResult/input-multiple-fields", "",
            |r: ElicitResult| r.content.is_some_and(|c| c["age"] == 30)),
        probe("ElicitResult/input-single-field", "",
            |r: ElicitResult| r.content.is_some_and(|c| c["name"] == "octocat")),
        // Sampling and roots.
        probe("CreateMessageRequest/sampling-request", "",
            |r: InputRequest| matches!(r, InputRequest::Sampling(_))),
        probe("CreateMessageRequestParams/basic-request", "", |p: CreateMessageParams| {
            p.system_prompt.as_deref() == Some("You are a helpful assistant.")
        }),
        // The sampling `tools` entries are MCP Tool objects.
        probe("CreateMessageRequestParams/follow-up-with-tool-results", "",
            |p: CreateMessageParams| {
            p.messages.len() == 3
                && p.tools.is_some_and(|t| plain::<Tool>()(&t[0]) == Ok(t[0].clone()))
        }),
        probe("CreateMessageRequestParams/request-with-tools", "", |p: CreateMessageParams| {
            p.tool_choice == Some(json!({"mode": "auto"}))
        }),
        probe("CreateMessageResult/final-response", "",
            |r: CreateMessageResult| r.text().is_some_and(|t| t.starts_with("Based on"))),
        probe("CreateMessageResult/text-response", "",
            |r: CreateMessageResult| r.stop_reason.as_deref() == Some("endTurn")),
        probe("CreateMessageResult/tool-use-response", "",
            |r: CreateMessageResult| r.text().is_none()),
        probe("SamplingMessage/multiple-content-blocks", "",
            |m: SamplingMessage| m.content.is_array()),
        probe("SamplingMessage/single-content-block", "", |m: SamplingMessage| {
            m == SamplingMessage::user_text("What is the capital of France?")
        }),
        probe("ModelPreferences/with-hints-and-priorities", "",
            |p: ModelPreferences| p.hints.is_some_and(|h| h.len() == 2)),
        probe("ToolResultContent/get-weather-tool-result", "/content", |blocks: Vec<ContentBlock>| {
            blocks[0].as_text() == Some("Weather in Paris: 18°C, partly cloudy")
        }),
        probe("ListRootsResult/multiple-root-directories", "",
            |r: ListRootsResult| r.roots.len() == 2),
        probe("Root/project-directory", "", |r: Root| r.name.as_deref() == Some("My Project")),
    ]
}

#[test]
fn examples_mean_what_they_say() {
    let mut failures = Vec::new();
    for Probe {
        at: (key, pointer),
        check,
        line,
    } in probes()
    {
        let value = examples().get(key).and_then(|json| json.pointer(pointer));
        match value
            .ok_or_else(|| "no such example or pointer".into())
            .and_then(check)
        {
            Ok(true) => {}
            Ok(false) => failures.push(format!("{line}: {key} {pointer:?} does not hold")),
            Err(err) => failures.push(format!("{line}: {key} {pointer:?}: {err}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// What no single file shows
// ---------------------------------------------------------------------------------------------

/// Reads `json` as `T` and asserts it writes back unchanged.
#[track_caller]
fn round_trip<T: Wire>(json: Value) -> T {
    let typed: T = decode(&json).unwrap();
    assert_eq!(encode(&typed), json, "{}", type_name::<T>());
    typed
}

/// The `schema.ts` name of a field kind (`integer` for an integer `NumberSchema`).
fn kind(field: &PrimitiveSchemaDefinition) -> &'static str {
    use PrimitiveSchemaDefinition as Field;
    match field {
        Field::String(_) => "StringSchema",
        Field::Number(n) if n.kind == NumberType::Integer => "integer",
        Field::Number(_) => "NumberSchema",
        Field::Boolean(_) => "BooleanSchema",
        Field::UntitledSingleSelect(_) => "UntitledSingleSelectEnumSchema",
        Field::TitledSingleSelect(_) => "TitledSingleSelectEnumSchema",
        Field::UntitledMultiSelect(_) => "UntitledMultiSelectEnumSchema",
        Field::TitledMultiSelect(_) => "TitledMultiSelectEnumSchema",
        Field::LegacyTitled(_) => "LegacyTitledEnumSchema",
        _ => "a kind this test does not know",
    }
}

#[test]
fn composed_and_off_file_cases() {
    let file = |key: &str| example(key).clone();

    // Resource not found, from docs/specification/2026-07-28/server/resources.mdx ("Error
    // Handling"; no example file): our constructor uses -32602 (never the retired -32002)
    // with the same `data.uri`; its message names the URI, which the specification leaves free.
    let data = json!({"uri": "file:///nonexistent.txt"});
    let error = json!({"code": -32602, "message": "Resource not found", "data": data});
    let _: ErrorResponse = round_trip(json!({"jsonrpc": "2.0", "id": 5, "error": error}));
    let built = McpError::resource_not_found("file:///nonexistent.txt");
    assert_eq!(
        (built.code, built.data),
        (ErrorCode::INVALID_PARAMS, Some(data))
    );
    assert_eq!(built.message, "Resource not found: file:///nonexistent.txt");

    // All five content kinds in one tool result; an embedded blob; text and blob contents.
    let content = [
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
    ]
    .map(|ty| {
        examples()
            .iter()
            .find(|(key, _)| type_of(key) == ty)
            .unwrap()
            .1
    });
    let result: CallToolResult = round_trip(json!({"resultType": "complete", "content": content}));
    assert_eq!(result.content.len(), 5);
    let blob = file("BlobResourceContents/image-file-contents");
    let block: ContentBlock = round_trip(json!({"type": "resource", "resource": blob}));
    assert!(matches!(
        block,
        ContentBlock::Resource {
            resource: ResourceContents::Blob { .. },
            ..
        }
    ));
    let text = &example("ReadResourceResult/file-resource-contents")["contents"][0];
    let result: ReadResourceResult = round_trip(json!({
        "resultType": "complete", "contents": [text, blob], "ttlMs": 0, "cacheScope": "private"
    }));
    let contents = result.contents.as_slice();
    assert!(matches!(
        contents,
        [ResourceContents::Text { .. }, ResourceContents::Blob { .. }]
    ));

    // A legacy result without `resultType` reads as complete and is written with
    // `"resultType": "complete"`, which 2026-07-28 servers MUST send.
    let structured = file("CallToolResult/result-with-structured-content");
    let mut legacy = structured.clone();
    legacy.as_object_mut().unwrap().remove("resultType");
    let result: CallToolResult = decode(&legacy).unwrap();
    assert_eq!(
        (encode(&result), result.result_type),
        (structured, ResultType::COMPLETE)
    );

    // Fractional progress round-trips exactly; a whole one is written as a float.
    let _: ProgressParams = round_trip(json!({"progressToken": 7, "progress": 0.5}));
    let params = decode::<ProgressParams>(example("ProgressNotificationParams/progress-message"));
    assert_eq!(
        serde_json::to_string(&encode(&params.unwrap())["progress"]).unwrap(),
        "50.0"
    );

    // A retry as the server receives it: the multi round-trip examples' input responses and
    // request state on a tools/call.
    let responses = file("InputResponses/elicitation-and-sampling-input-responses");
    let state = file(
        "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state",
    )["requestState"]
        .clone();
    let mut retry = file("CallToolRequestParams/get-weather-tool-call-params");
    retry["inputResponses"] = responses.clone();
    retry["requestState"] = state.clone();
    assert_eq!(split_params::<CallToolParams>(&retry), Ok(retry.clone()));
    let params: CallToolParams = decode(&retry).unwrap();
    assert_eq!(params.input_responses, Some(responses));
    assert_eq!(params.request_state.as_deref(), state.as_str());

    // The shape our server writes for roots/list (the conformance fixtures send `"params": {}`).
    let request: InputRequest = round_trip(json!({"method": "roots/list", "params": {}}));
    assert_eq!(request, InputRequest::list_roots());

    // Every field kind, in one form of an input request, in order: the example of each kind,
    // plus the two with no example, an integer NumberSchema (schema.ts `type: "number" |
    // "integer"`) and LegacyTitledEnumSchema (`enum` + `enumNames`).
    let mut properties: Map<String, Value> = examples()
        .iter()
        .filter(|(key, _)| type_of(key).ends_with("Schema"))
        .map(|(key, json)| (type_of(key).to_owned(), json.clone()))
        .collect();
    properties.insert(
        "integer".into(),
        json!({"type": "integer", "minimum": 1, "maximum": 9, "default": 2}),
    );
    properties.insert(
        "LegacyTitledEnumSchema".into(),
        json!({
            "type": "string", "title": "Color", "default": "#FF0000",
            "enum": ["#FF0000", "#00FF00"], "enumNames": ["Red", "Green"]
        }),
    );
    assert_eq!(properties.len(), 9);
    let request: InputRequest = round_trip(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Please fill in every kind of field",
            "requestedSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": properties,
                "required": ["StringSchema", "BooleanSchema"]
            }
        }
    }));
    let InputRequest::Elicitation(ElicitRequestParams::Form {
        requested_schema: form,
        ..
    }) = request
    else {
        panic!("expected a form elicitation");
    };
    assert!(
        form.properties
            .keys()
            .eq(form.properties.values().map(kind)),
        "{form:?}"
    );
    let PrimitiveSchemaDefinition::LegacyTitled(legacy) =
        &form.properties["LegacyTitledEnumSchema"]
    else {
        panic!("not read as the legacy kind");
    };
    assert_eq!(legacy.enum_names, ["Red", "Green"]);
}
