use typemcp_server::ElicitForm;

type Ids = Vec<String>;

#[derive(ElicitForm)]
struct Lookup {
    ids: Ids,
}

fn main() {}
