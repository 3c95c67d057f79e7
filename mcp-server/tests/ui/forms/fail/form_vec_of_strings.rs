use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Invite {
    emails: Vec<String>,
}

fn main() {}
