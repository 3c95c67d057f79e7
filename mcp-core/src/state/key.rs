//! Signing keys: at least 32 bytes, never printed, two subkeys derived, every copy wiped on drop.
//!
//! A [`SigningKey`] is one secret, but it never uses that secret directly. HKDF-SHA256
//! (RFC 5869) derives two 32-byte subkeys from it, each under its own `info` string, so the
//! two uses can never be confused with each other or with any other use of the secret:
//!
//! - `io.mcp-rust/request-state/v3 sign`: the HMAC-SHA256 key of signed tokens;
//! - `io.mcp-rust/request-state/v3 seal`: the XChaCha20-Poly1305 key of sealed tokens.
//!
//! The raw bytes are not kept: the key holds the keyed HMAC state of the first subkey and the
//! cipher holding the second. Both are wiped when the key is dropped, by the `zeroize`
//! features of `sha2`/`hmac` (hash states, block buffer) and of `chacha20poly1305` (its key
//! and the per-token ChaCha20 state). The HKDF state and the derived bytes live in wiped
//! buffers only as long as the derivation. Base64 and environment text holding a key is
//! decoded into [`Zeroizing`] buffers.
//!
//! What no library can wipe: transient copies in registers and on the stack while a block is
//! computed, and the environment variable a key was read from (it stays in the process
//! environment; remove it after start-up if that matters).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use chacha20poly1305::{Key, XChaCha20Poly1305};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit};
use sha2::Sha256;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::ring::EntryError;

/// HKDF `info` of the signing subkey.
const SIGN_INFO: &[u8] = b"io.mcp-rust/request-state/v3 sign";
/// HKDF `info` of the sealing subkey.
const SEAL_INFO: &[u8] = b"io.mcp-rust/request-state/v3 seal";

/// Why a key or a key ring was refused. Messages never include key material, nor any text of
/// a key ring (a key written where its id belongs would otherwise end up in a log).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Shorter than 32 bytes.
    #[error("a request-state key needs at least 32 bytes, got {0}")]
    TooShort(usize),
    /// Not base64 (standard or URL-safe).
    #[error("the request-state key is not valid base64")]
    NotBase64,
    /// The environment variable is not set (or not Unicode).
    #[error("the environment variable {0} is not set")]
    MissingVariable(String),
    /// The system random source failed.
    #[error("no randomness available to generate a key")]
    NoRandomness,
    /// HKDF could not derive the subkeys (cannot happen with SHA-256 and 32-byte subkeys;
    /// reported rather than signing with a blank key).
    #[error("the request-state subkeys could not be derived")]
    Derivation,
    /// A key ring without any key.
    #[error("the request-state key ring has no key")]
    EmptyRing,
    /// One entry of a key ring is wrong. Entries count from 1 in the order given (blank lines
    /// and comments are not counted); the message names the entry, never its text.
    #[error("request-state key ring, entry {entry}: {problem}")]
    Entry {
        /// Which entry, counting from 1.
        entry: usize,
        /// What is wrong with it.
        problem: EntryError,
    },
    /// [`KeyRing::with_retired_at`](super::KeyRing::with_retired_at) named an id the ring does
    /// not hold.
    #[error("the request-state key ring has no key with id {0:?}")]
    UnknownKeyId(String),
    /// A key ring file could not be read.
    #[error("cannot read the request-state key ring file {path}: {kind}")]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong (not UTF-8 is [`InvalidData`](std::io::ErrorKind::InvalidData)).
        kind: std::io::ErrorKind,
    },
}

/// A secret key for states: the subkeys HKDF derives from it for signing and sealing.
///
/// Every copy of the secret it holds is wiped on drop ([`ZeroizeOnDrop`]).
/// [`zeroize`](Zeroize::zeroize) wipes it early: the key then works as the all-zero key,
/// which verifies nothing the real key minted.
///
/// ```
/// use typemcp_core::state::SigningKey;
/// let key = SigningKey::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").unwrap();
/// assert_eq!(format!("{key:?}"), "SigningKey(<redacted>)");
/// assert!(SigningKey::new([7u8; 31]).is_err());
/// ```
#[derive(Clone)]
pub struct SigningKey {
    signing: Hmac<Sha256>,
    sealing: XChaCha20Poly1305,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(<redacted>)")
    }
}

impl Zeroize for SigningKey {
    /// Replaces both subkeys with those of the all-zero key; the old ones are wiped as they
    /// drop.
    fn zeroize(&mut self) {
        if let Ok(blank) = Self::derive(&[0u8; Self::MIN_LEN]) {
            *self = blank;
        } else {
            // Not reachable (see `KeyError::Derivation`); still, leave nothing of the secret.
            self.signing = <Hmac<Sha256> as KeyInit>::new(&Default::default());
            self.sealing = XChaCha20Poly1305::new(&Key::default());
        }
    }
}

/// Both subkeys wipe themselves on drop (the `zeroize` features of `hmac`, `sha2` and
/// `chacha20poly1305`).
impl ZeroizeOnDrop for SigningKey {}

impl SigningKey {
    /// The smallest accepted key.
    pub const MIN_LEN: usize = 32;

    /// A key from raw bytes (at least 32). The caller's copy stays the caller's to wipe.
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let bytes = bytes.as_ref();
        if bytes.len() < Self::MIN_LEN {
            return Err(KeyError::TooShort(bytes.len()));
        }
        Self::derive(bytes)
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

    /// HKDF-SHA256 (no salt: the secret is already uniformly random, and the `info` strings
    /// separate the uses) expanded into the two subkeys.
    fn derive(secret: &[u8]) -> Result<Self, KeyError> {
        // The extract step's HMAC state is wiped on drop; its output (the PRK) is wiped here.
        let (mut prk, hkdf) = Hkdf::<Sha256>::extract(None, secret);
        prk.as_mut_slice().zeroize();
        let mut sign = Zeroizing::new([0u8; 32]);
        let mut seal = Zeroizing::new([0u8; 32]);
        hkdf.expand(SIGN_INFO, sign.as_mut_slice())
            .and_then(|()| hkdf.expand(SEAL_INFO, seal.as_mut_slice()))
            .map_err(|_| KeyError::Derivation)?;
        let signing = <Hmac<Sha256> as KeyInit>::new_from_slice(sign.as_slice())
            .map_err(|_| KeyError::Derivation)?;
        let sealing = XChaCha20Poly1305::new(<&Key>::from(&*seal));
        Ok(Self { signing, sealing })
    }

    /// A fresh MAC keyed with the signing subkey (a clone of the keyed state, wiped when
    /// dropped or finalized).
    pub(crate) fn mac(&self) -> Hmac<Sha256> {
        self.signing.clone()
    }

    /// The AEAD keyed with the sealing subkey.
    pub(crate) fn cipher(&self) -> &XChaCha20Poly1305 {
        &self.sealing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha20poly1305::aead::Aead;
    use hmac::Mac;

    fn tag(key: &SigningKey) -> Vec<u8> {
        let mut mac = key.mac();
        mac.update(b"message");
        mac.finalize().into_bytes().to_vec()
    }

    fn sealed(key: &SigningKey) -> Vec<u8> {
        key.cipher()
            .encrypt(&Default::default(), b"message".as_slice())
            .unwrap()
    }

    #[test]
    fn zeroizing_a_key_wipes_both_subkeys() {
        let mut key = SigningKey::new([7u8; 32]).unwrap();
        let (tag_before, sealed_before) = (tag(&key), sealed(&key));
        key.zeroize();
        assert_ne!(
            tag(&key),
            tag_before,
            "the HMAC state no longer holds the key"
        );
        assert_ne!(
            sealed(&key),
            sealed_before,
            "the cipher no longer holds the key"
        );
        let zero = SigningKey::new([0u8; 32]).unwrap();
        assert_eq!(tag(&key), tag(&zero));
        assert_eq!(sealed(&key), sealed(&zero));
    }

    #[test]
    fn the_subkeys_are_hkdf_outputs_not_the_secret() {
        let secret = [7u8; 32];
        let key = SigningKey::new(secret).unwrap();
        // HMAC keyed with the raw secret is not what the key computes.
        let mut raw = <Hmac<Sha256> as KeyInit>::new_from_slice(&secret).unwrap();
        raw.update(b"message");
        assert_ne!(tag(&key), raw.finalize().into_bytes().to_vec());
        // RFC 5869 by hand: PRK = HMAC(zeros, secret), T(1) = HMAC(PRK, info || 0x01).
        let mut extract = <Hmac<Sha256> as KeyInit>::new_from_slice(&[0u8; 32]).unwrap();
        extract.update(&secret);
        let prk = extract.finalize().into_bytes();
        let mut expand = <Hmac<Sha256> as KeyInit>::new_from_slice(&prk).unwrap();
        expand.update(SIGN_INFO);
        expand.update(&[1]);
        let subkey = expand.finalize().into_bytes();
        let mut expected = <Hmac<Sha256> as KeyInit>::new_from_slice(&subkey).unwrap();
        expected.update(b"message");
        assert_eq!(tag(&key), expected.finalize().into_bytes().to_vec());
        // The sealing subkey is another one: the same bytes as an AEAD key do not match.
        let with_sign_subkey = XChaCha20Poly1305::new(<&Key>::from(&<[u8; 32]>::from(subkey)));
        let other = with_sign_subkey
            .encrypt(&Default::default(), b"message".as_slice())
            .unwrap();
        assert_ne!(sealed(&key), other);
    }
}
