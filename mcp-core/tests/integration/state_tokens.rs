//! Security properties of `requestState` tokens, in both modes (signed and sealed): every way
//! a token can be forged, re-spelled, replayed elsewhere, or outlive its window is refused,
//! with the reason kept for logs; every minting is unique; a token reveals nothing of its
//! binding; keys are wiped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::common::{
    MODES, T0, at, base64_fields, bind, clock, deploy, key, part, sealed, signed, with_part,
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use proptest::prelude::*;
use serde_json::json;
use typemcp_core::state::{
    Binding, KeyError, Protection, SigningKey, StateError, StateSigner, TtlError,
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A signer of `key(byte)` minting in `mode`.
fn signer(byte: u8, mode: Protection) -> StateSigner {
    StateSigner::new(key(byte)).with_protection(mode)
}

/// The position of the expiry (the same in both modes).
const EXPIRY: usize = signed::EXPIRY;

#[test]
fn a_token_verifies_under_the_binding_it_was_minted_for() {
    for mode in MODES {
        let signer = signer(1, mode);
        let token = signer.sign(br#"{"step":"confirm"}"#, Some(&deploy("staging")));
        assert_eq!(
            signer.verify(&token, Some(&deploy("staging"))).unwrap(),
            br#"{"step":"confirm"}"#,
            "{mode:?}"
        );
        let version = if mode == Protection::Sealed {
            "mcp3s"
        } else {
            "mcp3"
        };
        assert_eq!(part(&token, 0), version);
        assert_eq!(signer.protection(), mode);
    }
    assert_eq!(StateSigner::new(key(1)).protection(), Protection::Signed);
    assert_eq!(Protection::default(), Protection::Signed);
}

#[test]
fn two_mintings_of_the_same_state_differ() {
    for mode in MODES {
        // The same key, payload, binding and second: only the nonce tells them apart.
        let signer = at(key(1), T0).with_protection(mode);
        let tokens: Vec<String> = (0..50)
            .map(|_| signer.sign(b"same", Some(&deploy("staging"))))
            .collect();
        let mut unique = tokens.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), tokens.len(), "{mode:?}: {tokens:?}");
        for token in &tokens {
            assert_eq!(part(token, EXPIRY), (T0 + 600).to_string());
            assert_eq!(
                signer.verify(token, Some(&deploy("staging"))).unwrap(),
                b"same"
            );
        }
    }
}

#[test]
fn a_tampered_payload_is_refused() {
    let signer = signer(1, Protection::Signed);
    let token = signer.sign(br#"{"approved":false}"#, Some(&deploy("staging")));
    let forged = with_part(
        &token,
        signed::PAYLOAD,
        &URL_SAFE_NO_PAD.encode(br#"{"approved":true}"#),
    );
    assert_eq!(
        signer.verify(&forged, Some(&deploy("staging"))),
        Err(StateError::BadSignature)
    );
}

#[test]
fn a_tampered_tag_is_refused() {
    for mode in MODES {
        let signer = signer(1, mode);
        let token = signer.sign(b"x", None);
        // The MAC is the last field; in a sealed token the Poly1305 tag ends the ciphertext.
        let last = token.split('.').count() - 1;
        let mut tag = URL_SAFE_NO_PAD.decode(part(&token, last)).unwrap();
        let end = tag.len() - 1;
        tag[end] ^= 1;
        let forged = with_part(&token, last, &URL_SAFE_NO_PAD.encode(&tag));
        assert_eq!(signer.verify(&forged, None), Err(StateError::BadSignature));
        let short = with_part(&token, last, &URL_SAFE_NO_PAD.encode(&tag[..end]));
        assert_eq!(signer.verify(&short, None), Err(StateError::BadSignature));
        // The conformance suite's tampering: text appended to the token.
        assert!(signer.verify(&format!("{token}-TAMPERED"), None).is_err());
    }
}

#[test]
fn a_truncated_token_is_refused() {
    for mode in MODES {
        let signer = signer(1, mode);
        let token = signer.sign(b"payload", None);
        for len in 0..token.len() {
            assert!(signer.verify(&token[..len], None).is_err(), "length {len}");
        }
    }
    let signer = signer(1, Protection::Signed);
    for malformed in ["mcp3.x", "mcp3s.x", "mcp3s.a.1.b.c.d", "not a token at all"] {
        let result = signer.verify(malformed, None);
        assert!(
            matches!(result, Err(StateError::Malformed(_))),
            "{result:?}"
        );
    }
}

#[test]
fn tokens_of_formats_1_and_2_are_refused() {
    let signer = signer(1, Protection::Signed);
    let token = signer.sign(b"x", None);
    for old in ["mcp1", "mcp2", "MCP3", "mcp3S", "mcp4"] {
        let respelled = format!("{old}.{}", token.split_once('.').unwrap().1);
        assert_eq!(
            signer.verify(&respelled, None),
            Err(StateError::Malformed("unknown version"))
        );
    }
    // An exact format-2 token of this key (its layout: no nonce).
    let v2 = format!(
        "mcp2.MQ.{}.eA.{}",
        T0 + 600,
        URL_SAFE_NO_PAD.encode([0u8; 32])
    );
    assert_eq!(
        at(key(1), T0).verify(&v2, None),
        Err(StateError::Malformed("unknown version"))
    );
}

#[test]
fn a_token_from_another_key_is_refused() {
    for mode in MODES {
        let minted = signer(1, mode).sign(b"x", None);
        assert_eq!(
            signer(2, mode).verify(&minted, None),
            Err(StateError::BadSignature)
        );
        let other_id = signer(2, mode).with_key_id("2").sign(b"x", None);
        assert_eq!(
            signer(1, mode).verify(&other_id, None),
            Err(StateError::UnknownKey)
        );
    }
}

#[test]
fn a_signer_verifies_both_modes_whichever_it_mints() {
    let binding = deploy("staging");
    let signing = at(key(1), T0);
    let sealing = at(key(1), T0).with_protection(Protection::Sealed);
    for minter in [&signing, &sealing] {
        let token = minter.sign(b"in flight", Some(&binding));
        for verifier in [&signing, &sealing] {
            assert_eq!(
                verifier.verify(&token, Some(&binding)).unwrap(),
                b"in flight"
            );
        }
    }
}

#[test]
fn an_expired_token_is_refused() {
    for mode in MODES {
        let (clock, now) = clock(1_000_000);
        let signer = signer(1, mode)
            .with_ttl(Duration::from_secs(600))
            .unwrap()
            .with_clock(clock);
        let token = signer.sign(b"x", None);
        now.store(1_000_600, Ordering::SeqCst);
        let state = signer.verify_state(&token, None).unwrap();
        assert_eq!(state.expires_at, 1_000_600, "valid up to its expiry");
        now.store(1_000_601, Ordering::SeqCst);
        assert_eq!(signer.verify(&token, None), Err(StateError::Expired));
        // Extending the expiry in the token breaks the MAC / the AEAD tag.
        now.store(1_000_000, Ordering::SeqCst);
        let extended = with_part(&token, EXPIRY, "1000300");
        assert_eq!(
            signer.verify(&extended, None),
            Err(StateError::BadSignature)
        );
    }
}

#[test]
fn another_tool_caller_arguments_or_method_is_a_bad_signature() {
    for mode in MODES {
        let signer = signer(1, mode);
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
                Err(StateError::BadSignature)
            );
        }
        assert_eq!(signer.verify(&token, None), Err(StateError::BadSignature));
    }
}

#[test]
fn oversized_tokens_are_refused_before_decoding() {
    for mode in MODES {
        let signer = signer(1, mode).with_max_token_bytes(64);
        let huge = "A".repeat(10_000);
        assert_eq!(
            signer.verify(&huge, None),
            Err(StateError::TooLarge {
                len: 10_000,
                max: 64
            })
        );
        let big = signer.sign(&[7u8; 100], None);
        assert!(matches!(
            signer.verify(&big, None),
            Err(StateError::TooLarge { .. })
        ));
    }
}

#[test]
fn previous_keys_keep_verifying_during_rotation() {
    for mode in MODES {
        let old = signer(1, mode).with_key_id("2026-10");
        let token = old.sign(b"x", None);
        let rotated = signer(2, mode)
            .with_key_id("2026-11")
            .with_previous_key("2026-10", key(1));
        assert_eq!(rotated.verify(&token, None).unwrap(), b"x");
        assert_eq!(
            part(&rotated.sign(b"y", None), 1),
            URL_SAFE_NO_PAD.encode("2026-11")
        );
        assert_eq!(rotated.key_ring().key_ids(), ["2026-11", "2026-10"]);
    }
}

#[test]
fn a_fixed_binding_applies_when_none_is_given() {
    for mode in MODES {
        let signer = signer(1, mode).bind_to(Binding::from_parts(["tenant-7"]));
        let token = signer.sign(b"x", None);
        assert!(signer.verify(&token, None).is_ok());
        assert_eq!(
            StateSigner::new(key(1)).verify(&token, None),
            Err(StateError::BadSignature),
            "a signer without that binding refuses it"
        );
    }
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
    let signer = StateSigner::new(k).with_protection(Protection::Sealed);
    let printed = format!("{signer:?}");
    assert!(
        !printed.contains("9, 9") && !printed.contains("CQkJ"),
        "{printed}"
    );
    assert!(
        printed.contains("\"1\"") && printed.contains("Sealed"),
        "{printed}"
    );
    assert!(StateSigner::generate().is_ok());
}

#[test]
fn keys_decode_from_standard_and_url_safe_base64() {
    // 0xfb 0xff bytes spell `+/` in standard base64 and `-_` in URL-safe.
    let bytes = [0xfb_u8; 33];
    let standard = base64::engine::general_purpose::STANDARD.encode(bytes);
    let url_safe = URL_SAFE_NO_PAD.encode(bytes);
    for mode in MODES {
        let reference = StateSigner::new(SigningKey::new(bytes).unwrap())
            .with_protection(mode)
            .sign(b"x", None);
        for text in [
            standard.as_str(),
            url_safe.as_str(),
            &format!(" {standard}\n"),
        ] {
            let signer = StateSigner::new(SigningKey::from_base64(text).unwrap());
            assert_eq!(signer.verify(&reference, None).unwrap(), b"x", "{text:?}");
        }
    }
}

// ----- 1. One spelling per state -----

#[test]
fn the_expiry_has_one_spelling() {
    for mode in MODES {
        let signer = at(key(1), T0).with_protection(mode);
        let token = signer.sign(b"x", None);
        let expiry = part(&token, EXPIRY).to_owned();
        assert_eq!(expiry, (T0 + 600).to_string());
        for respelled in [
            format!("+{expiry}"),
            format!("0{expiry}"),
            format!("00{expiry}"),
            format!("+0{expiry}"),
            format!(" {expiry}"),
            format!("{expiry} "),
        ] {
            assert_eq!(
                signer.verify(&with_part(&token, EXPIRY, &respelled), None),
                Err(StateError::Malformed("expiry is not a canonical number")),
                "{respelled:?}"
            );
        }
    }
}

#[test]
fn base64_fields_have_one_spelling() {
    for mode in MODES {
        // A 1-byte key id and payload leave 4 unused bits in their last character; so does
        // the 16-byte nonce of a signed token.
        let signer = at(key(1), T0).with_protection(mode).with_key_id("k");
        let token = signer.sign(b"p", None);
        assert!(signer.verify(&token, None).is_ok());
        for &index in base64_fields(mode) {
            for respelled in respellings(part(&token, index)) {
                let result = signer.verify(&with_part(&token, index, &respelled), None);
                assert!(
                    matches!(result, Err(StateError::Malformed(_))),
                    "{mode:?} part {index} as {respelled:?}: {result:?}"
                );
            }
        }
    }
}

#[test]
fn a_nonce_of_another_length_is_malformed() {
    for (mode, index, len) in [
        (Protection::Signed, signed::NONCE, 16),
        (Protection::Sealed, sealed::NONCE, 24),
    ] {
        let signer = at(key(1), T0).with_protection(mode);
        let token = signer.sign(b"x", None);
        assert_eq!(
            URL_SAFE_NO_PAD.decode(part(&token, index)).unwrap().len(),
            len
        );
        for wrong in [0, 1, len - 1, len + 1, 32] {
            let forged = with_part(&token, index, &URL_SAFE_NO_PAD.encode(vec![0u8; wrong]));
            assert!(
                matches!(signer.verify(&forged, None), Err(StateError::Malformed(_))),
                "{mode:?} nonce of {wrong} bytes"
            );
        }
    }
}

/// Other spellings of the same bytes that lenient base64 decoders accept: padding, and the
/// last character with different unused bits.
fn respellings(canonical: &str) -> Vec<String> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = vec![format!("{canonical}="), format!("{canonical}==")];
    let unused_bits = match canonical.len() % 4 {
        2 => 4,
        3 => 2,
        _ => 0,
    };
    if let Some(last) = canonical.bytes().last() {
        let value = ALPHABET.iter().position(|c| *c == last).unwrap();
        let head = &canonical[..canonical.len() - 1];
        for stray in 1..(1 << unused_bits) {
            out.push(format!("{head}{}", ALPHABET[value | stray] as char));
        }
    }
    out
}

/// Every re-spelling of the numeric field.
fn expiry_respellings(expiry: &str) -> Vec<String> {
    let mut out: Vec<String> = ["+", "0", "00", "+0", " ", "\t", "-"]
        .iter()
        .map(|prefix| format!("{prefix}{expiry}"))
        .collect();
    out.extend(
        [" ", "\n", ".0", "e0"]
            .iter()
            .map(|s| format!("{expiry}{s}")),
    );
    out
}

fn arb_binding() -> impl Strategy<Value = Binding> {
    proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 0..4)
        .prop_map(Binding::from_parts)
}

/// A key id of up to five arbitrary characters.
fn arb_key_id() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..5).prop_map(|c| c.into_iter().collect())
}

fn arb_mode() -> impl Strategy<Value = Protection> {
    prop_oneof![Just(Protection::Signed), Just(Protection::Sealed)]
}

prop_compose! {
    /// A signer with a random key, key id, mode, TTL and clock, and a token it minted.
    fn minted()(
        key in proptest::array::uniform32(any::<u8>()),
        key_id in arb_key_id(),
        mode in arb_mode(),
        ttl in 1u64..=86_400,
        now in 1u64..=4_000_000_000,
        payload in proptest::collection::vec(any::<u8>(), 0..40),
        binding in arb_binding(),
    ) -> (StateSigner, String, Vec<u8>, Binding) {
        let signer = StateSigner::new(SigningKey::new(key).unwrap())
            .with_key_id(key_id)
            .with_protection(mode)
            .with_ttl(Duration::from_secs(ttl))
            .unwrap()
            .with_clock(clock(now).0);
        let token = signer.sign(&payload, Some(&binding));
        (signer, token, payload, binding)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trips_verify_and_only_under_their_binding(
        (signer, token, payload, binding) in minted(),
        other in arb_binding(),
    ) {
        prop_assert_eq!(signer.verify(&token, Some(&binding)), Ok(payload.clone()));
        // Minted again: another token, the same state.
        let again = signer.sign(&payload, Some(&binding));
        prop_assert_ne!(&again, &token);
        prop_assert_eq!(signer.verify(&again, Some(&binding)), Ok(payload));
        if other != binding {
            prop_assert_eq!(signer.verify(&token, Some(&other)), Err(StateError::BadSignature));
        }
    }

    #[test]
    fn every_respelling_of_a_field_is_refused((signer, token, _, binding) in minted()) {
        let mut respelled: Vec<String> = expiry_respellings(part(&token, EXPIRY))
            .iter()
            .map(|expiry| with_part(&token, EXPIRY, expiry))
            .collect();
        for &index in base64_fields(signer.protection()) {
            for spelling in respellings(part(&token, index)) {
                respelled.push(with_part(&token, index, &spelling));
            }
        }
        let version = part(&token, 0);
        respelled.push(with_part(&token, 0, &version.to_uppercase()));
        respelled.push(with_part(&token, 0, &format!("{version} ")));
        for forged in respelled {
            let result = signer.verify(&forged, Some(&binding));
            prop_assert!(matches!(result, Err(StateError::Malformed(_))), "{forged}: {result:?}");
        }
    }
}

proptest! {
    // Each case checks a few thousand variants of one token.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn every_single_byte_change_is_refused((signer, token, _, binding) in minted()) {
        let bytes = token.as_bytes();
        let refused = |forged: Vec<u8>| {
            // Only ASCII changes are made, so the text stays UTF-8.
            let forged = String::from_utf8(forged).unwrap();
            signer.verify(&forged, Some(&binding)).is_err()
        };
        for at in 0..=bytes.len() {
            if at < bytes.len() {
                let mut deleted = bytes.to_vec();
                deleted.remove(at);
                prop_assert!(refused(deleted), "deleting byte {at} of {token}");
            }
            for byte in 0u8..0x80 {
                if at < bytes.len() && byte != bytes[at] {
                    let mut changed = bytes.to_vec();
                    changed[at] = byte;
                    prop_assert!(refused(changed), "byte {at} as {byte:#x} in {token}");
                }
                let mut inserted = bytes.to_vec();
                inserted.insert(at, byte);
                prop_assert!(refused(inserted), "{byte:#x} inserted at {at} in {token}");
            }
        }
    }
}

// ----- 2. Bounded lifetime -----

#[test]
fn an_expiry_beyond_ttl_plus_skew_is_refused() {
    for mode in MODES {
        let verifier = at(key(1), T0);
        let limit = T0 + 600 + 5;
        // Minted under a longer TTL on the same clock.
        let long = at(key(1), T0)
            .with_protection(mode)
            .with_ttl(Duration::from_secs(3600))
            .unwrap()
            .sign(b"x", None);
        assert_eq!(
            verifier.verify(&long, None),
            Err(StateError::ExpiryTooFar {
                expiry: T0 + 3600,
                limit
            })
        );
        // Minted by a clock running ahead: within the skew it verifies, beyond it it does not.
        let ahead = |seconds| {
            at(key(1), T0 + seconds)
                .with_protection(mode)
                .sign(b"x", None)
        };
        assert!(verifier.verify(&ahead(5), None).is_ok());
        assert_eq!(
            verifier.verify(&ahead(6), None),
            Err(StateError::ExpiryTooFar {
                expiry: T0 + 606,
                limit
            })
        );
        // The skew is configurable.
        let tolerant = verifier.with_clock_skew(Duration::from_secs(60));
        assert_eq!(tolerant.clock_skew(), Duration::from_secs(60));
        assert!(tolerant.verify(&ahead(60), None).is_ok());
        assert!(tolerant.verify(&ahead(61), None).is_err());
    }
    assert_eq!(
        StateSigner::new(key(1)).clock_skew(),
        StateSigner::DEFAULT_CLOCK_SKEW
    );
}

#[test]
fn lowering_the_ttl_applies_to_states_already_out() {
    for mode in MODES {
        let (clock, _) = clock(T0);
        let token = signer(1, mode)
            .with_clock(Arc::clone(&clock))
            .sign(b"x", None);
        let shorter = StateSigner::new(key(1))
            .with_ttl(Duration::from_secs(60))
            .unwrap()
            .with_clock(clock);
        assert!(matches!(
            shorter.verify(&token, None),
            Err(StateError::ExpiryTooFar { .. })
        ));
    }
}

#[test]
fn an_unreadable_clock_fails_closed() {
    for mode in MODES {
        let at = |now| at(key(1), now).with_protection(mode);
        // A valid state, checked by a signer whose clock cannot be read (0: before 1970).
        let token = at(T0).sign(b"x", None);
        assert_eq!(
            at(0).verify(&token, None),
            Err(StateError::ClockUnavailable)
        );
        // Even a state whose expiry is as small as can be.
        let from_the_epoch = at(0).sign(b"x", None);
        assert_eq!(
            at(0).verify(&from_the_epoch, None),
            Err(StateError::ClockUnavailable)
        );
        // And what such a signer mints, a working clock refuses.
        assert_eq!(
            at(T0).verify(&from_the_epoch, None),
            Err(StateError::Expired)
        );
    }
}

#[test]
fn sub_second_and_fractional_ttls_are_refused_at_configuration() {
    let signer = || StateSigner::new(key(1));
    for short in [
        Duration::ZERO,
        Duration::from_nanos(1),
        Duration::from_millis(999),
    ] {
        assert_eq!(
            signer().with_ttl(short).err(),
            Some(TtlError::BelowOneSecond(short))
        );
    }
    let fractional = Duration::from_millis(1500);
    assert_eq!(
        signer().with_ttl(fractional).err(),
        Some(TtlError::FractionalSeconds(fractional))
    );
    let one = signer().with_ttl(Duration::from_secs(1)).unwrap();
    assert_eq!(one.ttl(), Duration::from_secs(1));
    assert_eq!(signer().ttl(), StateSigner::DEFAULT_TTL);
}

// ----- 3. No plaintext binding hint -----

#[test]
fn a_token_carries_nothing_of_its_binding() {
    for mode in MODES {
        let signer = at(key(1), T0).with_protection(mode);
        let staging = signer.sign(b"x", Some(&deploy("staging")));
        let production = signer.sign(b"x", Some(&deploy("production")));
        let none = signer.sign(b"x", None);
        let fields = |token: &str| token.split('.').map(str::to_owned).collect::<Vec<_>>();
        let (a, b, c) = (fields(&staging), fields(&production), fields(&none));
        // Version, key id, expiry (and the payload of a signed token) are the same whatever
        // the binding; the other fields are random or depend on the key; every field has the
        // same length.
        let fixed = match mode {
            Protection::Sealed => sealed::NONCE,
            _ => signed::NONCE,
        };
        assert_eq!(a[..fixed], b[..fixed], "{staging}");
        assert_eq!(a[..fixed], c[..fixed]);
        if mode == Protection::Signed {
            assert_eq!(a[signed::PAYLOAD], b[signed::PAYLOAD]);
            assert_eq!(a[signed::PAYLOAD], c[signed::PAYLOAD]);
        }
        let lengths = |f: &[String]| f.iter().map(String::len).collect::<Vec<_>>();
        assert_eq!(lengths(&a), lengths(&b));
        assert_eq!(lengths(&a), lengths(&c));
        let material = deploy("staging");
        for spelling in crate::common::spellings_of(material.as_bytes()) {
            assert!(!staging.contains(&spelling), "{staging} holds {spelling}");
        }
    }
}

#[test]
fn a_binding_prints_only_its_length() {
    let binding = deploy("staging");
    let printed = format!("{binding:?}");
    assert_eq!(
        printed,
        format!("Binding(<{} bytes>)", binding.as_bytes().len())
    );
}

// ----- 4. Zeroized keys -----

/// Compiles only for types that wipe themselves on drop.
fn wiped_on_drop<T: ZeroizeOnDrop>() {}

#[test]
fn keys_and_their_subkeys_are_wiped_on_drop() {
    use hmac::EagerHash;
    use hmac::block_api::HmacCore;
    use hmac::digest::block_api::Buffer;
    // The key and the rings holding keys...
    wiped_on_drop::<SigningKey>();
    wiped_on_drop::<typemcp_core::state::KeyRing>();
    // ...what `Hmac<Sha256>` is made of: the inner and outer keyed SHA-256 states and the
    // block buffer (both only with the `zeroize` features of `sha2` and `hmac`)...
    wiped_on_drop::<<sha2::Sha256 as EagerHash>::Core>();
    wiped_on_drop::<Buffer<HmacCore<sha2::Sha256>>>();
    // ...and the AEAD holding the sealing subkey (only with the `zeroize` feature of
    // `chacha20poly1305`).
    wiped_on_drop::<chacha20poly1305::XChaCha20Poly1305>();
}

#[test]
fn a_zeroized_key_no_longer_verifies_its_states() {
    for mode in MODES {
        let token = at(key(1), T0).with_protection(mode).sign(b"x", None);
        let mut wiped = key(1);
        wiped.zeroize();
        let signer = at(wiped, T0).with_protection(mode);
        assert_eq!(signer.verify(&token, None), Err(StateError::BadSignature));
        // The wiped key is the all-zero key: nothing of the secret is left in its subkeys.
        let zero = at(SigningKey::new([0u8; 32]).unwrap(), T0);
        assert!(zero.verify(&signer.sign(b"x", None), None).is_ok());
    }
}
