//! The fixture server for the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, `--requirements 2026-07-28`).
//!
//! Serves every tool, prompt and resource the suite expects on
//! `http://127.0.0.1:<port>/mcp` (`--port`, default 3000), or over stdio with `--stdio`
//! (the integration tests drive both).
//!
//! ```text
//! cargo run --example conformance_server -- --port 3000
//! cargo run --example conformance_server -- --stdio
//! ```

use std::time::Duration;

use mcp_server::mcp_core::protocol::{
    CallToolResult, ContentBlock, ElicitRequestParams, GetPromptResult, InputRequest,
    InputRequiredResult, LoggingLevel, Outcome, PrimitiveSchemaDefinition, PromptMessage,
    RequestedSchema, ResourceContents, Role, StringSchema,
};
use mcp_server::prelude::*;
use mcp_server::{CompletionRequest, McpError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A tiny WAV file (RIFF header with one silent sample).
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

fn tools() -> Vec<ToolRoute> {
    vec![
        ToolRoute::new("test_simple_text", || async {
            "This is a simple text response for testing."
        })
        .description("Returns a simple text response."),
        ToolRoute::new("test_image_content", || async {
            ContentBlock::image(PNG, "image/png")
        })
        .description("Returns an image."),
        ToolRoute::new("test_audio_content", || async {
            ContentBlock::audio(WAV, "audio/wav")
        })
        .description("Returns audio."),
        ToolRoute::new("test_embedded_resource", || async {
            ContentBlock::resource(ResourceContents::text(
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            ))
        })
        .description("Returns an embedded resource."),
        ToolRoute::new("test_multiple_content_types", || async {
            vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(PNG, "image/png"),
                ContentBlock::resource(ResourceContents::text(
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                )),
            ]
        })
        .description("Returns text, an image and an embedded resource."),
        ToolRoute::new(
            "test_tool_with_progress",
            |ctx: RequestContext| async move {
                for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.report_progress(progress, Some(100.0), None).await;
                }
                "Progress complete."
            },
        )
        .description("Reports progress 0, 50 and 100 of 100."),
        ToolRoute::new("test_error_handling", || async {
            CallToolResult::error("This tool intentionally returns an error for testing")
        })
        .description("Always fails with a tool execution error."),
        ToolRoute::new(
            "test_missing_capability",
            |ctx: RequestContext| async move {
                if !ctx.client_capabilities().supports_sampling() {
                    return Err(McpError::missing_client_capability(
                        json!({ "sampling": {} }),
                    ));
                }
                Ok("The client declared sampling.")
            },
        )
        .description("Needs the client's sampling capability."),
        ToolRoute::new(
            "test_streaming_elicitation",
            |ctx: RequestContext, inv: Answers| async move {
                ctx.report_progress(0.0, Some(1.0), Some("asking".into()))
                    .await;
                match inv.0 {
                    Some(_) => Outcome::Complete(CallToolResult::text("Thanks!")),
                    None => Outcome::InputRequired(InputRequiredResult::new().with_request(
                        "user_name",
                        InputRequest::Elicitation(ElicitRequestParams::form(
                            "What is your name?",
                            name_form(),
                        )),
                    )),
                }
            },
        )
        .description("Streams a notification, then asks for input."),
        ToolRoute::new("test_logging_tool", |ctx: RequestContext| async move {
            for step in ["starting", "working", "done"] {
                ctx.log(
                    LoggingLevel::Info,
                    Some("conformance"),
                    json!({ "step": step }),
                )
                .await;
            }
            "Logged three messages."
        })
        .description("Logs three messages when the request asks for logs."),
        ToolRoute::new(
            "test_trigger_tool_change",
            |ctx: RequestContext| async move {
                ctx.server().notify_tools_list_changed();
                "Tool list change notified."
            },
        )
        .description("Notifies listeners that the tool list changed."),
        ToolRoute::new(
            "test_trigger_prompt_change",
            |ctx: RequestContext| async move {
                ctx.server().notify_prompts_list_changed();
                "Prompt list change notified."
            },
        )
        .description("Notifies listeners that the prompt list changed."),
        ToolRoute::new("json_schema_2020_12_tool", || async { "ok" })
            .description("Tool with JSON Schema 2020-12 features")
            .input_schema(json_schema_2020_12()),
    ]
}

/// The raw `inputResponses` of a retry, for the streaming elicitation fixture.
struct Answers(Option<Value>);

impl mcp_server::FromInvocation for Answers {
    fn from_invocation(invocation: &mcp_server::Invocation) -> Result<Self, mcp_server::Rejection> {
        Ok(Self(invocation.input_responses.clone()))
    }
}

fn name_form() -> RequestedSchema {
    let fields = [(
        "name".to_owned(),
        PrimitiveSchemaDefinition::String(StringSchema::new()),
    )];
    RequestedSchema::new(fields.into_iter().collect(), vec!["name".into()])
}

fn json_schema_2020_12() -> serde_json::Map<String, Value> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"}, "email": {"type": "string"}},
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    match schema {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

#[derive(Deserialize, JsonSchema)]
struct TwoArguments {
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EmbeddedArguments {
    /// URI of the resource to embed.
    resource_uri: String,
}

fn prompts() -> Vec<PromptRoute> {
    vec![
        PromptRoute::new("test_simple_prompt", || async {
            "This is a simple prompt for testing."
        })
        .description("A simple prompt without arguments."),
        PromptRoute::new(
            "test_prompt_with_arguments",
            |Arguments(a): Arguments<TwoArguments>| async move {
                format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    a.arg1, a.arg2
                )
            },
        )
        .description("A prompt with two required arguments.")
        .complete("arg1", complete_arg1),
        PromptRoute::new(
            "test_prompt_with_embedded_resource",
            |Arguments(a): Arguments<EmbeddedArguments>| async move {
                GetPromptResult::new(vec![
                    PromptMessage::new(
                        Role::User,
                        ContentBlock::resource(ResourceContents::text(
                            a.resource_uri,
                            "text/plain",
                            "Embedded resource content for testing.",
                        )),
                    ),
                    PromptMessage::user("Please process the embedded resource above."),
                ])
            },
        )
        .description("A prompt that embeds a resource."),
        PromptRoute::new("test_prompt_with_image", || async {
            vec![
                PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
                PromptMessage::user("Please analyze the image above."),
            ]
        })
        .description("A prompt with an image."),
    ]
}

#[derive(Deserialize)]
struct TemplateId {
    id: String,
}

fn resources() -> Result<Vec<mcp_server::registry::AnyResourceRoute>, Box<dyn std::error::Error>> {
    use mcp_server::IntoResourceRoute;
    Ok(vec![
        ResourceRoute::new("test://static-text", "static-text", || async {
            ResourceContents::text("test://static-text", "text/plain", "This is the content of the static text resource.")
        })
        .description("A static text resource.")
        .mime_type("text/plain")
        .into_resource_route(),
        ResourceRoute::new("test://static-binary", "static-binary", || async {
            ResourceContents::blob("test://static-binary", "image/png", PNG)
        })
        .description("A static binary resource.")
        .mime_type("image/png")
        .into_resource_route(),
        ResourceRoute::new("test://watched-resource", "watched-resource", || async {
            ResourceContents::text("test://watched-resource", "text/plain", "Watched resource content.")
        })
        .description("A resource clients can subscribe to.")
        .mime_type("text/plain")
        .into_resource_route(),
        ResourceTemplateRoute::new(
            "test://template/{id}/data",
            "template-data",
            |UriParams(t): UriParams<TemplateId>| async move {
                let uri = format!("test://template/{}/data", t.id);
                let body = json!({ "id": t.id, "templateTest": true, "data": format!("Data for ID: {}", t.id) });
                ResourceContents::text(uri, "application/json", body.to_string())
            },
        )?
        .description("A resource template with an id.")
        .mime_type("application/json")
        .into_resource_route(),
    ])
}

async fn complete_arg1(request: CompletionRequest) -> Vec<String> {
    ["paris", "park", "party", "test", "testing"]
        .iter()
        .filter(|v| v.starts_with(&request.value))
        .map(|v| (*v).to_owned())
        .collect()
}

/// Where to serve.
enum Mode {
    Http(u16),
    Stdio,
}

fn mode() -> Result<Mode, String> {
    let mut args = std::env::args().skip(1);
    let mut mode = Mode::Http(3000);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                let port = value
                    .parse()
                    .map_err(|_| format!("invalid port {value:?}"))?;
                mode = Mode::Http(port);
            }
            "--stdio" => mode = Mode::Stdio,
            other => {
                return Err(format!(
                    "unknown argument {other:?} (expected --port N or --stdio)"
                ));
            }
        }
    }
    Ok(mode)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let mode = mode()?;
    let mut builder = Server::builder()
        .name("mcp-rust-conformance-server")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Fixture server for the MCP conformance suite.");
    for tool in tools() {
        builder = builder.tool(tool);
    }
    for prompt in prompts() {
        builder = builder.prompt(prompt);
    }
    for resource in resources()? {
        builder = builder.resource(resource);
    }
    let server = builder.build()?;
    match mode {
        Mode::Http(port) => server.serve_http(("127.0.0.1", port)).await?,
        Mode::Stdio => server.serve_stdio().await?,
    }
    Ok(())
}
