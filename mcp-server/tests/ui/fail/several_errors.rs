use typemcp_server::tool;

#[tool(nme = "x", title = "X", title = "Y")]
fn x() -> String {
    String::new()
}

fn main() {}
