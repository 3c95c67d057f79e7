//! The one-question flow many tests ask: a [`Confirm`] form (`ok: bool`) in one round,
//! [`Flow::Confirming`].

use serde::{Deserialize, Serialize};
use typemcp_server::ElicitForm;
use typemcp_server::state::Continuation;

/// Go ahead?
#[derive(ElicitForm, Serialize, Debug)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}

/// One round: a confirmation under the key `confirm`.
#[derive(Serialize, Deserialize, Clone, Continuation)]
pub enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
}
