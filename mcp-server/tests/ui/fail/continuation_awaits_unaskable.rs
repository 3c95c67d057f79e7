//! Only what can be asked can be awaited: a form, a URL visit, options or a form built at run
//! time, or the deprecated sampling and roots.
use typemcp_server::state::Continuation;

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(name: String, count: u32)]
    Asking,
}

fn main() {}
