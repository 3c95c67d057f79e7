use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Point(i32, i32);

fn main() {}
