//! `crate = path` points every macro at a crate that re-exports `typemcp_server` (here a module
//! of this crate), so generated code does not need `typemcp_server` under its own name.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sdk {
    pub use typemcp_server::*;
}

use sdk::state::{Continuation, Round, Step};

#[derive(serde::Deserialize, schemars::JsonSchema, sdk::ToolInput)]
#[tool_input(crate = crate::sdk)]
struct Add {
    a: i64,
    b: i64,
}

/// Adds two numbers.
#[sdk::tool(crate = crate::sdk, read_only)]
async fn add(sdk::Arguments(Add { a, b }): sdk::Arguments<Add>) -> i64 {
    a + b
}

/// Greets someone.
#[sdk::prompt(crate = crate::sdk)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// A note.
#[sdk::resource(template = "notes://{id}", crate = "crate::sdk")]
async fn note(id: u32) -> String {
    format!("Note {id}")
}

#[derive(sdk::ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
#[continuation(crate = crate::sdk)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
}

/// Deploys after a confirmation.
#[sdk::tool(crate = crate::sdk)]
async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming { confirm: "Deploy?".into() }),
        Some(FlowAnswered::Confirming { confirm: _ }) => Step::done("answered".to_owned()),
    }
}

fn main() {
    let tool = sdk::IntoToolRoute::into_tool_route(add);
    assert_eq!(
        tool.tool().input_schema["required"],
        serde_json::json!(["a", "b"])
    );
    assert_eq!(Flow::Confirming.questions()[0].key, "confirm");
    let server = sdk::Server::builder()
        .tool(add)
        .tool(deploy)
        .prompt(greet)
        .resource(note)
        .build()
        .unwrap();
    assert!(server.capabilities().tools.is_some());
}
