use typemcp_server::tool;

#[tool(name = "same")]
async fn first() -> &'static str {
    "first"
}

#[tool(name = "same")]
async fn second() -> &'static str {
    "second"
}

fn main() {}
