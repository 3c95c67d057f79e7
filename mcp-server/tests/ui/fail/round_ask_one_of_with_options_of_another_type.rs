//! The options of a `OneOf<T>` question are `T`s: a `OneOf<u8>` question is not asked with
//! `u16` options, nor with a `Choice` built for another type.
use typemcp_server::state::{Continuation, OneOf, Round, Step};

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(replicas: OneOf<u8>)]
    Sizing,
}

async fn size(round: Round<Flow>, options: Vec<u16>) -> Step<Flow, String> {
    round.ask(FlowAsking::Sizing { replicas: OneOf::prompt("How many replicas?", options) })
}

async fn size_titled(round: Round<Flow>) -> Step<Flow, String> {
    let regions = OneOf::titled("Which region?", [("eu".to_owned(), "Europe")]);
    round.ask(FlowAsking::Sizing { replicas: regions })
}

fn main() {
    let _ = (size, size_titled);
}
