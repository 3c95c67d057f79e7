//! Sampling and roots are deprecated (SEP-2577): awaiting them warns (denied here).
#![deny(deprecated)]

use typemcp_server::state::{Continuation, Roots, Sampled};

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(greeting: Sampled, roots: Roots)]
    Asking,
}

fn main() {}
