//! Signing keys: at least 32 bytes, zeroed on drop, never printed.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, KeyInit};
use sha2::Sha256;
use zeroize::Zeroizing;

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

/// A secret key for signing states, with its HMAC state keyed once.
#[derive(Clone)]
pub struct SigningKey {
    /// Kept so the key is zeroed on drop.
    _bytes: Zeroizing<Vec<u8>>,
    keyed: Hmac<Sha256>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(<redacted>)")
    }
}

impl SigningKey {
    /// The smallest accepted key.
    pub const MIN_LEN: usize = 32;

    /// A key from raw bytes (at least 32).
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let bytes = bytes.as_ref();
        if bytes.len() < Self::MIN_LEN {
            return Err(KeyError::TooShort(bytes.len()));
        }
        // HMAC accepts keys of any length; the error arm cannot be reached with 32+ bytes.
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(bytes)
            .map_err(|_| KeyError::TooShort(bytes.len()))?;
        Ok(Self {
            _bytes: Zeroizing::new(bytes.to_vec()),
            keyed,
        })
    }

    /// A key from base64 text (standard or URL-safe, padded or not).
    pub fn from_base64(text: &str) -> Result<Self, KeyError> {
        let text = text.trim();
        let bytes = STANDARD
            .decode(text)
            .or_else(|_| URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')))
            .map(Zeroizing::new)
            .map_err(|_| KeyError::NotBase64)?;
        Self::new(bytes.as_slice())
    }

    /// A fresh random 32-byte key, for states that never outlive this process.
    pub fn generate() -> Result<Self, KeyError> {
        let mut bytes = Zeroizing::new(vec![0u8; Self::MIN_LEN]);
        getrandom::fill(&mut bytes).map_err(|_| KeyError::NoRandomness)?;
        Self::new(bytes.as_slice())
    }

    /// A fresh MAC keyed with this key.
    pub(crate) fn mac(&self) -> Hmac<Sha256> {
        self.keyed.clone()
    }
}
