use typemcp_server::tool;

#[tool(name = "a", name = "b")]
async fn x() -> String {
    String::new()
}

fn main() {}
