//! `UrlElicitation` is a form to `typemcp-core` (with an empty schema): awaited, it would be sent
//! as an empty form instead of a URL. `UrlVisit` is the URL-mode question.
use typemcp_server::typemcp_core::form::UrlElicitation;
use typemcp_server::state::Continuation;

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
enum Checkout {
    #[awaits(pay: UrlElicitation)]
    Paying,
}

fn main() {}
