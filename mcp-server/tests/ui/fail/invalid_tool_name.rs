use typemcp_server::tool;

#[tool(name = "has space")]
async fn search(query: String) -> String {
    query
}

fn main() {}
