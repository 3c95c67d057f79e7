use typemcp_server::{Arguments, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[tool]
async fn add(Arguments(Add { a, b }): Arguments<Add>) -> i64 {
    a + b
}

fn main() {}
