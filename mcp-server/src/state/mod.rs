//! `requestState` on the server: the signer and its binding policy ([`RequestStateSigner`]),
//! verification of every echoed state before a handler runs, the check of every state a
//! handler returns, and the typed multi-round API ([`Round`], [`Step`], [`Continuation`]).
//!
#![doc = include_str!("../docs/multi_round.md")]

mod inputs;
mod policy;
mod round;
mod verify;

pub use inputs::{Awaitable, InputResponses, RequestState, Roots, Sampled};
pub use mcp_macros::Continuation;
pub use policy::{BindingContext, RequestStateSigner};
pub use round::{Continuation, Question, Round, Step};

pub(crate) use verify::{StateContext, check_input_responses, check_outgoing, verify_incoming};
