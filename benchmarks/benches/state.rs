//! Micro-benchmarks of `requestState`: what one round of a multi-round request costs the
//! server in signing, verifying and binding.
//!
//! Run with `cargo bench -p mcp-benchmarks --bench state` (criterion; a filter after `--`
//! selects benchmarks, e.g. `-- verify`).
//!
//! * `state/sign/{64B,1KiB}`: minting a token for a payload of that size (the serialized
//!   continuation of a handler), under a derived binding.
//! * `state/verify/valid/{64B,1KiB}`: checking an echoed token and getting its payload back.
//! * `state/verify/tampered/1KiB`: one payload character changed: decoded, then refused on
//!   the (constant-time) signature check.
//! * `state/verify/wrong-binding/1KiB`: a genuine token echoed on another call: refused on
//!   the (constant-time) signature check, since the binding travels only inside the MAC.
//! * `state/verify/oversized/17KiB`: a genuine token longer than the 16 KiB default cap:
//!   refused on its length, before any decoding.
//! * `state/round-trip/{64B,1KiB}`: sign then verify, what one round adds end to end.
//! * `binding/derive/{small,large}`: the default binding of a request: canonical JSON of the
//!   arguments, SHA-256, length-prefixed parts.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use typemcp_server::typemcp_core::state::{
    Binding, BindingRequest, SigningKey, StateError, StateSigner, canonical_json,
};

/// The result, or a panic naming what failed (benchmark set-up only).
fn must<T, E: std::fmt::Debug>(result: Result<T, E>, what: &str) -> T {
    result.unwrap_or_else(|err| panic!("{what}: {err:?}"))
}

fn signer() -> StateSigner {
    StateSigner::new(must(SigningKey::new([7u8; 32]), "a 32-byte key"))
}

/// A JSON payload of exactly `len` bytes, shaped like a serialized continuation envelope.
fn payload(len: usize) -> Vec<u8> {
    let frame = r#"{"s":{"AskingColor":{"name":""}},"r":2}"#;
    let filler = "n".repeat(len.saturating_sub(frame.len()));
    let text = format!(r#"{{"s":{{"AskingColor":{{"name":"{filler}"}}}},"r":2}}"#);
    assert_eq!(text.len(), len.max(frame.len()), "payload size");
    text.into_bytes()
}

fn small_arguments() -> Value {
    json!({"target": "staging"})
}

/// A larger argument object: nested objects and arrays, keys out of order (~1.5 KiB).
fn large_arguments() -> Value {
    let mut services = serde_json::Map::new();
    for i in (0..16).rev() {
        services.insert(
            format!("service-{i:02}"),
            json!({
                "replicas": i % 5 + 1,
                "image": format!("registry.example.com/team/service-{i:02}:1.{i}.0"),
                "regions": ["eu-west-1", "us-east-1"],
                "canary": i % 3 == 0,
            }),
        );
    }
    json!({
        "target": "production",
        "reason": "Quarterly rollout of the payment stack, approved in change ticket CHG-4821.",
        "services": services,
        "window": {"start": "2026-07-28T22:00:00Z", "end": "2026-07-29T02:00:00Z"},
        "dryRun": false,
    })
}

fn derive(arguments: &Value) -> Binding {
    Binding::derive(&BindingRequest {
        subject: Some("user-3f2a9c"),
        method: "tools/call",
        target: "deploy",
        arguments,
    })
}

/// `token` with one character of its payload segment changed (still valid base64url).
fn tampered(token: &str) -> String {
    let parts: Vec<&str> = token.split('.').collect();
    // `mcp3.<kid>.<expiry>.<nonce>.<payload>.<tag>`
    assert_eq!(parts.len(), 6, "token format");
    let payload = parts[4];
    let at = payload.len() / 2;
    let mut bytes = payload.as_bytes().to_vec();
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    let payload = must(String::from_utf8(bytes), "base64url is ASCII");
    let mut parts: Vec<String> = parts.iter().map(|p| (*p).to_owned()).collect();
    parts[4] = payload;
    parts.join(".")
}

fn sign_and_verify(c: &mut Criterion) {
    let signer = signer();
    let arguments = small_arguments();
    let binding = derive(&arguments);
    let mut group = c.benchmark_group("state");
    for (label, len) in [("64B", 64), ("1KiB", 1024)] {
        let payload = payload(len);
        let token = signer.sign(&payload, Some(&binding));
        assert_eq!(
            must(signer.verify(&token, Some(&binding)), "a valid token"),
            payload
        );
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::new("sign", label), &payload, |b, payload| {
            b.iter(|| signer.sign(black_box(payload), Some(black_box(&binding))));
        });
        group.bench_with_input(
            BenchmarkId::new("verify/valid", label),
            &token,
            |b, token| b.iter(|| signer.verify(black_box(token), Some(black_box(&binding)))),
        );
        group.bench_with_input(
            BenchmarkId::new("round-trip", label),
            &payload,
            |b, payload| {
                b.iter(|| {
                    let token = signer.sign(black_box(payload), Some(&binding));
                    signer.verify(black_box(&token), Some(&binding))
                });
            },
        );
    }

    let token = signer.sign(&payload(1024), Some(&binding));
    let bad = tampered(&token);
    assert_eq!(
        signer.verify(&bad, Some(&binding)),
        Err(StateError::BadSignature)
    );
    group.throughput(Throughput::Bytes(bad.len() as u64));
    group.bench_function(BenchmarkId::new("verify/tampered", "1KiB"), |b| {
        b.iter(|| signer.verify(black_box(&bad), Some(black_box(&binding))));
    });

    let other = derive(&json!({"target": "production"}));
    assert_eq!(
        signer.verify(&token, Some(&other)),
        Err(StateError::BadSignature)
    );
    group.bench_function(BenchmarkId::new("verify/wrong-binding", "1KiB"), |b| {
        b.iter(|| signer.verify(black_box(&token), Some(black_box(&other))));
    });

    // A genuine token whose base64 text is over the 16 KiB cap.
    let huge = signer.sign(&payload(13 * 1024), Some(&binding));
    assert!(huge.len() > StateSigner::DEFAULT_MAX_TOKEN_BYTES);
    assert!(matches!(
        signer.verify(&huge, Some(&binding)),
        Err(StateError::TooLarge { .. })
    ));
    group.throughput(Throughput::Bytes(huge.len() as u64));
    group.bench_function(
        BenchmarkId::new("verify/oversized", format!("{}KiB", huge.len() / 1024)),
        |b| b.iter(|| signer.verify(black_box(&huge), Some(black_box(&binding)))),
    );
    group.finish();
}

fn derive_binding(c: &mut Criterion) {
    let mut group = c.benchmark_group("binding/derive");
    for (label, arguments) in [("small", small_arguments()), ("large", large_arguments())] {
        let canonical = canonical_json(&arguments).len();
        group.throughput(Throughput::Bytes(canonical as u64));
        group.bench_with_input(
            BenchmarkId::new(label, format!("{canonical}B canonical")),
            &arguments,
            |b, arguments| b.iter(|| derive(black_box(arguments))),
        );
    }
    group.finish();
}

criterion_group!(benches, sign_and_verify, derive_binding);
criterion_main!(benches);
