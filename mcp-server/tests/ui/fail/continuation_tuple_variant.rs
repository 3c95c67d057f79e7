use typemcp_server::state::Continuation;
use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm, confirm: Confirm)]
    Confirming,
    Waiting(u64),
}

fn main() {}
