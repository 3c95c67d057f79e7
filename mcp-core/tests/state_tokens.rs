//! Security properties of signed `requestState` tokens: every way a token can be forged,
//! replayed elsewhere, or outlive its window is refused, with the reason kept for logs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_core::state::{Binding, BindingRequest, KeyError, SigningKey, StateError, StateSigner};
use serde_json::{Value, json};

fn key(byte: u8) -> SigningKey {
    SigningKey::new([byte; 32]).expect("32 bytes")
}

fn bind(subject: Option<&str>, method: &str, target: &str, arguments: Value) -> Binding {
    Binding::derive(&BindingRequest {
        subject,
        method,
        target,
        arguments: &arguments,
    })
}

fn deploy(target: &str) -> Binding {
    bind(
        Some("ann"),
        "tools/call",
        "deploy",
        json!({ "target": target }),
    )
}

/// `token` with its dot-separated part `index` replaced.
fn with_part(token: &str, index: usize, part: &str) -> String {
    let mut parts: Vec<&str> = token.split('.').collect();
    parts[index] = part;
    parts.join(".")
}

#[test]
fn a_token_verifies_under_the_binding_it_was_minted_for() {
    let signer = StateSigner::new(key(1));
    let token = signer.sign(br#"{"step":"confirm"}"#, Some(&deploy("staging")));
    assert_eq!(
        signer.verify(&token, Some(&deploy("staging"))).unwrap(),
        br#"{"step":"confirm"}"#
    );
}

#[test]
fn a_tampered_payload_is_refused() {
    let signer = StateSigner::new(key(1));
    let token = signer.sign(br#"{"approved":false}"#, Some(&deploy("staging")));
    let forged = with_part(&token, 4, &URL_SAFE_NO_PAD.encode(br#"{"approved":true}"#));
    assert_eq!(
        signer.verify(&forged, Some(&deploy("staging"))),
        Err(StateError::BadSignature)
    );
}

#[test]
fn a_tampered_signature_is_refused() {
    let signer = StateSigner::new(key(1));
    let token = signer.sign(b"x", None);
    let mut tag = URL_SAFE_NO_PAD
        .decode(token.split('.').nth(5).unwrap())
        .unwrap();
    tag[0] ^= 1;
    let forged = with_part(&token, 5, &URL_SAFE_NO_PAD.encode(tag));
    assert_eq!(signer.verify(&forged, None), Err(StateError::BadSignature));
    // The conformance suite's tampering: text appended to the token.
    assert!(signer.verify(&format!("{token}-TAMPERED"), None).is_err());
}

#[test]
fn a_truncated_token_is_refused() {
    let signer = StateSigner::new(key(1));
    let token = signer.sign(b"payload", None);
    for len in [0, 4, token.len() / 2, token.len() - 1] {
        assert!(signer.verify(&token[..len], None).is_err(), "length {len}");
    }
    for malformed in ["mcp1.x", "not a token at all"] {
        let result = signer.verify(malformed, None);
        assert!(
            matches!(result, Err(StateError::Malformed(_))),
            "{result:?}"
        );
    }
}

#[test]
fn a_token_from_another_key_is_refused() {
    let minted = StateSigner::new(key(1)).sign(b"x", None);
    assert_eq!(
        StateSigner::new(key(2)).verify(&minted, None),
        Err(StateError::BadSignature)
    );
    let other_id = StateSigner::new(key(2)).with_key_id("2").sign(b"x", None);
    assert_eq!(
        StateSigner::new(key(1)).verify(&other_id, None),
        Err(StateError::UnknownKey)
    );
}

#[test]
fn an_expired_token_is_refused() {
    let now = Arc::new(AtomicU64::new(1_000_000));
    let clock = {
        let now = Arc::clone(&now);
        Arc::new(move || now.load(Ordering::SeqCst))
    };
    let signer = StateSigner::new(key(1))
        .with_ttl(Duration::from_secs(600))
        .with_clock(clock);
    let token = signer.sign(b"x", None);
    now.store(1_000_600, Ordering::SeqCst);
    assert!(
        signer.verify(&token, None).is_ok(),
        "valid up to its expiry"
    );
    now.store(1_000_601, Ordering::SeqCst);
    assert_eq!(signer.verify(&token, None), Err(StateError::Expired));
    // Extending the expiry in the token breaks the signature.
    let extended = with_part(&token, 2, "9999999999");
    assert_eq!(
        signer.verify(&extended, None),
        Err(StateError::BadSignature)
    );
}

#[test]
fn another_tool_caller_arguments_or_method_is_refused() {
    let signer = StateSigner::new(key(1));
    let token = signer.sign(b"confirmed", Some(&deploy("staging")));
    let staging = json!({ "target": "staging" });
    let others = [
        (Some("ann"), "tools/call", "destroy", staging.clone()),
        (Some("bob"), "tools/call", "deploy", staging.clone()),
        (
            Some("ann"),
            "tools/call",
            "deploy",
            json!({ "target": "production" }),
        ),
        (Some("ann"), "prompts/get", "deploy", staging.clone()),
        (None, "tools/call", "deploy", staging),
    ];
    for (subject, method, target, arguments) in others {
        let other = bind(subject, method, target, arguments);
        assert_eq!(
            signer.verify(&token, Some(&other)),
            Err(StateError::BindingMismatch)
        );
    }
}

#[test]
fn a_forged_binding_hint_still_fails_the_signature() {
    let signer = StateSigner::new(key(1));
    let token = signer.sign(b"x", Some(&deploy("staging")));
    let forged = with_part(
        &token,
        3,
        &URL_SAFE_NO_PAD.encode(deploy("production").hint()),
    );
    assert_eq!(
        signer.verify(&forged, Some(&deploy("production"))),
        Err(StateError::BadSignature)
    );
}

#[test]
fn oversized_tokens_are_refused_before_decoding() {
    let signer = StateSigner::new(key(1)).with_max_token_bytes(64);
    let huge = "A".repeat(10_000);
    assert_eq!(
        signer.verify(&huge, None),
        Err(StateError::TooLarge {
            len: 10_000,
            max: 64
        })
    );
}

#[test]
fn previous_keys_keep_verifying_during_rotation() {
    let old = StateSigner::new(key(1)).with_key_id("2026-10");
    let token = old.sign(b"x", None);
    let rotated = StateSigner::new(key(2))
        .with_key_id("2026-11")
        .with_previous_key("2026-10", key(1));
    assert_eq!(rotated.verify(&token, None).unwrap(), b"x");
    assert!(
        rotated
            .sign(b"y", None)
            .contains(&URL_SAFE_NO_PAD.encode("2026-11"))
    );
}

#[test]
fn a_fixed_binding_applies_when_none_is_given() {
    let signer = StateSigner::new(key(1)).bind_to(Binding::from_parts(["tenant-7"]));
    let token = signer.sign(b"x", None);
    assert!(signer.verify(&token, None).is_ok());
    assert_eq!(
        StateSigner::new(key(1)).verify(&token, None),
        Err(StateError::BindingMismatch),
        "a signer without that binding refuses it"
    );
}

#[test]
fn keys_shorter_than_32_bytes_are_refused_and_never_printed() {
    assert_eq!(
        SigningKey::new([1u8; 31]).err(),
        Some(KeyError::TooShort(31))
    );
    assert!(SigningKey::from_base64("c2hvcnQ=").is_err());
    assert_eq!(
        SigningKey::from_base64("!!!").err(),
        Some(KeyError::NotBase64)
    );
    let b64 = base64::engine::general_purpose::STANDARD.encode([9u8; 32]);
    let k = SigningKey::from_base64(&b64).unwrap();
    assert_eq!(format!("{k:?}"), "SigningKey(<redacted>)");
    let signer = StateSigner::new(k);
    assert!(!format!("{signer:?}").contains("9, 9"));
    assert!(StateSigner::generate().is_ok());
}
