//! A handler matches exactly what it can see: accepted, declined or cancelled, with no
//! catch-all arm (a missing or malformed answer is asked again by `Round` itself).
#![deny(unreachable_patterns)]

use typemcp_server::state::{Continuation, OneOf, Reply, Round, Step, UrlVisit};
use typemcp_server::{tool, ElicitForm, Server};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(approval: UrlVisit, region: OneOf<String>)]
    Approving { change: u64 },
}

/// Every reply handled, none twice.
#[tool]
async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming { confirm: "Deploy?".into() }),
        Some(FlowAnswered::Confirming { confirm: Reply::Accepted(Confirm { ok: true }) }) => {
            round.ask(FlowAsking::Approving {
                change: 7,
                approval: UrlVisit::prompt("Approve.", "https://example.com/c/7"),
                region: OneOf::prompt("Where?", ["eu".to_owned()]),
            })
        }
        Some(FlowAnswered::Confirming { confirm: Reply::Accepted(Confirm { ok: false }) }) => {
            Step::done("not confirmed")
        }
        Some(FlowAnswered::Confirming { confirm: Reply::Declined }) => Step::done("declined"),
        Some(FlowAnswered::Confirming { confirm: Reply::Cancelled }) => Step::done("cancelled"),
        Some(FlowAnswered::Approving { change, approval, region }) => match (approval, region) {
            (Reply::Accepted(UrlVisit), Reply::Accepted(OneOf(region))) => {
                Step::done(format!("change {change} in {region}"))
            }
            (Reply::Declined | Reply::Cancelled, _) | (_, Reply::Declined | Reply::Cancelled) => {
                Step::done("not approved")
            }
        },
    }
}

fn main() {
    let _ = Server::builder().tool(deploy).build();
}
