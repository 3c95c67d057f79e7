use typemcp_server::tool;

#[tool(nme = "x")]
async fn x() -> String {
    String::new()
}

fn main() {}
