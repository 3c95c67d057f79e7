use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Contact {
    #[form(format = "phone")]
    phone: String,
}

fn main() {}
