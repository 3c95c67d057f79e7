use typemcp_server::state::{Continuation, Reply, Round, Step};
use typemcp_server::{tool, ElicitForm};

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

/// Reads `rollout` in the state that only asked `confirm`.
#[tool]
async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming { confirm: "Deploy?".into() }),
        Some(FlowAnswered::Confirming { rollout: Reply::Accepted(plan) }) => {
            Step::done(format!("{} replicas", plan.replicas))
        }
        Some(_) => Step::done("cancelled".to_owned()),
    }
}

fn main() {}
