//! Signed or sealed `requestState` tokens.
//!
//! A multi-round handler's position travels to the client inside `requestState` and comes
//! back attacker-controlled. [`StateSigner`] protects it on the way out and verifies it on
//! the way back, in constant time. A token is authenticated over:
//!
//! - the **payload** (the handler's serialized state): readable by the client in signed
//!   mode, encrypted in sealed mode ([`Protection`]);
//! - the **binding** ([`Binding`]): by default the caller, the method, the tool / prompt /
//!   resource, and a digest of the canonicalised arguments, so a state minted for one call
//!   resumes no other;
//! - the **expiry** (ten minutes by default), the **key id** and a **nonce**;
//! - a **key** of the signer's [`KeyRing`] (each at least 32 bytes, from which HKDF derives
//!   separate subkeys for signing and sealing, every copy wiped on drop: [`SigningKey`]).
//!
//! Neither binding nor expiry makes a state single-use: the same caller can replay it inside
//! its window. A state that must be consumed once needs that enforced by the server, with a
//! store of used tokens: every token has exactly one valid spelling and every minting a
//! fresh random nonce, so the token text is a sound key for that store.
//!
//! # Token format (v3)
//!
//! | mode   | token                                                 |
//! |--------|-------------------------------------------------------|
//! | signed | `mcp3.<key id>.<expiry>.<nonce>.<payload>.<tag>`      |
//! | sealed | `mcp3s.<key id>.<expiry>.<nonce>.<ciphertext>`        |
//!
//! The expiry is decimal Unix seconds; every other field is unpadded base64url. Every field
//! is checked byte for byte against its canonical encoding, so a `+` or a leading zero in the
//! expiry, padding, or stray bits in the base64 make the token malformed; tokens longer than
//! the cap are refused before anything is decoded.
//!
//! - **Signed**: a 16-byte random nonce; the tag is HMAC-SHA256 over the domain, key id,
//!   expiry, nonce, binding and payload, each length-prefixed.
//! - **Sealed**: XChaCha20-Poly1305 with a 24-byte random nonce; the associated data is the
//!   domain, key id, expiry and binding, each length-prefixed; the ciphertext ends with the
//!   16-byte Poly1305 tag.
//!
//! What the client can read:
//!
//! | mode   | key id | expiry | payload                   | binding |
//! |--------|--------|--------|---------------------------|---------|
//! | signed | yes    | yes    | yes (base64 of the state) | no      |
//! | sealed | yes    | yes    | its length only           | no      |
//!
//! The binding enters only the MAC or the associated data: a state echoed on another
//! request is refused as a bad signature, indistinguishable from a forgery.
//!
//! # Signed or sealed
//!
//! Both modes are equally unforgeable. Choose **sealed** when the state holds anything the
//! client must not read: internal ids, prices, other users' data, what a later round will
//! check. Choose **signed** when the state is harmless to show and you want tokens you can
//! read while debugging. A signer verifies both modes whichever it mints, so switching
//! loses no state in flight.
//!
//! # Keys and rotation
//!
//! A [`KeyRing`] holds the minting key and the keys that only verify, each with an id the
//! token carries; a verifying key can retire at a set time. It loads from configuration
//! text (`ID:BASE64[:RETIRE_AT]` entries, see [`KeyRing`]). To rotate, put the new key first
//! and keep the old one until every state it minted has expired.
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
mod format;
mod key;
mod mac;
mod nonce;
mod ring;
mod seal;
mod signer;

pub use binding::{Binding, BindingRequest};
pub use canonical::canonical_json;
pub use format::Protection;
pub use key::{KeyError, SigningKey};
pub use ring::{EntryError, KeyRing};
pub use signer::{Clock, StateError, StateSigner, TtlError, VerifiedState};
