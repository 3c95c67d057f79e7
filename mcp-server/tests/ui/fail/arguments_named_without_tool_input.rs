use typemcp_server::{Arguments, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[tool]
async fn add(args: Arguments<Add>) -> i64 {
    args.0.a + args.0.b
}

fn main() {}
