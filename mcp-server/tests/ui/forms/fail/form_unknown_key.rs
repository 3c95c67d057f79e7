use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Signup {
    #[form(placeholder = "Ann")]
    name: String,
}

fn main() {}
