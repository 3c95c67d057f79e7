//! A `UrlVisit` question is asked with a message and a URL (`UrlVisit::prompt`), never with a
//! message alone.
use typemcp_server::state::{Continuation, Round, Step, UrlVisit};

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(approval: UrlVisit)]
    Approving { change: u64 },
}

async fn approve(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(FlowAsking::Approving { change: 7, approval: "Approve the change.".into() })
}

fn main() {
    let _ = approve;
}
