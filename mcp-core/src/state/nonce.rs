//! Nonces: random bytes in every token, so no two mintings give the same token.
//!
//! They come from the system random source. Should it fail, minting does not: the nonce is
//! then an HMAC (signing subkey) of a per-process counter, the time in nanoseconds and the
//! token's own fields. Two tokens can then share a nonce only if they are the same token
//! (same key, expiry, binding and payload, minted at the same counter value and
//! nanosecond), and sealing the same message twice under one nonce reveals no more than
//! that it is the same message.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use hmac::Mac;

use super::SigningKey;
use super::format::length_prefixed;

/// Separates fallback nonces from the token MACs made with the same subkey.
const DOMAIN: &[u8] = b"io.mcp-rust/request-state/v3 nonce";

/// Fallback nonces minted by this process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh nonce of `N` (at most 32) bytes for a token with these fields.
pub(crate) fn fresh<const N: usize>(key: &SigningKey, fields: &[&[u8]]) -> [u8; N] {
    let mut nonce = [0u8; N];
    if getrandom::fill(&mut nonce).is_err() {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        nonce = synthetic(key, COUNTER.fetch_add(1, Ordering::Relaxed), nanos, fields);
    }
    nonce
}

/// The fallback: HMAC of the counter, the time and the fields, truncated to `N` bytes.
fn synthetic<const N: usize>(
    key: &SigningKey,
    count: u64,
    nanos: u128,
    fields: &[&[u8]],
) -> [u8; N] {
    let (count, nanos) = (count.to_be_bytes(), nanos.to_be_bytes());
    let mut mac = key.mac();
    let head: [&[u8]; 3] = [DOMAIN, &count, &nanos];
    length_prefixed(head.into_iter().chain(fields.iter().copied()), |b| {
        mac.update(b)
    });
    let digest = mac.finalize().into_bytes();
    let mut nonce = [0u8; N];
    for (out, byte) in nonce.iter_mut().zip(digest.iter()) {
        *out = *byte;
    }
    nonce
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_nonces_differ() {
        let key = SigningKey::new([1u8; 32]).unwrap();
        let a: [u8; 24] = fresh(&key, &[b"x"]);
        let b: [u8; 24] = fresh(&key, &[b"x"]);
        assert_ne!(a, b);
    }

    #[test]
    fn fallback_nonces_differ_by_counter_and_fields() {
        let key = SigningKey::new([1u8; 32]).unwrap();
        let a: [u8; 24] = synthetic(&key, 0, 5, &[b"payload"]);
        assert_eq!(
            a,
            synthetic::<24>(&key, 0, 5, &[b"payload"]),
            "deterministic"
        );
        assert_ne!(a, [0u8; 24]);
        assert_ne!(a, synthetic::<24>(&key, 1, 5, &[b"payload"]));
        assert_ne!(a, synthetic::<24>(&key, 0, 6, &[b"payload"]));
        assert_ne!(a, synthetic::<24>(&key, 0, 5, &[b"other"]));
        let other_key = SigningKey::new([2u8; 32]).unwrap();
        assert_ne!(a, synthetic::<24>(&other_key, 0, 5, &[b"payload"]));
    }
}
