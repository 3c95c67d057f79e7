//! Micro-benchmarks of signed against sealed `requestState` tokens: what each mode costs to
//! mint and to verify.
//!
//! Run with `cargo bench -p typemcp-core --bench state_tokens` (criterion; a filter after `--`
//! selects benchmarks, e.g. `-- sealed`).
//!
//! * `state_tokens/{signed,sealed}/sign/{60B,2KiB}`: minting a token of a payload of that size
//!   (fresh random nonce, HMAC-SHA256 or XChaCha20-Poly1305, base64url).
//! * `state_tokens/{signed,sealed}/verify/{60B,2KiB}`: checking a genuine token under its
//!   binding and getting the payload back (decoding, MAC or AEAD check, decryption).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use typemcp_core::state::{Binding, Protection, SigningKey, StateSigner};

/// The result, or a panic naming what failed (benchmark set-up only).
fn must<T, E: std::fmt::Debug>(result: Result<T, E>, what: &str) -> T {
    result.unwrap_or_else(|err| panic!("{what}: {err:?}"))
}

/// A JSON payload of exactly `len` bytes (at least its frame), shaped like a serialized
/// continuation envelope.
fn payload(len: usize) -> Vec<u8> {
    let frame = r#"{"s":{"AskingColor":{"name":""}},"r":2}"#;
    let filler = "n".repeat(len.saturating_sub(frame.len()));
    format!(r#"{{"s":{{"AskingColor":{{"name":"{filler}"}}}},"r":2}}"#).into_bytes()
}

fn bench(c: &mut Criterion) {
    let binding = Binding::from_parts(["user-3f2a9c", "tools/call", "deploy", "digest"]);
    let key = must(SigningKey::new([7u8; 32]), "a 32-byte key");
    let mut group = c.benchmark_group("state_tokens");
    for (mode, name) in [
        (Protection::Signed, "signed"),
        (Protection::Sealed, "sealed"),
    ] {
        let signer = StateSigner::new(key.clone()).with_protection(mode);
        for (size, label) in [(60, "60B"), (2048, "2KiB")] {
            let payload = payload(size);
            let token = signer.sign(&payload, Some(&binding));
            assert_eq!(
                must(signer.verify(&token, Some(&binding)), "a genuine token"),
                payload
            );
            group.throughput(Throughput::Bytes(payload.len() as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("{name}/sign"), label),
                &payload,
                |b, payload| b.iter(|| signer.sign(black_box(payload), Some(black_box(&binding)))),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("{name}/verify"), label),
                &token,
                |b, token| b.iter(|| signer.verify(black_box(token), Some(black_box(&binding)))),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
