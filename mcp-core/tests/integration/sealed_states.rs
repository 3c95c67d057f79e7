//! Sealed states: the client cannot read the payload, and every field of a sealed token is
//! bound, so each tamper is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{T0, at, deploy, key, part, sealed, spellings_of, with_part};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use typemcp_core::state::{KeyRing, Protection, StateError, StateSigner};

/// What a handler must not show its client.
const SECRET: &[u8] =
    br#"{"customer":"cus_8f3a91","unit_price_cents":129900,"approver":"ops-lead"}"#;

fn sealing(now: u64) -> StateSigner {
    at(key(1), now).with_protection(Protection::Sealed)
}

/// `token` with `change` applied to the bytes of its base64 field `index`.
fn with_bytes(token: &str, index: usize, change: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = URL_SAFE_NO_PAD.decode(part(token, index)).unwrap();
    change(&mut bytes);
    with_part(token, index, &URL_SAFE_NO_PAD.encode(bytes))
}

#[test]
fn the_payload_is_not_readable_in_a_sealed_token() {
    let binding = deploy("staging");
    let token = sealing(T0).sign(SECRET, Some(&binding));
    for spelling in spellings_of(SECRET) {
        assert!(!token.contains(&spelling), "{token} shows {spelling}");
    }
    // Not even a fragment: no 6 bytes of the plaintext in the decoded ciphertext.
    let ciphertext = URL_SAFE_NO_PAD
        .decode(part(&token, sealed::CIPHERTEXT))
        .unwrap();
    for window in SECRET.windows(6) {
        assert!(!ciphertext.windows(6).any(|w| w == window), "{window:?}");
    }
    // Only the length shows: the plaintext's plus the 16-byte tag.
    assert_eq!(ciphertext.len(), SECRET.len() + 16);
    assert_eq!(sealing(T0).verify(&token, Some(&binding)).unwrap(), SECRET);
}

#[test]
fn the_same_check_finds_the_payload_in_a_signed_token() {
    // The check above can fail: in signed mode the payload shows, base64-encoded.
    let token = at(key(1), T0).sign(SECRET, None);
    assert!(
        spellings_of(SECRET)
            .iter()
            .any(|spelling| token.contains(spelling))
    );
}

#[test]
fn the_same_state_sealed_twice_gives_unrelated_ciphertexts() {
    let signer = sealing(T0);
    let a = signer.sign(SECRET, None);
    let b = signer.sign(SECRET, None);
    assert_ne!(part(&a, sealed::NONCE), part(&b, sealed::NONCE));
    let (a, b) = (
        URL_SAFE_NO_PAD
            .decode(part(&a, sealed::CIPHERTEXT))
            .unwrap(),
        URL_SAFE_NO_PAD
            .decode(part(&b, sealed::CIPHERTEXT))
            .unwrap(),
    );
    // Different nonces, different keystreams: (almost) no byte in common at any position.
    let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
    assert!(same < 8, "{same} of {} bytes equal", a.len());
}

#[test]
fn every_tamper_of_each_field_is_refused() {
    let binding = deploy("staging");
    // Two ids for the same key: the key id is bound too, not only used to find the key.
    let ring = KeyRing::new("a", key(1))
        .unwrap()
        .with_verifying_key("b", key(1))
        .unwrap()
        .with_verifying_key("c", key(2))
        .unwrap();
    let signer = StateSigner::from_ring(ring)
        .with_protection(Protection::Sealed)
        .with_clock(crate::common::clock(T0).0);
    let token = signer.sign(SECRET, Some(&binding));
    let verify = |token: &str| signer.verify(token, Some(&binding));
    assert_eq!(verify(&token).unwrap(), SECRET);

    // Key id: another id of the same key, another key, an unknown id.
    for (id, expected) in [
        ("b", StateError::BadSignature),
        ("c", StateError::BadSignature),
        ("d", StateError::UnknownKey),
    ] {
        let forged = with_part(&token, sealed::KID, &URL_SAFE_NO_PAD.encode(id));
        assert_eq!(verify(&forged), Err(expected), "key id {id}");
    }
    // Expiry: earlier or later, within the window.
    for expiry in [T0 + 1, T0 + 599, T0 + 601] {
        let forged = with_part(&token, sealed::EXPIRY, &expiry.to_string());
        assert_eq!(verify(&forged), Err(StateError::BadSignature), "{expiry}");
    }
    // Nonce: every bit.
    for bit in 0..24 * 8 {
        let forged = with_bytes(&token, sealed::NONCE, |n| n[bit / 8] ^= 1 << (bit % 8));
        assert_eq!(verify(&forged), Err(StateError::BadSignature), "bit {bit}");
    }
    // Ciphertext and tag: every bit, every truncation, an extension.
    let len = SECRET.len() + 16;
    for bit in 0..len * 8 {
        let forged = with_bytes(&token, sealed::CIPHERTEXT, |c| c[bit / 8] ^= 1 << (bit % 8));
        assert_eq!(verify(&forged), Err(StateError::BadSignature), "bit {bit}");
    }
    for keep in 0..len {
        let forged = with_bytes(&token, sealed::CIPHERTEXT, |c| c.truncate(keep));
        assert_eq!(verify(&forged), Err(StateError::BadSignature), "{keep}");
    }
    let forged = with_bytes(&token, sealed::CIPHERTEXT, |c| c.push(0));
    assert_eq!(verify(&forged), Err(StateError::BadSignature));
    // The ciphertext of another state, spliced in.
    let other = signer.sign(
        br#"{"customer":"cus_8f3a91","unit_price_cents":1}"#,
        Some(&binding),
    );
    let spliced = with_part(&token, sealed::CIPHERTEXT, part(&other, sealed::CIPHERTEXT));
    assert_eq!(verify(&spliced), Err(StateError::BadSignature));
    // Version: the signed layout needs another number of fields; other versions are unknown.
    for version in ["mcp3", "mcp2", "MCP3S"] {
        let forged = with_part(&token, 0, version);
        assert!(
            matches!(verify(&forged), Err(StateError::Malformed(_))),
            "{version}"
        );
    }
    // Binding: another caller, tool, arguments, or none.
    for other in [
        deploy("production"),
        crate::common::bind(
            Some("bob"),
            "tools/call",
            "deploy",
            serde_json::json!({"target": "staging"}),
        ),
    ] {
        assert_eq!(
            signer.verify(&token, Some(&other)),
            Err(StateError::BadSignature)
        );
    }
    assert_eq!(signer.verify(&token, None), Err(StateError::BadSignature));
}

#[test]
fn a_sealed_token_does_not_open_as_a_signed_one_or_under_the_other_subkey() {
    // The same key's signing and sealing subkeys differ: a sealed token re-labelled as
    // signed, with its ciphertext as payload and a 16-byte nonce, does not verify.
    let signer = sealing(T0);
    let token = signer.sign(b"x", None);
    let ciphertext = URL_SAFE_NO_PAD
        .decode(part(&token, sealed::CIPHERTEXT))
        .unwrap();
    let (payload, tag) = ciphertext.split_at(1);
    let relabelled = format!(
        "mcp3.{}.{}.{}.{}.{}",
        part(&token, sealed::KID),
        part(&token, sealed::EXPIRY),
        URL_SAFE_NO_PAD.encode([0u8; 16]),
        URL_SAFE_NO_PAD.encode(payload),
        URL_SAFE_NO_PAD.encode(tag),
    );
    assert_eq!(
        signer.verify(&relabelled, None),
        Err(StateError::BadSignature)
    );
}
