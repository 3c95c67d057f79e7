//! Every attribute mistake is reported in one build: a wrongly typed value does not stop the
//! keys after it.

use typemcp_server::{prompt, resource, tool};

#[tool(name = 5, read_only = "yes", title, description("x"), open_world = maybe, idempotent)]
async fn a() -> String {
    String::new()
}

#[tool(crate = "not a path", crate = typemcp_server)]
async fn b() -> String {
    String::new()
}

async fn languages(_request: typemcp_server::CompletionRequest) -> Vec<String> {
    Vec::new()
}

#[prompt(complete = languages, complete(language), complete(language = 5, language = languages))]
async fn c(language: String) -> String {
    language
}

#[resource(uri = "memo://c", mime_type = , name = "m", name = "n")]
async fn d() -> String {
    String::new()
}

/// A refused `uri` or `template` is not reported missing too.
#[resource(uri = 5)]
async fn e() -> String {
    String::new()
}

#[resource(template = notes, complete(id = languages))]
async fn f(id: String) -> String {
    id
}

fn main() {}
