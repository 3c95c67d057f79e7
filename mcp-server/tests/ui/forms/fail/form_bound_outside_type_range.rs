use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Rollout {
    #[form(maximum = 300)]
    replicas: u8,
    #[form(minimum = -1)]
    timeout_secs: u32,
}

fn main() {}
