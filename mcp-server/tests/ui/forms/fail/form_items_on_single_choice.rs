use typemcp_server::{ElicitForm, FormChoice};

#[derive(FormChoice)]
enum Color {
    Red,
    Green,
}

#[derive(ElicitForm)]
struct Paint {
    #[form(min_items = 1)]
    color: Color,
}

fn main() {}
