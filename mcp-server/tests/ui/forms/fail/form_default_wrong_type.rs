use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Rollout {
    #[form(default = "two")]
    replicas: u8,
    #[form(default = 2)]
    dry_run: bool,
}

fn main() {}
