//! A generic state enum is refused once; its uses report nothing more.

use typemcp_server::state::Continuation;
use typemcp_server::{state::Reply, ElicitForm};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow<T> {
    #[awaits(confirm: Confirm)]
    Confirming { value: T },
}

fn read(answered: FlowAnswered<u8>) -> Option<u8> {
    match answered {
        FlowAnswered::Confirming { value, confirm: Reply::Accepted(_) } => Some(value),
        _ => None,
    }
}

fn main() {
    let _ = Flow::Confirming { value: 1u8 }.questions();
    let _ = read;
}
