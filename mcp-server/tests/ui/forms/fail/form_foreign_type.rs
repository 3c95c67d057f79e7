use std::path::PathBuf;

use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Export {
    destination: PathBuf,
}

fn main() {}
