use typemcp_server::ElicitForm;

struct Guest {
    name: String,
}

#[derive(ElicitForm)]
struct Party {
    guests: Vec<Guest>,
}

fn main() {}
