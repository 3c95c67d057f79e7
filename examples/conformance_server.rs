//! The fixture server for the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, `--requirements 2026-07-28`), written the idiomatic
//! way: plain async functions with `#[tool]`, `#[prompt]` and `#[resource]`.
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

use mcp_server::mcp_core::form::form_request;
use mcp_server::mcp_core::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, InputRequiredResult, LoggingLevel, Outcome,
    PromptMessage, ResourceContents, Role,
};
use mcp_server::{
    Answer, CompletionRequest, ElicitForm, FromInvocation, Invocation, McpError, Rejection,
    RequestContext, Server, ToolRoute, prompt, resource, tool,
};
use serde_json::{Value, json};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A tiny WAV file (RIFF header with one silent sample).
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

/// Returns a simple text response.
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[tool]
async fn test_image_content() -> ContentBlock {
    ContentBlock::image(PNG, "image/png")
}

/// Returns audio.
#[tool]
async fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(WAV, "audio/wav")
}

/// Returns an embedded resource.
#[tool]
async fn test_embedded_resource() -> ContentBlock {
    ContentBlock::resource(ResourceContents::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and an embedded resource.
#[tool]
async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG, "image/png"),
        ContentBlock::resource(ResourceContents::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )),
    ]
}

/// Reports progress 0, 50 and 100 of 100.
#[tool]
async fn test_tool_with_progress(ctx: RequestContext) -> &'static str {
    for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.report_progress(progress, Some(100.0), None).await;
    }
    "Progress complete."
}

/// Always fails with a tool execution error.
#[tool]
async fn test_error_handling() -> CallToolResult {
    CallToolResult::error("This tool intentionally returns an error for testing")
}

/// Needs the client's sampling capability.
#[tool]
async fn test_missing_capability(ctx: RequestContext) -> Result<&'static str, McpError> {
    if !ctx.client_capabilities().supports_sampling() {
        return Err(McpError::missing_client_capability(
            json!({ "sampling": {} }),
        ));
    }
    Ok("The client declared sampling.")
}

/// The raw `inputResponses` of a retry (the typed multi-round API comes with issue #5).
struct Answers(Option<Value>);

impl FromInvocation for Answers {
    fn from_invocation(invocation: &Invocation) -> Result<Self, Rejection> {
        Ok(Self(invocation.input_responses.clone()))
    }
}

/// Streams a notification, then asks for input.
#[tool]
async fn test_streaming_elicitation(
    ctx: RequestContext,
    answers: Answers,
) -> Outcome<CallToolResult> {
    ctx.report_progress(0.0, Some(1.0), Some("asking".into()))
        .await;
    let answer = answers.0.as_ref().and_then(|a| a.get("user_name"));
    match Answer::<NameForm>::read(answer) {
        Answer::Accepted(form) => {
            Outcome::Complete(CallToolResult::text(format!("Hello, {}!", form.name)))
        }
        Answer::Declined | Answer::Cancelled => {
            Outcome::Complete(CallToolResult::text("No name given."))
        }
        Answer::Missing | Answer::Malformed(_) => Outcome::InputRequired(
            InputRequiredResult::new()
                .with_request("user_name", form_request::<NameForm>("What is your name?")),
        ),
    }
}

/// The user's name.
#[derive(ElicitForm)]
struct NameForm {
    /// Your name.
    name: String,
}

/// Logs three messages when the request asks for logs.
#[tool]
async fn test_logging_tool(ctx: RequestContext) -> &'static str {
    for step in ["starting", "working", "done"] {
        ctx.log(
            LoggingLevel::Info,
            Some("conformance"),
            json!({ "step": step }),
        )
        .await;
    }
    "Logged three messages."
}

/// Notifies listeners that the tool list changed.
#[tool]
async fn test_trigger_tool_change(ctx: RequestContext) -> &'static str {
    ctx.server().notify_tools_list_changed();
    "Tool list change notified."
}

/// Notifies listeners that the prompt list changed.
#[tool]
async fn test_trigger_prompt_change(ctx: RequestContext) -> &'static str {
    ctx.server().notify_prompts_list_changed();
    "Prompt list change notified."
}

/// A tool whose input schema is written by hand, to show every JSON Schema 2020-12 keyword
/// survives listing.
fn json_schema_2020_12_tool() -> ToolRoute {
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
    let Value::Object(schema) = schema else {
        unreachable!("a JSON object literal")
    };
    ToolRoute::new("json_schema_2020_12_tool", || async { "ok" })
        .description("Tool with JSON Schema 2020-12 features")
        .input_schema(schema)
}

/// A simple prompt without arguments.
#[prompt]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

async fn complete_arg1(request: CompletionRequest) -> Vec<String> {
    ["paris", "park", "party", "test", "testing"]
        .iter()
        .filter(|v| v.starts_with(&request.value))
        .map(|v| (*v).to_owned())
        .collect()
}

/// A prompt with two required arguments.
#[prompt(complete(arg1 = complete_arg1))]
async fn test_prompt_with_arguments(
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
#[allow(non_snake_case)]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    resourceUri: String,
) -> GetPromptResult {
    GetPromptResult::new(vec![
        PromptMessage::new(
            Role::User,
            ContentBlock::resource(ResourceContents::text(
                resourceUri,
                "text/plain",
                "Embedded resource content for testing.",
            )),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ])
}

/// A prompt with an image.
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// A static text resource.
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource.
#[resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
async fn static_binary() -> ResourceContents {
    ResourceContents::blob("test://static-binary", "image/png", PNG)
}

/// A resource clients can subscribe to.
#[resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
async fn watched_resource() -> &'static str {
    "Watched resource content."
}

/// A resource template with an id.
#[resource(
    template = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
async fn template_data(id: String) -> ResourceContents {
    let body = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
    ResourceContents::text(
        format!("test://template/{id}/data"),
        "application/json",
        body.to_string(),
    )
}

fn server() -> Result<Server, mcp_server::BuildError> {
    Server::builder()
        .name("mcp-rust-conformance-server")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Fixture server for the MCP conformance suite.")
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_tool_with_progress)
        .tool(test_error_handling)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_logging_tool)
        .tool(test_trigger_tool_change)
        .tool(test_trigger_prompt_change)
        .tool(json_schema_2020_12_tool())
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .resource(static_text)
        .resource(static_binary)
        .resource(watched_resource)
        .resource(template_data)
        .build()
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
    let server = server()?;
    match mode {
        Mode::Http(port) => server.serve_http(("127.0.0.1", port)).await?,
        Mode::Stdio => server.serve_stdio().await?,
    }
    Ok(())
}
