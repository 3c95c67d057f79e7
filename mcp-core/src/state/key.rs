//! Signing keys: at least 32 bytes, never printed, and every copy wiped on drop.
//!
//! A [`SigningKey`] holds the secret once, as the keyed HMAC-SHA256 state (the hash states
//! after the inner and outer padded key blocks, which are as good as the key); the raw bytes
//! are not kept. That state is wiped when the key is dropped, by `sha2`'s and
//! `block-buffer`'s own `Drop` (their `zeroize` features, enabled by this crate). Each MAC
//! computed with the key is a clone of that state, wiped the same way when it is finalized.
//! Base64 and environment text holding a key is decoded into [`Zeroizing`] buffers.
//!
//! What no library can wipe: transient copies in registers and on the stack while a hash block
//! is computed, and the environment variable a key was read from (it stays in the process
//! environment; remove it after start-up if that matters).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit};
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Why a key was refused. Messages never include key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Shorter than 32 bytes.
    #[error("a request-state key needs at least 32 bytes, got {0}")]
    TooShort(usize),
    /// Not base64 (standard or URL-safe).
    #[error("the request-state key is not valid base64")]
    NotBase64,
    /// The environment variable is not set.
    #[error("the environment variable {0} is not set")]
    MissingVariable(String),
    /// The system random source failed.
    #[error("no randomness available to generate a key")]
    NoRandomness,
}

/// A secret key for signing states: its HMAC state, keyed once.
///
/// Every copy of the secret it holds is wiped on drop ([`ZeroizeOnDrop`]).
/// [`zeroize`](Zeroize::zeroize) wipes it early: the key then signs as the all-zero key, which
/// verifies nothing the real key signed.
#[derive(Clone)]
pub struct SigningKey {
    keyed: Hmac<Sha256>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(<redacted>)")
    }
}

impl Zeroize for SigningKey {
    /// Replaces the keyed state with the empty key's; the old state is wiped as it drops.
    fn zeroize(&mut self) {
        self.keyed = keyed(&[]);
    }
}

/// The HMAC state wipes itself on drop, through the `zeroize` features of `hmac` and `sha2`.
impl ZeroizeOnDrop for SigningKey {}

/// The HMAC-SHA256 state keyed with `bytes`.
fn keyed(bytes: &[u8]) -> Hmac<Sha256> {
    // HMAC takes keys of any length (longer ones are hashed first): this never fails.
    <Hmac<Sha256> as KeyInit>::new_from_slice(bytes)
        .unwrap_or_else(|_| <Hmac<Sha256> as KeyInit>::new(&Default::default()))
}

impl SigningKey {
    /// The smallest accepted key.
    pub const MIN_LEN: usize = 32;

    /// A key from raw bytes (at least 32). The caller's copy stays the caller's to wipe.
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let bytes = bytes.as_ref();
        if bytes.len() < Self::MIN_LEN {
            return Err(KeyError::TooShort(bytes.len()));
        }
        Ok(Self {
            keyed: keyed(bytes),
        })
    }

    /// A key from base64 text (standard or URL-safe, padded or not), decoded into a buffer
    /// that is wiped whatever the outcome.
    pub fn from_base64(text: &str) -> Result<Self, KeyError> {
        let text = text.trim();
        // Base64 never decodes to more bytes than it has characters.
        let mut buffer = Zeroizing::new(vec![0u8; text.len()]);
        let len = STANDARD
            .decode_slice(text, buffer.as_mut_slice())
            .or_else(|_| {
                URL_SAFE_NO_PAD.decode_slice(text.trim_end_matches('='), buffer.as_mut_slice())
            })
            .map_err(|_| KeyError::NotBase64)?;
        Self::new(buffer.get(..len).unwrap_or_default())
    }

    /// A fresh random 32-byte key, for states that never outlive this process.
    pub fn generate() -> Result<Self, KeyError> {
        let mut bytes = Zeroizing::new([0u8; Self::MIN_LEN]);
        getrandom::fill(bytes.as_mut_slice()).map_err(|_| KeyError::NoRandomness)?;
        Self::new(bytes.as_slice())
    }

    /// A fresh MAC keyed with this key (a clone of the keyed state, wiped when dropped or
    /// finalized).
    pub(crate) fn mac(&self) -> Hmac<Sha256> {
        self.keyed.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::Mac;

    fn tag(key: &SigningKey) -> Vec<u8> {
        let mut mac = key.mac();
        mac.update(b"message");
        mac.finalize().into_bytes().to_vec()
    }

    #[test]
    fn zeroizing_a_key_wipes_its_keyed_state() {
        let mut key = SigningKey::new([7u8; 32]).unwrap();
        let before = tag(&key);
        key.zeroize();
        assert_ne!(tag(&key), before, "the keyed state no longer holds the key");
        // HMAC pads short keys with zeros: the wiped key is the all-zero key.
        let zero = SigningKey::new([0u8; 32]).unwrap();
        assert_eq!(tag(&key), tag(&zero));
    }
}
