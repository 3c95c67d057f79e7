use typemcp_server::elicit_form;

#[elicit_form(title = "Sign up")]
struct Signup {
    name: String,
}

fn main() {}
