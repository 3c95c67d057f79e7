//! Only a named tool argument can be mirrored: not an extractor, not a parameter of a prompt
//! or a resource, not a destructured pattern.

use typemcp_server::{RequestContext, prompt, resource, tool};

#[tool]
async fn on_extractor(#[arg(header = "Ctx")] ctx: RequestContext) -> String {
    let _ = ctx;
    String::new()
}

#[tool]
async fn on_pattern(#[arg(header = "Pair")] (a, b): (String, String)) -> String {
    a + &b
}

#[prompt]
async fn ask(#[arg(header = "Topic")] topic: String) -> String {
    topic
}

#[resource(template = "notes://{id}")]
async fn note(#[arg(header = "Id")] id: String) -> String {
    id
}

fn main() {}
