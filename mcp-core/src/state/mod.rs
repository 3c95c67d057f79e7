//! Signed `requestState` tokens.
//!
//! A multi-round handler's position travels to the client inside `requestState` and comes
//! back attacker-controlled. [`StateSigner`] signs it with HMAC-SHA256 and verifies it on the
//! way back, in constant time. The signature covers:
//!
//! - the **payload** (the handler's serialized state; signed, *not encrypted*: it travels in
//!   the clear, so it must never hold a secret);
//! - the **binding** ([`Binding`]): by default the caller, the method, the tool / prompt /
//!   resource, and a digest of the canonicalised arguments, so a state minted for one call
//!   resumes no other;
//! - the **expiry** (ten minutes by default) and the **key id**;
//! - the **secret** (at least 32 bytes).
//!
//! Neither binding nor expiry makes a state single-use: the same caller can replay it inside
//! its window. A state that must be consumed once needs that enforced by the server.
//!
//! Token format: `mcp1.<key id>.<expiry, unix seconds>.<binding hint>.<payload>.<tag>`, with
//! the last three in unpadded base64url. The binding hint is 8 bytes of the binding's
//! SHA-256, so a log can tell "bound to another call" from "forged".

mod binding;
mod canonical;
mod key;
mod signer;

pub use binding::{Binding, BindingRequest};
pub use canonical::canonical_json;
pub use key::{KeyError, SigningKey};
pub use signer::{Clock, StateError, StateSigner};
