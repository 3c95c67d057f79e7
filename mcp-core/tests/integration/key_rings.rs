//! Key rings: rotation loses no state in flight, a dropped or retired key verifies nothing,
//! and rings load from text, the environment or a file without ever showing a key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::Ordering;

use crate::common::{MODES, T0, clock, deploy, key, part};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use typemcp_core::state::{EntryError, KeyError, KeyRing, Protection, StateError, StateSigner};

/// The base64 text of `key(byte)`.
fn text(byte: u8) -> String {
    STANDARD.encode([byte; 32])
}

/// A signer of `ring` minting in `mode`, its clock at `now`, and the clock's handle.
fn signer(
    ring: &str,
    mode: Protection,
    now: u64,
) -> (StateSigner, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    let (clock, handle) = clock(now);
    let signer = StateSigner::from_ring(KeyRing::parse(ring).unwrap())
        .with_protection(mode)
        .with_clock(clock);
    (signer, handle)
}

#[test]
fn a_rotation_loses_no_state_in_flight_and_a_dropped_key_verifies_nothing() {
    let binding = deploy("staging");
    for mode in MODES {
        // Before: the old key mints.
        let (before, _) = signer(&format!("old:{}", text(1)), mode, T0);
        let in_flight = before.sign(b"round 1", Some(&binding));
        assert_eq!(part(&in_flight, 1), URL_SAFE_NO_PAD.encode("old"));

        // During: the new key mints; the old one verifies what it minted.
        let (during, _) = signer(&format!("new:{}\nold:{}", text(2), text(1)), mode, T0 + 60);
        assert_eq!(
            during.verify(&in_flight, Some(&binding)).unwrap(),
            b"round 1"
        );
        let fresh = during.sign(b"round 2", Some(&binding));
        assert_eq!(part(&fresh, 1), URL_SAFE_NO_PAD.encode("new"));
        // An instance not yet rotated refuses the new key's states, as it should.
        assert_eq!(
            before.verify(&fresh, Some(&binding)),
            Err(StateError::UnknownKey)
        );

        // After: the old entry is dropped; its states no longer verify, the new ones do.
        let (after, _) = signer(&format!("new:{}", text(2)), mode, T0 + 120);
        assert_eq!(
            after.verify(&in_flight, Some(&binding)),
            Err(StateError::UnknownKey)
        );
        assert_eq!(after.verify(&fresh, Some(&binding)).unwrap(), b"round 2");
    }
}

#[test]
fn a_retired_key_verifies_nothing_from_its_retire_time_on() {
    let retire = T0 + 300;
    for mode in MODES {
        let (old, _) = signer(&format!("old:{}", text(1)), mode, T0);
        let in_flight = old.sign(b"x", None);
        let ring = format!("new:{},old:{}:{retire}", text(2), text(1));
        let (rotated, now) = signer(&ring, mode, T0);
        assert_eq!(rotated.key_ring().retired_at("old"), Some(retire));
        assert_eq!(rotated.verify(&in_flight, None).unwrap(), b"x");
        now.store(retire - 1, Ordering::SeqCst);
        assert_eq!(rotated.verify(&in_flight, None).unwrap(), b"x");
        now.store(retire, Ordering::SeqCst);
        assert_eq!(
            rotated.verify(&in_flight, None),
            Err(StateError::RetiredKey)
        );
        // The minting key is unaffected.
        let fresh = rotated.sign(b"y", None);
        assert_eq!(rotated.verify(&fresh, None).unwrap(), b"y");
        // The same from code.
        let built = KeyRing::new("new", key(2))
            .unwrap()
            .with_verifying_key("old", key(1))
            .unwrap()
            .with_retired_at("old", retire)
            .unwrap();
        let built = StateSigner::from_ring(built)
            .with_protection(mode)
            .with_clock(clock(retire).0);
        assert_eq!(built.verify(&in_flight, None), Err(StateError::RetiredKey));
    }
}

#[test]
fn the_old_api_builds_the_same_ring() {
    let old = StateSigner::new(key(1)).with_key_id("old");
    let token = old.sign(b"x", None);
    let rotated = StateSigner::new(key(2))
        .with_key_id("new")
        .with_previous_key("old", key(1));
    assert_eq!(rotated.key_ring().minting_key_id(), "new");
    assert_eq!(rotated.key_ring().key_ids(), ["new", "old"]);
    assert_eq!(rotated.verify(&token, None).unwrap(), b"x");
    assert_eq!(StateSigner::new(key(1)).key_ring().key_ids(), ["1"]);
}

#[test]
fn ring_errors_name_the_entry_and_never_show_a_key() {
    let (k1, k2) = (text(1), text(2));
    let cases = [
        // A key where its id belongs.
        (k1.clone(), 1, EntryError::MissingId),
        (format!("a:{k1}\n{k2}"), 2, EntryError::MissingId),
        (
            format!("a:{k1},a:{k2}"),
            2,
            EntryError::DuplicateId { first: 1 },
        ),
        (
            format!("a:{k1}:1800000000"),
            1,
            EntryError::MintingKeyRetired,
        ),
        (
            format!("a:{k1},b:{k2}:tomorrow"),
            2,
            EntryError::BadRetireTime,
        ),
        (
            format!("a:{k1},b:{}", &k2[..20]),
            2,
            EntryError::KeyTooShort(15),
        ),
    ];
    for (ring, entry, problem) in cases {
        let error = KeyRing::parse(&ring).unwrap_err();
        assert_eq!(
            error,
            KeyError::Entry {
                entry,
                problem: problem.clone()
            },
            "{ring}"
        );
        let message = error.to_string();
        assert!(message.contains(&format!("entry {entry}")), "{message}");
        for key in [&k1, &k2] {
            assert!(!message.contains(&key[..12]), "{message}");
        }
    }
}

#[test]
fn a_ring_loads_from_the_environment() {
    // Variables cannot be set here (`set_var` is unsafe, and unsafe code is forbidden), so
    // this reads ones that exist: neither is a ring, and the error quotes neither.
    let missing = "MCP_TEST_SURELY_UNSET_VARIABLE_7F3A";
    assert_eq!(
        KeyRing::from_env(missing).err(),
        Some(KeyError::MissingVariable(missing.to_owned()))
    );
    let error = KeyRing::from_env("CARGO_PKG_NAME").unwrap_err();
    assert!(
        matches!(
            error,
            KeyError::Entry {
                entry: 1,
                problem: EntryError::MissingId
            }
        ),
        "{error:?}"
    );
    assert!(!error.to_string().contains("mcp-core"), "{error}");
}

#[test]
fn a_ring_loads_from_a_file() {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("mcp-core-key-ring-{}.txt", std::process::id()));
    let contents = format!(
        "# request-state keys\n2026-11:{}\n\n# until the switch has settled\n2026-10:{}:{}\n",
        text(2),
        text(1),
        T0 + 900
    );
    std::fs::write(&path, &contents).unwrap();
    let ring = KeyRing::from_file(&path);
    std::fs::write(&path, [b'a', b':', 0xff, 0xfe]).unwrap();
    let not_utf8 = KeyRing::from_file(&path);
    std::fs::remove_file(&path).unwrap();

    let ring = ring.unwrap();
    assert_eq!(ring.key_ids(), ["2026-11", "2026-10"]);
    assert_eq!(ring.retired_at("2026-10"), Some(T0 + 900));
    let printed = format!("{ring:?}");
    assert!(
        printed.contains("2026-10") && !printed.contains(&text(1)[..12]),
        "{printed}"
    );
    let old = StateSigner::new(key(1))
        .with_key_id("2026-10")
        .with_clock(clock(T0).0);
    let token = old.sign(b"x", None);
    let signer = StateSigner::from_ring(ring).with_clock(clock(T0).0);
    assert_eq!(signer.verify(&token, None).unwrap(), b"x");

    assert_eq!(
        not_utf8.err(),
        Some(KeyError::File {
            path: path.clone(),
            kind: std::io::ErrorKind::InvalidData
        })
    );
    assert_eq!(
        KeyRing::from_file(&path).err(),
        Some(KeyError::File {
            path,
            kind: std::io::ErrorKind::NotFound
        })
    );
}
