use typemcp_server::FormChoice;

#[derive(FormChoice)]
enum Size {
    Small,
    Custom(u8),
}

fn main() {}
