use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Pin {
    #[form(min_length = 4)]
    digits: u8,
}

fn main() {}
