//! A `Step` is built by `Step::done`, `Step::fail` or `Round::ask`: no variant can build an
//! asking step `Round` cannot read back.
use typemcp_server::typemcp_core::protocol::InputRequiredResult;
use typemcp_server::state::{Continuation, Step};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
}

use typemcp_server::ElicitForm;

fn main() {
    let _: Step<Flow, String> = Step::Ask(InputRequiredResult::new(), std::marker::PhantomData);
    let _: Step<Flow, String> = Step::Done("done".to_owned());
}
