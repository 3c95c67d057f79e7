use typemcp_server::tool;

/// Echoes its input.
#[tool]
async fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
