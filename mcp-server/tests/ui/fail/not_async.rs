use typemcp_server::tool;

/// Says hello.
#[tool]
fn hello(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
