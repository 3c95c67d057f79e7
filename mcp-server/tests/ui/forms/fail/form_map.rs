use std::collections::HashMap;

use mcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Labels {
    labels: HashMap<String, String>,
}

fn main() {}
