use typemcp_server::tool;

/// Exports everything.
#[tool(task = "sometimes")]
async fn export() -> String {
    "done".into()
}

/// Exports again.
#[tool(task = true)]
async fn export_again() -> String {
    "done".into()
}

fn main() {}
