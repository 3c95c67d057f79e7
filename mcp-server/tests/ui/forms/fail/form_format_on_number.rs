use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Event {
    #[form(format = "date")]
    year: u16,
}

fn main() {}
