use typemcp_server::FormChoice;

#[derive(FormChoice)]
enum Region {
    #[choice(label = "Europe (Frankfurt)")]
    EuCentral,
    UsEast,
}

fn main() {}
