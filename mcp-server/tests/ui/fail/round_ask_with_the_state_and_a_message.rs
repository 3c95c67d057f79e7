//! `Round::ask` takes the `<Enum>Asking` the derive generates, the questions inside it: not the
//! state and a message beside it.
use typemcp_server::state::{Continuation, Round, Step};
use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
}

async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(Flow::Confirming, "Deploy?")
}

async fn redeploy(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(Flow::Confirming)
}

fn main() {
    let _ = (deploy, redeploy);
}
