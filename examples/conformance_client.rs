//! The driver the official conformance suite's client scenarios run (`conformance client
//! --command "conformance_client" --scenario …`): a client built on `typemcp-client`, in its
//! automatic era selection unless the suite names a revision, that connects to the URL the
//! suite gives as its last argument and does what a host would.
//!
//! - it lists the tools and calls each (with the calls the scenario's context names, if it
//!   names any, otherwise with arguments made from each tool's input schema: every required
//!   property given its default, its first `enum` value, or a plain value of its type);
//! - when the server offers skills, it lists them and loads each (but in
//!   `sep-2640-client-no-prefetch`), reading every file each lists, all verified against
//!   the entry;
//! - it lists and reads the resources and lists and gets the prompts the server offers;
//! - it answers every form with the form's own defaults (and a value of its type for each
//!   required field without one), a URL visit as visited, a sampling request with a canned
//!   message and `roots/list` with no roots.
//!
//! `MCP_CONFORMANCE_SCENARIO` names the scenario, `MCP_CONFORMANCE_CONTEXT` holds its JSON
//! context and `MCP_CONFORMANCE_PROTOCOL_VERSION`, when set, the revision to speak
//! (2026-07-28, or an older one through `initialize`). Logs go to stderr (`RUST_LOG`). It exits
//! with 0 once every step ran (a step the server refuses is logged, not fatal, since some
//! scenarios refuse on purpose), and with 1 when it cannot connect.
//!
//! ```sh
//! cargo run --example conformance_client -- http://127.0.0.1:3000/mcp
//! ```
//! `tests/conformance/client.rs` runs it under the suite.

use std::process::ExitCode;

use serde_json::{Map, Value, json};
use typemcp_client::typemcp_core::protocol::{
    ClientCapabilities, ElicitRequestParams, ElicitationCapability, Implementation, InputRequest,
    RequestedSchema, RootsCapability, SamplingCapability,
};
use typemcp_client::{Answers, Client, ClientError, EraChoice, Question, Reply};

/// Answers as a host whose user accepts what is offered.
struct Accepting;

impl Answers for Accepting {
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Reply, ClientError>> + Send + 'a>> {
        let reply = match question.request {
            InputRequest::Elicitation(ElicitRequestParams::Url { .. }) => Reply::visited(),
            InputRequest::Elicitation(_) => match question.form() {
                Some(form) => Reply::accept_content(filled(form)),
                None => Reply::accept_defaults(),
            },
            InputRequest::Sampling(_) => Reply::raw(json!({
                "role": "assistant",
                "content": {"type": "text", "text": "A reply from the conformance client."},
                "model": "conformance-client",
                "stopReason": "endTurn",
            })),
            _ => Reply::raw(json!({"roots": []})),
        };
        Box::pin(std::future::ready(Ok(reply)))
    }

    fn capabilities(&self) -> ClientCapabilities {
        let mut elicitation = ElicitationCapability::default();
        elicitation.form = Some(Map::new());
        elicitation.url = Some(Map::new());
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(elicitation);
        capabilities.sampling = Some(SamplingCapability::default());
        capabilities.roots = Some(RootsCapability::default());
        capabilities
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    typemcp_server::logging::init();
    let Some(url) = std::env::args()
        .nth(1)
        .filter(|url| url.starts_with("http"))
    else {
        eprintln!("usage: conformance_client <server URL>");
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|context| serde_json::from_str(&context).ok())
        .unwrap_or(Value::Null);
    let era = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .as_deref()
    {
        None | Some("") => EraChoice::Automatic,
        Some(typemcp_client::MODERN) => EraChoice::Modern,
        Some(_) => EraChoice::Session,
    };
    let client = Client::builder()
        .era(era)
        .answers(Accepting)
        .client_info(Implementation::new(
            "typemcp-conformance-client",
            env!("CARGO_PKG_VERSION"),
        ))
        .connect_http(&url)
        .await;
    let client = match client {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, %scenario, "could not connect");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(%scenario, era = ?client.era(), "connected");
    if client.offers_skills() {
        // A host lists skills at once, and loads one only when the model asks for it: in
        // `sep-2640-client-no-prefetch` nothing asks.
        let load = scenario != "sep-2640-client-no-prefetch";
        use_skills(&client, load).await;
    }
    drive(&client, &context).await;
    if let Err(error) = client.close().await {
        tracing::warn!(%error, "closing the session failed");
    }
    ExitCode::SUCCESS
}

/// Does what a host would: tools, then resources, then prompts.
async fn drive(client: &Client, context: &Value) {
    let tools = step("tools/list", client.list_tools().await).unwrap_or_default();
    match context.get("toolCalls").and_then(Value::as_array) {
        Some(calls) => {
            for call in calls {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
                step(name, client.call_tool(name, arguments).await);
            }
        }
        None => {
            for tool in &tools {
                let arguments = match echoed_schema(tool, &tools) {
                    Some(schema) => json!({ "schema": schema }),
                    None => arguments_for(&Value::Object(tool.input_schema.clone())),
                };
                step(&tool.name, client.call_tool(&tool.name, arguments).await);
            }
        }
    }
    let capabilities = &client.server().capabilities;
    if capabilities.resources.is_some() {
        let resources = step("resources/list", client.list_resources().await);
        for resource in resources.unwrap_or_default() {
            step(&resource.uri, client.read_resource(&resource.uri).await);
        }
    }
    if capabilities.prompts.is_some() {
        let prompts = step("prompts/list", client.list_prompts().await);
        for prompt in prompts.unwrap_or_default() {
            let arguments: Map<String, Value> = prompt
                .arguments
                .iter()
                .flatten()
                .filter(|argument| argument.required == Some(true))
                .map(|argument| (argument.name.clone(), json!("value")))
                .collect();
            step(
                &prompt.name,
                client.get_prompt(&prompt.name, arguments).await,
            );
        }
    }
}

/// Lists the skills and, when `load`, loads each and reads every other file it lists: each
/// verified against its entry (a skill whose `SKILL.md` fails is not read further).
async fn use_skills(client: &Client, load: bool) {
    let entries = step("skills/list", client.list_skills().await).unwrap_or_default();
    if !load {
        return;
    }
    for entry in entries {
        let Some(skill) = step(&entry.uri, client.load_skill(&entry).await) else {
            continue;
        };
        for file in entry.resources.files().unwrap_or_default() {
            if file.uri != entry.uri {
                let path = file
                    .uri
                    .strip_prefix(&skill.uri_of(""))
                    .unwrap_or(&file.uri);
                step(&file.uri, skill.read(client, path).await);
            }
        }
    }
}

/// The outcome of one step, logged; a refusal is not fatal.
fn step<T>(what: &str, outcome: Result<T, ClientError>) -> Option<T> {
    match outcome {
        Ok(value) => {
            tracing::info!(%what, "done");
            Some(value)
        }
        Err(error) => {
            tracing::warn!(%what, %error, "refused");
            None
        }
    }
}

/// For a tool that echoes a schema back (one required `schema` object argument), the input
/// schema of the first other tool: what a host inspecting schemas would pass.
fn echoed_schema(
    tool: &typemcp_client::typemcp_core::protocol::Tool,
    tools: &[typemcp_client::typemcp_core::protocol::Tool],
) -> Option<Value> {
    let required = tool.input_schema.get("required")?.as_array()?;
    if required.len() != 1 || required[0] != "schema" {
        return None;
    }
    let other = tools.iter().find(|other| other.name != tool.name)?;
    Some(Value::Object(other.input_schema.clone()))
}

/// A form's content as a user who accepts what is offered gives it: each field's default,
/// and a value of its type for each required field without one.
fn filled(form: &RequestedSchema) -> Map<String, Value> {
    form.properties
        .iter()
        .filter_map(|(name, field)| {
            let field = serde_json::to_value(field).ok()?;
            let wanted = field.get("default").is_some() || form.required.contains(name);
            wanted.then(|| (name.clone(), value_for(&field)))
        })
        .collect()
}

/// Arguments for a tool with input schema `schema`: each required property given a value.
fn arguments_for(schema: &Value) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let arguments: Map<String, Value> = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| {
            let property = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
            (name.to_owned(), value_for(property))
        })
        .collect();
    Value::Object(arguments)
}

/// A value a property accepts: its default, its first `enum` value, or one of its type.
fn value_for(property: &Value) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let first_option = ["oneOf", "anyOf"]
        .iter()
        .find_map(|key| property.get(*key)?.as_array()?.first()?.get("const"));
    if let Some(first) = first_option {
        return first.clone();
    }
    let minimum = property.get("minimum").and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("integer") => json!(minimum.map_or(1, |m| m.ceil() as i64)),
        Some("number") => json!(minimum.unwrap_or(1.0)),
        Some("boolean") => json!(true),
        Some("object") => arguments_for(property),
        Some("array") => json!([]),
        _ => match property.get("format").and_then(Value::as_str) {
            Some("email") => json!("user@example.com"),
            Some("uri") => json!("https://example.com/"),
            Some("date") => json!("2026-07-28"),
            Some("date-time") => json!("2026-07-28T12:00:00Z"),
            _ => json!("value"),
        },
    }
}
