//! Property tests of `requestState` tokens with key rings and serialized states, beside the
//! ones of `state_tokens.rs` (single keys, raw payloads, ASCII byte edits, respellings):
//!
//! 1. **Round trips**: any serde state (JSON values of any shape, a derived struct), minted
//!    signed or sealed with the first key of a ring of up to four, verifies with that ring,
//!    with a ring where its key only verifies (rotation), and deserializes back to itself;
//!    a key removed from the ring or retired refuses it.
//! 2. **Tampering**: every truncation, every swap of two differing parts, a key id swapped
//!    for another key of the ring, any other expiry, and any non-ASCII character replacing
//!    or inserted before a character is refused.
//! 3. **Subjects**: a token bound to one caller is refused for any other.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use crate::common::{T0, bind, clock};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_core::state::{Binding, KeyRing, Protection, SigningKey, StateError, StateSigner};

/// A state a handler might keep (a derived serde type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Flow {
    Start,
    Waiting {
        step: u32,
        note: String,
        items: Vec<i64>,
        approved: Option<bool>,
    },
    Done(String),
}

fn arb_flow() -> impl Strategy<Value = Flow> {
    prop_oneof![
        Just(Flow::Start),
        (
            any::<u32>(),
            ".{0,12}",
            prop::collection::vec(any::<i64>(), 0..4),
            any::<Option<bool>>()
        )
            .prop_map(|(step, note, items, approved)| Flow::Waiting {
                step,
                note,
                items,
                approved
            }),
        ".{0,12}".prop_map(Flow::Done),
    ]
}

/// Any JSON value without floats (whose text need not round-trip bit for bit).
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        ".{0,10}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,6}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Key ids a ring accepts: non-empty, without `:`, `,`, `#`, whitespace or control
/// characters.
fn arb_id() -> impl Strategy<Value = String> {
    prop::collection::vec(
        any::<char>().prop_filter("a key id character", |c| {
            !matches!(c, ':' | ',' | '#') && !c.is_whitespace() && !c.is_control()
        }),
        1..6,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// One to four keys with distinct ids and distinct secrets.
fn arb_keys() -> impl Strategy<Value = Vec<(String, [u8; 32])>> {
    prop::collection::btree_set(arb_id(), 1..5).prop_flat_map(|ids| {
        let n = ids.len();
        prop::collection::btree_set(prop::array::uniform32(any::<u8>()), n..=n).prop_map(
            move |secrets| {
                ids.iter()
                    .cloned()
                    .zip(secrets)
                    .collect::<Vec<(String, [u8; 32])>>()
            },
        )
    })
}

fn arb_mode() -> impl Strategy<Value = Protection> {
    prop_oneof![Just(Protection::Signed), Just(Protection::Sealed)]
}

/// A ring of `keys`, the first minting; `retired` retires the others at that time.
fn ring_of(keys: &[(String, [u8; 32])], retired: Option<u64>) -> KeyRing {
    let (first, rest) = keys.split_first().expect("at least one key");
    let mut ring = KeyRing::new(first.0.clone(), SigningKey::new(first.1).unwrap()).unwrap();
    for (id, secret) in rest {
        ring = ring
            .with_verifying_key(id.clone(), SigningKey::new(secret).unwrap())
            .unwrap();
        if let Some(at) = retired {
            ring = ring.with_retired_at(id, at).unwrap();
        }
    }
    ring
}

/// A signer of `ring` in `mode`, its clock at [`T0`].
fn signer_of(ring: KeyRing, mode: Protection) -> StateSigner {
    StateSigner::from_ring(ring)
        .with_protection(mode)
        .with_clock(clock(T0).0)
}

/// The token's dot-separated parts.
fn parts(token: &str) -> Vec<&str> {
    token.split('.').collect()
}

prop_compose! {
    /// A ring, a mode, a binding, a JSON state, and the token its first key minted.
    fn minted()(
        keys in arb_keys(),
        mode in arb_mode(),
        state in arb_json(),
        binding in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..8), 0..3),
    ) -> (Vec<(String, [u8; 32])>, StateSigner, String, Value, Binding) {
        let binding = Binding::from_parts(binding);
        let signer = signer_of(ring_of(&keys, None), mode);
        let payload = serde_json::to_vec(&state).unwrap();
        let token = signer.sign(&payload, Some(&binding));
        (keys, signer, token, state, binding)
    }
}

// ----- 1. Round trips -----

proptest! {
    #[test]
    fn any_json_state_round_trips_through_a_ring(
        (keys, signer, token, state, binding) in minted(),
    ) {
        let payload = signer.verify(&token, Some(&binding)).unwrap();
        prop_assert_eq!(serde_json::from_slice::<Value>(&payload).unwrap(), state.clone());
        // Rotated: the minting key now only verifies, behind a new minting key.
        let mut rotated = vec![("rotated-in".to_owned(), [0xA5; 32])];
        rotated.extend(keys.iter().filter(|(id, _)| id != "rotated-in").cloned());
        if rotated.len() == keys.len() + 1 {
            let later = signer_of(ring_of(&rotated, None), signer.protection());
            prop_assert_eq!(later.verify(&token, Some(&binding)), Ok(payload));
        }
    }

    #[test]
    fn a_derived_state_round_trips_in_both_modes(
        keys in arb_keys(),
        flow in arb_flow(),
        subject in ".{0,8}",
    ) {
        let binding = bind(Some(&subject), "tools/call", "deploy", json!({"to": "prod"}));
        for mode in [Protection::Signed, Protection::Sealed] {
            let signer = signer_of(ring_of(&keys, None), mode);
            let token = signer.sign(&serde_json::to_vec(&flow).unwrap(), Some(&binding));
            prop_assert_eq!(token.starts_with("mcp3s."), mode == Protection::Sealed);
            let payload = signer.verify(&token, Some(&binding)).unwrap();
            prop_assert_eq!(serde_json::from_slice::<Flow>(&payload).unwrap(), flow.clone());
        }
    }

    #[test]
    fn a_key_removed_or_retired_refuses_its_tokens(
        keys in arb_keys(),
        mode in arb_mode(),
        state in arb_json(),
        retire_after in 0u64..=1_000,
    ) {
        prop_assume!(keys.len() >= 2);
        // The last key mints (a ring where it is first), the full ring verifies.
        let last = keys[keys.len() - 1].clone();
        let minting = signer_of(ring_of(std::slice::from_ref(&last), None), mode);
        let payload = serde_json::to_vec(&state).unwrap();
        let token = minting.sign(&payload, None);
        let ring = signer_of(ring_of(&keys, None), mode);
        prop_assert_eq!(ring.verify(&token, None), Ok(payload.clone()));
        // Removed from the ring: an unknown key.
        let without = signer_of(ring_of(&keys[..keys.len() - 1], None), mode);
        prop_assert_eq!(without.verify(&token, None), Err(StateError::UnknownKey));
        // Retired at or before now: refused; retiring later: still verifies.
        let retired = signer_of(ring_of(&keys, Some(T0 - retire_after)), mode);
        prop_assert_eq!(retired.verify(&token, None), Err(StateError::RetiredKey));
        let retiring = signer_of(ring_of(&keys, Some(T0 + 1 + retire_after)), mode);
        prop_assert_eq!(retiring.verify(&token, None), Ok(payload));
    }
}

// ----- 2. Tampering -----

proptest! {
    #[test]
    fn every_truncation_is_refused((_, signer, token, _, binding) in minted()) {
        for (at, _) in token.char_indices() {
            let cut = &token[..at];
            prop_assert!(signer.verify(cut, Some(&binding)).is_err(), "{cut}");
        }
    }

    #[test]
    fn swapping_two_differing_parts_is_refused((_, signer, token, _, binding) in minted()) {
        let original = parts(&token);
        for i in 0..original.len() {
            for j in i + 1..original.len() {
                if original[i] == original[j] {
                    continue;
                }
                let mut swapped = original.clone();
                swapped.swap(i, j);
                let forged = swapped.join(".");
                prop_assert!(signer.verify(&forged, Some(&binding)).is_err(), "{forged}");
            }
        }
    }

    #[test]
    fn another_key_id_of_the_ring_is_a_bad_signature(
        (keys, signer, token, _, binding) in minted(),
    ) {
        let original = parts(&token);
        let kid = original[1];
        for (id, _) in keys.iter().skip(1) {
            let mut swapped = original.clone();
            let other = base64_url(id.as_bytes());
            swapped[1] = &other;
            prop_assert_ne!(swapped[1], kid);
            let forged = swapped.join(".");
            prop_assert_eq!(
                signer.verify(&forged, Some(&binding)),
                Err(StateError::BadSignature),
                "{}", forged
            );
        }
    }

    #[test]
    fn any_other_expiry_is_refused(
        (_, signer, token, _, binding) in minted(),
        expiry in prop_oneof![0u64..=T0 + 10_000, any::<u64>()],
    ) {
        let mut edited = parts(&token);
        let text = expiry.to_string();
        prop_assume!(text != edited[2]);
        edited[2] = &text;
        let forged = edited.join(".");
        let result = signer.verify(&forged, Some(&binding));
        prop_assert!(
            matches!(
                result,
                Err(StateError::BadSignature | StateError::Expired | StateError::ExpiryTooFar { .. })
            ),
            "{}: {:?}", forged, result
        );
    }

    #[test]
    fn a_non_ascii_character_anywhere_is_refused(
        (_, signer, token, _, binding) in minted(),
        c in any::<char>().prop_filter("not ASCII", |c| !c.is_ascii()),
        pick in any::<prop::sample::Index>(),
    ) {
        let at = pick.index(token.len());
        let mut replaced = token.clone();
        replaced.replace_range(at..=at, &c.to_string());
        prop_assert!(signer.verify(&replaced, Some(&binding)).is_err(), "{replaced}");
        let mut inserted = token.clone();
        inserted.insert(at, c);
        prop_assert!(signer.verify(&inserted, Some(&binding)).is_err(), "{inserted}");
    }
}

// ----- 3. Subjects -----

proptest! {
    #[test]
    fn a_token_bound_to_one_subject_is_refused_for_another(
        keys in arb_keys(),
        mode in arb_mode(),
        subjects in prop::collection::btree_set(".{1,10}", 2..=2),
        arguments in arb_json(),
    ) {
        let subjects: Vec<String> = subjects.into_iter().collect();
        let signer = signer_of(ring_of(&keys, None), mode).with_ttl(Duration::from_secs(60)).unwrap();
        let (ann, bob) = (&subjects[0], &subjects[1]);
        let for_ann = bind(Some(ann), "tools/call", "deploy", arguments.clone());
        let token = signer.sign(b"{\"step\":2}", Some(&for_ann));
        prop_assert!(signer.verify(&token, Some(&for_ann)).is_ok());
        for other in [
            bind(Some(bob), "tools/call", "deploy", arguments.clone()),
            bind(None, "tools/call", "deploy", arguments),
        ] {
            prop_assert_eq!(signer.verify(&token, Some(&other)), Err(StateError::BadSignature));
        }
    }
}

/// Unpadded base64url, as tokens spell key ids.
fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
