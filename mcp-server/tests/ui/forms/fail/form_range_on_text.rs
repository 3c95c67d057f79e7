use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Profile {
    #[form(maximum = 120)]
    age: String,
}

fn main() {}
