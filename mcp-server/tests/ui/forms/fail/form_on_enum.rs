use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
enum Answer {
    Yes,
    No,
}

fn main() {}
