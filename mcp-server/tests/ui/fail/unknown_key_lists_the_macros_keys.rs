//! An unknown key lists the keys of the macro it was written in.

use typemcp_server::{prompt, resource, tool};

#[prompt(read_only)]
async fn a() -> String {
    String::new()
}

#[resource(uri = "memo://b", destructive)]
async fn b() -> String {
    String::new()
}

#[tool(mcp::name = "c")]
async fn c() -> String {
    String::new()
}

fn main() {}
