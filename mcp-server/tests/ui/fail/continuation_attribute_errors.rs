//! Malformed `#[awaits]` entries and container keys are all reported; the answers that could
//! be read are still there for the handler, which reports nothing more.

use typemcp_server::state::{Continuation, Round, Step};
use typemcp_server::{state::Reply, ElicitForm, tool};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
#[awaits(confirm: Confirm)]
#[continuation(krate = typemcp_server, crate)]
enum Flow {
    #[awaits(confirm Confirm, r#type: Confirm, 5: Confirm)]
    Asking,
}

#[tool]
async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Asking { r#type: "Go?".into() }),
        Some(FlowAnswered::Asking { r#type: Reply::Accepted(confirm) }) => {
            Step::done(confirm.ok.to_string())
        }
        Some(FlowAnswered::Asking { .. }) => Step::done("no".to_owned()),
    }
}

fn main() {}
