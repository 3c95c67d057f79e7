use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Setting<T> {
    value: T,
}

fn main() {}
