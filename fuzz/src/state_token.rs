//! `requestState` verification in every mode: signed and sealed tokens, a key ring with a
//! minting key, a verifying key and a retired key, a fixed binding, and key rings and keys
//! read from text.
//!
//! The first byte picks what the rest is:
//!
//! - `0`: a token, verified by every signer. Only the tokens of [`SEED_PAYLOADS`] (minted
//!   at [`NOW`](crate::fixtures::NOW) by these keys, as the seeds are) can verify.
//! - `1`: edits of one of the tokens minted at start-up (byte changes, insertions,
//!   deletions, truncation, parts swapped, copied from another token or repeated), then a
//!   binding. The result verifies only if it is, exactly, a token minted under that binding.
//! - `2`: key ring text ([`KeyRing::parse`]); a ring that parses mints tokens that verify,
//!   in both modes.
//! - `3`: a base64 key ([`SigningKey::from_base64`]), the same.

use std::sync::OnceLock;

use typemcp_core::state::{Binding, KeyRing, Protection, SigningKey, StateError, StateSigner};

use crate::fixtures::{NOW, clock};

/// The payloads the seed tokens carry: the only payloads a verifying token can have.
pub const SEED_PAYLOADS: [&[u8]; 3] = [b"", b"{\"step\":1}", b"price=1200"];

/// The binding of the bound signer (and of some seeds).
pub const BOUND: &[&str] = &["tools/call", "deploy"];

/// Keys by id: `a` mints, `b` verifies, `old` retired before [`NOW`].
pub const KEYS: [(&str, [u8; 32]); 3] = [("a", [1u8; 32]), ("b", [2u8; 32]), ("old", [9u8; 32])];

fn key(bytes: [u8; 32]) -> SigningKey {
    SigningKey::new(bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// The ring of [`KEYS`]: `a` mints, `b` verifies, `old` retired at `NOW - 1`.
pub fn ring() -> KeyRing {
    let [(a, ka), (b, kb), (old, kold)] = KEYS;
    KeyRing::new(a, key(ka))
        .and_then(|r| r.with_verifying_key(b, key(kb)))
        .and_then(|r| r.with_verifying_key(old, key(kold)))
        .and_then(|r| r.with_retired_at(old, NOW - 1))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A signer of `ring` in `mode`, its clock at `NOW`.
pub fn signer(ring: KeyRing, mode: Protection) -> StateSigner {
    StateSigner::from_ring(ring)
        .with_protection(mode)
        .with_clock(clock())
}

/// A signer whose only key is `id`, minting in `mode`.
pub fn single(id: &str, mode: Protection) -> StateSigner {
    let (id, bytes) = KEYS
        .into_iter()
        .find(|(k, _)| *k == id)
        .unwrap_or_else(|| panic!("no key {id}"));
    let ring = KeyRing::new(id, key(bytes)).unwrap_or_else(|e| panic!("{e}"));
    signer(ring, mode)
}

/// Every signer the tokens are verified by.
fn verifiers() -> &'static [StateSigner] {
    static VERIFIERS: OnceLock<Vec<StateSigner>> = OnceLock::new();
    VERIFIERS.get_or_init(|| {
        vec![
            signer(ring(), Protection::Signed),
            signer(ring(), Protection::Sealed),
            single("b", Protection::Signed),
            signer(ring(), Protection::Signed).bind_to(Binding::from_parts(BOUND)),
            signer(ring(), Protection::Sealed).with_max_token_bytes(96),
        ]
    })
}

/// A token minted at start-up: its text, the binding it was minted under, and what it
/// verifies to under the ring ([`StateError::RetiredKey`] for the retired key).
struct Minted {
    token: String,
    binding: Binding,
    expected: Result<Vec<u8>, StateError>,
}

fn minted() -> &'static [Minted] {
    static MINTED: OnceLock<Vec<Minted>> = OnceLock::new();
    MINTED.get_or_init(|| {
        let mut out = Vec::new();
        for mode in [Protection::Signed, Protection::Sealed] {
            for (id, expected) in [
                ("a", None),
                ("b", None),
                ("old", Some(StateError::RetiredKey)),
            ] {
                for (payload, binding) in [
                    (SEED_PAYLOADS[1], Binding::none()),
                    (SEED_PAYLOADS[2], Binding::from_parts(BOUND)),
                ] {
                    let token = single(id, mode).sign(payload, Some(&binding));
                    let expected = expected.clone().map_or(Ok(payload.to_vec()), Err);
                    out.push(Minted {
                        token,
                        binding,
                        expected,
                    });
                }
            }
        }
        out
    })
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    match selector % 4 {
        0 => arbitrary_token(&String::from_utf8_lossy(rest)),
        1 => mutated_token(rest),
        2 => key_ring_text(&String::from_utf8_lossy(rest)),
        _ => key_text(&String::from_utf8_lossy(rest)),
    }
}

/// Any text: refused, unless it is a seed token.
fn arbitrary_token(token: &str) {
    for verifier in verifiers() {
        for binding in [
            None,
            Some(Binding::none()),
            Some(Binding::from_parts(BOUND)),
        ] {
            match verifier.verify_state(token, binding.as_ref()) {
                Ok(state) => {
                    assert!(
                        SEED_PAYLOADS.contains(&state.payload.as_slice()),
                        "forged: {token:?} verified to {:?}",
                        state.payload
                    );
                    assert!(state.expires_at >= NOW, "{token:?}");
                }
                Err(StateError::TooLarge { len, max }) => {
                    assert!(len > max && len == token.len());
                }
                Err(_) => {}
            }
        }
    }
}

/// Edits of a minted token, driven by `ops`: verifies only as a token minted under the
/// binding used.
fn mutated_token(ops: &[u8]) {
    let all = minted();
    let Some((&pick, mut ops)) = ops.split_first() else {
        return;
    };
    let original = &all[usize::from(pick) % all.len()];
    let mut bytes = original.token.as_bytes().to_vec();
    let mut binding = original.binding.clone();
    while let [op, a, b, tail @ ..] = ops {
        ops = tail;
        let len = bytes.len().max(1);
        let at = usize::from(*a) % len;
        match op % 8 {
            0 if !bytes.is_empty() => bytes[at] = *b,
            1 => bytes.insert(at.min(bytes.len()), *b),
            2 if !bytes.is_empty() => {
                bytes.remove(at);
            }
            3 => bytes.truncate(at),
            4 => bytes = swap_parts(&bytes, usize::from(*a), usize::from(*b)),
            5 => {
                let other = &all[usize::from(*b) % all.len()].token;
                bytes = copy_part(&bytes, other.as_bytes(), usize::from(*a));
            }
            6 => bytes = repeat_part(&bytes, usize::from(*a)),
            _ => {
                // The rest is the binding's material.
                binding = Binding::from_parts([tail]);
                break;
            }
        }
    }
    let Ok(token) = String::from_utf8(bytes) else {
        return;
    };
    let verifier = &verifiers()[0];
    let result = verifier.verify(&token, Some(&binding));
    let genuine = all
        .iter()
        .find(|m| m.token == token && m.binding == binding);
    match (result, genuine) {
        (result, Some(minted)) => assert_eq!(result, minted.expected, "{token}"),
        (Ok(payload), None) => panic!("an edited token verified: {token:?} -> {payload:?}"),
        (Err(_), None) => {}
    }
}

fn parts(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split(|b| *b == b'.').map(<[u8]>::to_vec).collect()
}

fn swap_parts(bytes: &[u8], i: usize, j: usize) -> Vec<u8> {
    let mut parts = parts(bytes);
    let n = parts.len();
    parts.swap(i % n, j % n);
    parts.join(&b'.')
}

fn copy_part(bytes: &[u8], other: &[u8], i: usize) -> Vec<u8> {
    let mut parts = parts(bytes);
    let theirs = self::parts(other);
    let (n, m) = (parts.len(), theirs.len());
    parts[i % n] = theirs[i % m].clone();
    parts.join(&b'.')
}

fn repeat_part(bytes: &[u8], i: usize) -> Vec<u8> {
    let mut parts = parts(bytes);
    let at = i % parts.len();
    let copy = parts[at].clone();
    parts.insert(at, copy);
    parts.join(&b'.')
}

/// A ring that parses works: its first key mints, every unretired key verifies.
fn key_ring_text(text: &str) {
    let Ok(ring) = KeyRing::parse(text) else {
        return;
    };
    let ids = ring
        .key_ids()
        .iter()
        .map(|id| (*id).to_owned())
        .collect::<Vec<_>>();
    assert_eq!(ids.first().map(String::as_str), Some(ring.minting_key_id()));
    assert_eq!(ring.retired_at(ring.minting_key_id()), None);
    let printed = format!("{ring:?}");
    for id in &ids {
        assert!(printed.contains(&format!("{id:?}")), "{printed}");
    }
    round_trip(signer(ring, Protection::Signed));
}

/// A key that decodes works.
fn key_text(text: &str) {
    if let Ok(key) = SigningKey::from_base64(text) {
        assert_eq!(format!("{key:?}"), "SigningKey(<redacted>)");
        round_trip(signer(
            KeyRing::new("k", key).unwrap_or_else(|e| panic!("{e}")),
            Protection::Signed,
        ));
    }
}

fn round_trip(signer: StateSigner) {
    let binding = Binding::from_parts(BOUND);
    for mode in [Protection::Signed, Protection::Sealed] {
        let signer = signer.clone().with_protection(mode);
        let token = signer.sign(b"state", Some(&binding));
        assert_eq!(signer.verify(&token, Some(&binding)), Ok(b"state".to_vec()));
        assert_eq!(
            signer.verify(&token, Some(&Binding::none())),
            Err(StateError::BadSignature)
        );
    }
}
