use typemcp_server::ElicitForm;

enum Priority {
    Low,
    High,
}

#[derive(ElicitForm)]
struct Ticket {
    title: String,
    priority: Priority,
}

fn main() {}
