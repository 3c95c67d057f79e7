use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Rollout {
    #[form(minimum = 1, maximum = 12, default = 20)]
    replicas: u8,
    #[form(max_length = 5, default = "production")]
    environment: String,
}

fn main() {}
