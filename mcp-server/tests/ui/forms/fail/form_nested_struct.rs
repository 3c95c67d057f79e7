use typemcp_server::ElicitForm;

struct Address {
    street: String,
    city: String,
}

#[derive(ElicitForm)]
struct Signup {
    name: String,
    address: Address,
}

fn main() {}
