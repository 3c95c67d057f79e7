use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Version {
    version: (u8, u8),
}

fn main() {}
