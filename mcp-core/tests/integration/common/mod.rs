//! Helpers shared by the state token tests: keys, bindings, clocks, and token surgery.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use typemcp_core::state::{Binding, BindingRequest, Clock, Protection, SigningKey, StateSigner};

/// An arbitrary fixed "now".
pub const T0: u64 = 1_800_000_000;

/// Both modes, for tests that must hold in each.
pub const MODES: [Protection; 2] = [Protection::Signed, Protection::Sealed];

/// Field positions of a signed token: `mcp3.<kid>.<expiry>.<nonce>.<payload>.<tag>`.
pub mod signed {
    pub const KID: usize = 1;
    pub const EXPIRY: usize = 2;
    pub const NONCE: usize = 3;
    pub const PAYLOAD: usize = 4;
    pub const TAG: usize = 5;
}

/// Field positions of a sealed token: `mcp3s.<kid>.<expiry>.<nonce>.<ciphertext>`.
pub mod sealed {
    pub const KID: usize = 1;
    pub const EXPIRY: usize = 2;
    pub const NONCE: usize = 3;
    pub const CIPHERTEXT: usize = 4;
}

/// The key whose 32 bytes are all `byte`.
pub fn key(byte: u8) -> SigningKey {
    SigningKey::new([byte; 32]).expect("32 bytes")
}

pub fn bind(subject: Option<&str>, method: &str, target: &str, arguments: Value) -> Binding {
    Binding::derive(&BindingRequest {
        subject,
        method,
        target,
        arguments: &arguments,
    })
}

pub fn deploy(target: &str) -> Binding {
    bind(
        Some("ann"),
        "tools/call",
        "deploy",
        json!({ "target": target }),
    )
}

/// A clock reading `now`, and the handle that moves it.
pub fn clock(now: u64) -> (Clock, Arc<AtomicU64>) {
    let handle = Arc::new(AtomicU64::new(now));
    let read = Arc::clone(&handle);
    (Arc::new(move || read.load(Ordering::SeqCst)), handle)
}

/// A signer of `key` whose clock stands at `now`.
pub fn at(key: SigningKey, now: u64) -> StateSigner {
    StateSigner::new(key).with_clock(clock(now).0)
}

/// `token` with its dot-separated part `index` replaced.
pub fn with_part(token: &str, index: usize, part: &str) -> String {
    let mut parts: Vec<&str> = token.split('.').collect();
    parts[index] = part;
    parts.join(".")
}

pub fn part(token: &str, index: usize) -> &str {
    token.split('.').nth(index).unwrap()
}

/// The token's fields that are base64url, by mode.
pub fn base64_fields(protection: Protection) -> &'static [usize] {
    match protection {
        Protection::Sealed => &[sealed::KID, sealed::NONCE, sealed::CIPHERTEXT],
        _ => &[signed::KID, signed::NONCE, signed::PAYLOAD, signed::TAG],
    }
}

/// Every way `payload` can show up in text: raw, and base64 (standard or URL-safe, padded
/// or not) starting at each of the three byte alignments.
pub fn spellings_of(payload: &[u8]) -> Vec<String> {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let mut out = vec![String::from_utf8_lossy(payload).into_owned()];
    for skip in 0..3 {
        let rest = &payload[skip..];
        for encoded in [
            STANDARD.encode(rest),
            STANDARD_NO_PAD.encode(rest),
            URL_SAFE_NO_PAD.encode(rest),
        ] {
            // Drop the last characters, which depend on how the text ends.
            out.push(encoded[..encoded.len().saturating_sub(4)].to_owned());
        }
    }
    out
}
