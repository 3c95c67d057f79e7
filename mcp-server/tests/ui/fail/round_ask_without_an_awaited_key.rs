//! Every question the next state awaits is asked: leaving one out does not compile.
use typemcp_server::state::{Continuation, OneOf, Round, Step};
use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Rollout {
    replicas: u8,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(rollout: Rollout, region: OneOf<String>)]
    Configuring { target: String },
}

async fn configure(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(FlowAsking::Configuring {
        target: "staging".to_owned(),
        rollout: "How should it roll out?".into(),
    })
}

fn main() {
    let _ = configure;
}
