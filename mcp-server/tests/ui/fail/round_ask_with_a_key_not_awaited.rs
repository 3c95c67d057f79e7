//! Only the questions the next state awaits can be asked: a key it does not await (here one
//! another state awaits) does not compile.
use typemcp_server::state::{Continuation, Round, Step};
use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(ElicitForm)]
struct Rollout {
    replicas: u8,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(rollout: Rollout)]
    Configuring,
}

async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(FlowAsking::Confirming {
        confirm: "Deploy?".into(),
        rollout: "How should it roll out?".into(),
    })
}

fn main() {
    let _ = deploy;
}
