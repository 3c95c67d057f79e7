//! A derived form is asked with a message (its schema is its type's), not with options; a
//! `DynamicForm` is asked with its schema (`DynamicForm::prompt`), not with a message alone.
use typemcp_server::state::{Continuation, DynamicForm, OneOf, Round, Step};
use typemcp_server::ElicitForm;

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(custom: DynamicForm)]
    Custom,
}

async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(FlowAsking::Confirming { confirm: OneOf::prompt("Deploy?", [true, false]) })
}

async fn custom(round: Round<Flow>) -> Step<Flow, String> {
    round.ask(FlowAsking::Custom { custom: "Fill it in.".into() })
}

fn main() {
    let _ = (deploy, custom);
}
