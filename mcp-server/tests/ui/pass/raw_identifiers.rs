//! Raw identifiers go on the wire unrawed: a parameter `r#type` is the argument `type` of a
//! tool (schema and call) and of a prompt, a template variable `{type}`, and an awaited
//! answer `#[awaits(r#type: ..)]` is the key `type`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use typemcp_server::state::Continuation;
use typemcp_server::{
    ElicitForm, IntoPromptRoute, IntoToolRoute, Server, TransportInfo, prompt, resource, tool,
};
use serde_json::{Value, json};

/// Describes a thing of a kind.
#[tool]
async fn describe(
    /// The kind of thing.
    r#type: String,
    r#loop: Option<u32>,
) -> String {
    format!("a {} ({})", r#type, r#loop.unwrap_or(1))
}

/// The tool named after a keyword.
#[tool]
async fn r#match() -> &'static str {
    "matched"
}

/// Asks about a kind.
#[prompt(complete(r#type = kinds))]
async fn ask(r#type: String) -> String {
    format!("Tell me about {}", r#type)
}

async fn kinds(_request: typemcp_server::CompletionRequest) -> Vec<String> {
    vec!["cat".into()]
}

/// A kind, by name.
#[resource(template = "kinds://{type}", complete(r#type = kinds))]
async fn kind_named(r#type: String) -> String {
    format!("The {} kind", r#type)
}

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, typemcp_server::state::Continuation)]
enum Flow {
    #[awaits(r#type: Confirm)]
    Asking,
}

async fn request(server: &Server, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = server
        .handle_message(message.to_string().as_bytes(), TransportInfo::in_process())
        .await
        .unwrap();
    serde_json::from_slice(&reply).unwrap()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let route = describe.into_tool_route();
    let schema = &route.tool().input_schema;
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["type", "loop"]);
    assert_eq!(
        schema["properties"]["type"]["description"],
        "The kind of thing."
    );
    assert_eq!(schema["required"], json!(["type"]));
    assert_eq!(r#match.into_tool_route().tool().name, "match");
    let arguments = ask.into_prompt_route().prompt().arguments.clone().unwrap();
    assert_eq!(arguments[0].name, "type");
    assert_eq!(Flow::Asking.questions()[0].key, "type");
    let (_, prompts) = Flow::split(FlowAsking::Asking { r#type: "Go?".into() });
    assert_eq!(prompts[0].text(), "Go?");

    let server = Server::builder()
        .tool(describe)
        .tool(r#match)
        .prompt(ask)
        .resource(kind_named)
        .build()
        .unwrap();
    let called = request(
        &server,
        "tools/call",
        json!({"name": "describe", "arguments": {"type": "cat", "loop": 2}}),
    )
    .await;
    assert_eq!(
        called["result"]["content"][0]["text"], "a cat (2)",
        "{called}"
    );
    let refused = request(
        &server,
        "tools/call",
        json!({"name": "describe", "arguments": {}}),
    )
    .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`type`"), "{text}");
    let got = request(
        &server,
        "prompts/get",
        json!({"name": "ask", "arguments": {"type": "cats"}}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "Tell me about cats",
        "{got}"
    );
    let read = request(&server, "resources/read", json!({"uri": "kinds://cat"})).await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "The cat kind",
        "{read}"
    );
    let completed = request(
        &server,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "ask"}, "argument": {"name": "type", "value": ""}}),
    )
    .await;
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["cat"]),
        "{completed}"
    );
}
