//! Every macro with every attribute key, optional parameters, extractors, structured output,
//! both kinds of `Result`, a type alias of the return type, a typed template variable, and
//! completions on a prompt and on a template.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use typemcp_server::typemcp_core::protocol::PromptMessage;
use typemcp_server::registry::AnyResourceRoute;
use typemcp_server::{
    Arguments, CancellationToken, CompletionRequest, IntoPromptRoute, IntoResourceRoute,
    IntoToolRoute, Json, McpError, RequestContext, Server, State, ToolInput, prompt, resource,
    tool,
};

#[derive(Clone, Default)]
struct Db {
    notes: Arc<Vec<String>>,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    celsius: f64,
}

type Out = Json<Forecast>;

#[derive(serde::Deserialize, schemars::JsonSchema, ToolInput)]
struct Add {
    a: i64,
    b: i64,
}

/// Weather for a city.
#[tool(
    name = "weather.get",
    title = "Weather",
    description = "Current weather for a city.",
    read_only,
    destructive = false,
    idempotent = true,
    open_world
)]
async fn weather(
    /// The city.
    city: String,
    /// Units, `celsius` when absent.
    units: Option<String>,
    ctx: RequestContext,
    cancel: CancellationToken,
) -> Result<Json<Forecast>, McpError> {
    let _ = (units, ctx.method(), cancel.is_cancelled());
    if city.is_empty() {
        return Err(McpError::invalid_params("city is empty"));
    }
    Ok(Json(Forecast { celsius: 21.5 }))
}

/// Forecast through a type alias of the return type.
#[tool]
async fn forecast(_city: String) -> Out {
    Json(Forecast { celsius: 18.0 })
}

/// Reads a file: I/O errors become `isError` results.
#[tool(destructive = true)]
async fn read_file(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// Adds two numbers given as one arguments object.
#[tool(idempotent)]
async fn add(Arguments(Add { a, b }): Arguments<Add>) -> i64 {
    a + b
}

/// Counts notes in shared state.
#[tool]
async fn count_notes(State(db): State<Db>) -> usize {
    db.notes.len()
}

async fn languages(request: CompletionRequest) -> Vec<String> {
    ["rust", "python", "go"]
        .iter()
        .filter(|l| l.starts_with(&request.value))
        .map(|l| l.to_string())
        .collect()
}

/// Review code in a language.
#[prompt(
    name = "code_review",
    title = "Code review",
    description = "Review a piece of code.",
    complete(language = languages)
)]
async fn review(
    /// The code.
    code: String,
    /// Its language.
    language: Option<String>,
    _ctx: RequestContext,
) -> Vec<PromptMessage> {
    let language = language.unwrap_or_else(|| "unknown".into());
    vec![PromptMessage::user(format!(
        "Review this {language} code:\n{code}"
    ))]
}

/// Today's memo.
#[resource(
    uri = "memo://today",
    name = "memo",
    title = "Memo",
    description = "Today's memo.",
    mime_type = "text/plain"
)]
async fn memo(State(db): State<Db>) -> String {
    db.notes.first().cloned().unwrap_or_default()
}

async fn note_ids(_request: CompletionRequest) -> Vec<String> {
    vec!["1".into(), "2".into()]
}

/// A note by number.
#[resource(
    template = "notes://{id}",
    name = "note",
    title = "Note",
    description = "A note by number.",
    mime_type = "text/plain",
    complete(id = note_ids)
)]
async fn note(id: u32, _ctx: RequestContext) -> Result<String, McpError> {
    match id {
        1 | 2 => Ok(format!("Note {id}")),
        _ => Err(McpError::resource_not_found(&format!("notes://{id}"))),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let route = weather.into_tool_route();
    let tool = route.tool();
    assert_eq!(tool.name, "weather.get");
    assert_eq!(tool.input_schema["required"], serde_json::json!(["city"]));
    assert!(tool.output_schema.is_some());
    assert!(forecast.into_tool_route().tool().output_schema.is_some());
    let add_schema = add.into_tool_route().tool().input_schema.clone();
    assert_eq!(add_schema["type"], "object");
    assert_eq!(add_schema["required"], serde_json::json!(["a", "b"]));
    assert_eq!(review.into_prompt_route().prompt().name, "code_review");
    match note.into_resource_route() {
        AnyResourceRoute::Template(route) => {
            assert_eq!(route.resource_template().uri_template, "notes://{id}");
        }
        AnyResourceRoute::Static(_) => panic!("`note` is a template"),
    }

    assert_eq!(add().call(Arguments(Add { a: 2, b: 3 })).await, 5);
    assert_eq!(forecast().call("Paris".into()).await.0.celsius, 18.0);

    let server = Server::builder()
        .state(Db::default())
        .tool(weather)
        .tool(forecast)
        .tool(read_file)
        .tool(add)
        .tool(count_notes)
        .prompt(review)
        .resource(memo)
        .resource(note)
        .build()
        .unwrap();
    assert!(server.capabilities().completions.is_some());
}
