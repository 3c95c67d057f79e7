//! `Continuation` on a struct is refused once; the trait is still implemented.

use typemcp_server::state::Continuation;

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
struct Flow {
    step: u32,
}

fn main() {
    let _ = Flow { step: 1 }.questions();
}
