use std::path::PathBuf;

use mcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Export {
    destination: PathBuf,
}

fn main() {}
