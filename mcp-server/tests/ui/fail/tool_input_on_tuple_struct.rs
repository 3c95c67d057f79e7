use typemcp_server::ToolInput;

#[derive(serde::Deserialize, schemars::JsonSchema, ToolInput)]
struct Pair(i64, i64);

fn main() {}
