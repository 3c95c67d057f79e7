use typemcp_server::tool;

#[tool(read_only, destructive)]
async fn wipe() -> &'static str {
    "done"
}

fn main() {}
