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
//! - the **secret** (at least 32 bytes, every copy wiped on drop: [`SigningKey`]).
//!
//! Neither binding nor expiry makes a state single-use: the same caller can replay it inside
//! its window. A state that must be consumed once needs that enforced by the server, for
//! example with a cache of used tokens: each state has exactly one valid spelling, so the
//! token text is a sound cache key.
//!
//! # Token format
//!
//! `mcp2.<key id>.<expiry>.<payload>.<tag>`: the key id, payload and tag in unpadded
//! base64url, the expiry in decimal Unix seconds. Every field is checked byte for byte against
//! its canonical encoding, so a `+` or a leading zero in the expiry, padding, or stray bits in
//! the base64 make the token malformed.
//!
//! A token reveals its key id, its expiry and its payload (base64 of the serialized state).
//! It reveals nothing about its binding: the binding enters only the MAC, so a state echoed
//! on another request is refused as a bad signature, indistinguishable from a forgery.
//!
//! # Lifetime
//!
//! A state verifies from the moment it is minted up to its expiry, and only if that expiry
//! is no later than `now + ttl + skew` ([`StateSigner::with_clock_skew`], five seconds by
//! default): a state minted under a longer TTL, or by an instance whose clock runs ahead,
//! is refused. A clock that cannot be read fails closed ([`Clock`]). TTLs are whole seconds,
//! at least one ([`StateSigner::with_ttl`]).

mod binding;
mod canonical;
mod key;
mod signer;

pub use binding::{Binding, BindingRequest};
pub use canonical::canonical_json;
pub use key::{KeyError, SigningKey};
pub use signer::{Clock, StateError, StateSigner, TtlError};
