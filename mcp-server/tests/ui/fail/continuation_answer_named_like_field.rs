//! An awaited answer becomes a field of the answered variant, beside the state's fields: the
//! names must differ (`r#confirm` is `confirm`).

use typemcp_server::ElicitForm;
use typemcp_server::state::Continuation;

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(r#confirm: Confirm)]
    Confirming { confirm: bool },
}

fn main() {
    let _ = FlowAnswered::Confirming { confirm: true };
}
