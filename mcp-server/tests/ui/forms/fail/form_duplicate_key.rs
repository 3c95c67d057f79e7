use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Signup {
    #[form(title = "Name", title = "Full name")]
    name: String,
}

fn main() {}
