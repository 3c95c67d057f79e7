//! A `OneOf<T>` question is asked with its options (`OneOf::prompt` or `OneOf::titled`), never
//! with a message alone.
use typemcp_server::state::{Continuation, OneOf, Round, Step};

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(region: OneOf<String>)]
    Choosing,
}

async fn pick(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(FlowAsking::Choosing { region: "Which region?".into() })
}

fn main() {
    let _ = pick;
}
