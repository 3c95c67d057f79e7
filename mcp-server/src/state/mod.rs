//! `requestState` on the server: the signer and its binding policy ([`RequestStateSigner`]),
//! verification of every echoed state before a handler runs, the check of every state a
//! handler returns, and the typed multi-round API ([`Round`], [`Step`], [`Continuation`]),
//! with every kind of question ([`Awaitable`]: derived forms, [`UrlVisit`], [`OneOf`],
//! [`DynamicForm`], and the deprecated `Sampled` and `Roots`) and what each is asked with
//! ([`Message`], [`UrlVisitPrompt`], [`Choice`], [`DynamicFormPrompt`]), and single use
//! ([`single_use`]).
//!
#![doc = include_str!("../docs/multi_round.md")]

mod caps;
mod envelope;
mod inputs;
mod kinds;
mod policy;
mod question;
mod round;
pub mod single_use;
mod verify;

/// What signing, binding, expiry, sealing, single use, key rings and authentication each
/// protect against, and what they do not.
///
#[doc = include_str!("../docs/threat_model.md")]
pub mod threat_model {}

pub use caps::QuestionKind;
pub use envelope::Answers;
pub use inputs::{InputResponses, RawInputResponses, RequestState};
#[allow(deprecated)]
pub use kinds::{
    Choice, DynamicForm, DynamicFormPrompt, OneOf, Roots, Sampled, UrlVisit, UrlVisitPrompt,
};
pub use policy::{BindingContext, RequestStateSigner};
#[doc(hidden)]
pub use question::derive_support;
pub use question::{AskError, Awaitable, Message, Question, QuestionPrompt, Reply};
pub use round::{Continuation, Round, Step};
pub use typemcp_macros::Continuation;

pub(crate) use caps::{merge_capability, missing_capability};
pub(crate) use verify::{
    Minted, StateContext, check_input_responses, check_outgoing, verify_incoming,
};
