use std::collections::HashMap;

use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Labels {
    labels: HashMap<String, String>,
}

fn main() {}
