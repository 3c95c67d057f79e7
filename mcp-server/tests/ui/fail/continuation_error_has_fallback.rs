//! A refused variant is reported once: the state enum still implements `Continuation`, and
//! `FlowAnswered` and `FlowAsking` still have their variants, so the handler and the
//! registration report nothing more.

use typemcp_server::state::{Continuation, Round, Step};
use typemcp_server::{state::Reply, ElicitForm, Server, tool};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming { target: String },
    Waiting(u64),
}

#[tool]
async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming { target: "prod".into(), confirm: "Deploy?".into() }),
        Some(FlowAnswered::Confirming { target, confirm: Reply::Accepted(c) }) if c.ok => {
            Step::done(target)
        }
        Some(FlowAnswered::Waiting(seconds)) => Step::done(seconds.to_string()),
        Some(_) => Step::done("cancelled".to_owned()),
    }
}

fn main() {
    let _ = Flow::Waiting(1).questions();
    let _ = Server::builder().tool(deploy).build();
}
