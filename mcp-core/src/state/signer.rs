//! Signing and verifying state tokens.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Binding, KeyError, SigningKey};

/// The current time in Unix seconds. Injectable, so expiry can be tested.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Separates these signatures from any other use of the same key.
const DOMAIN: &[u8] = b"io.mcp-rust/request-state/v1";
const VERSION: &str = "mcp1";

/// Why a token was refused. For logs only: clients always get one fixed message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Longer than the configured cap (checked before any decoding).
    #[error("the token has {len} bytes, more than the {max} allowed")]
    TooLarge {
        /// Its length.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// Not a token of this format.
    #[error("malformed token: {0}")]
    Malformed(&'static str),
    /// Signed with a key this signer does not hold.
    #[error("signed with an unknown key")]
    UnknownKey,
    /// Minted for another caller, method, target or arguments.
    #[error("bound to another request")]
    BindingMismatch,
    /// The signature does not match: forged or tampered.
    #[error("bad signature")]
    BadSignature,
    /// Past its expiry.
    #[error("expired")]
    Expired,
}

/// Signs and verifies `requestState` tokens with HMAC-SHA256.
///
/// ```
/// use std::time::Duration;
/// use mcp_core::state::{Binding, SigningKey, StateSigner};
///
/// let signer = StateSigner::new(SigningKey::new([7u8; 32]).unwrap()).with_ttl(Duration::from_secs(60));
/// let binding = Binding::from_parts(["tools/call", "deploy"]);
/// let token = signer.sign(b"awaiting-confirmation", Some(&binding));
/// assert_eq!(signer.verify(&token, Some(&binding)).unwrap(), b"awaiting-confirmation");
/// assert!(signer.verify(&token, Some(&Binding::from_parts(["tools/call", "other"]))).is_err());
/// assert!(signer.verify(&format!("{token}-TAMPERED"), Some(&binding)).is_err());
/// ```
#[derive(Clone)]
pub struct StateSigner {
    key_id: String,
    key: SigningKey,
    previous: Vec<(String, SigningKey)>,
    ttl: Duration,
    max_token_bytes: usize,
    clock: Clock,
    bound: Option<Binding>,
}

impl std::fmt::Debug for StateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSigner")
            .field("key_id", &self.key_id)
            .field("ttl", &self.ttl)
            .field("max_token_bytes", &self.max_token_bytes)
            .finish_non_exhaustive()
    }
}

fn system_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl StateSigner {
    /// Ten minutes.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
    /// 16 KiB.
    pub const DEFAULT_MAX_TOKEN_BYTES: usize = 16 * 1024;

    /// A signer with this key (key id `"1"`), ten-minute expiry, no fixed binding.
    pub fn new(key: SigningKey) -> Self {
        Self {
            key_id: "1".to_owned(),
            key,
            previous: Vec::new(),
            ttl: Self::DEFAULT_TTL,
            max_token_bytes: Self::DEFAULT_MAX_TOKEN_BYTES,
            clock: Arc::new(system_clock),
            bound: None,
        }
    }

    /// A signer with a fresh random key: its states die with the process (and do not verify
    /// on another instance).
    pub fn generate() -> Result<Self, KeyError> {
        SigningKey::generate().map(Self::new)
    }

    /// A signer whose key is the base64 text of the environment variable `name`.
    pub fn from_env(name: &str) -> Result<Self, KeyError> {
        let text = std::env::var(name).map_err(|_| KeyError::MissingVariable(name.to_owned()))?;
        SigningKey::from_base64(&text).map(Self::new)
    }

    /// Names the signing key (tokens carry it, so keys can rotate).
    #[must_use]
    pub fn with_key_id(mut self, key_id: impl Into<String>) -> Self {
        self.key_id = key_id.into();
        self
    }

    /// Keeps verifying tokens signed with a previous key during a rotation.
    #[must_use]
    pub fn with_previous_key(mut self, key_id: impl Into<String>, key: SigningKey) -> Self {
        self.previous.push((key_id.into(), key));
        self
    }

    /// How long a minted state stays valid.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The longest token accepted, checked before decoding.
    #[must_use]
    pub fn with_max_token_bytes(mut self, max: usize) -> Self {
        self.max_token_bytes = max;
        self
    }

    /// Replaces the clock (tests of expiry).
    #[must_use]
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Fixes the binding used when [`sign`](Self::sign) and [`verify`](Self::verify) get none.
    #[must_use]
    pub fn bind_to(mut self, binding: Binding) -> Self {
        self.bound = Some(binding);
        self
    }

    /// The expiry.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The token length cap.
    pub fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }

    /// Signs `payload` under `binding` (or the fixed binding, or none).
    pub fn sign(&self, payload: &[u8], binding: Option<&Binding>) -> String {
        let none = Binding::none();
        let binding = binding.or(self.bound.as_ref()).unwrap_or(&none);
        let expiry = (self.clock)().saturating_add(self.ttl.as_secs());
        let hint = binding.hint();
        let tag = mac(&self.key, &self.key_id, expiry, &hint, binding, payload)
            .finalize()
            .into_bytes();
        format!(
            "{VERSION}.{}.{expiry}.{}.{}.{}",
            URL_SAFE_NO_PAD.encode(self.key_id.as_bytes()),
            URL_SAFE_NO_PAD.encode(hint),
            URL_SAFE_NO_PAD.encode(payload),
            URL_SAFE_NO_PAD.encode(tag),
        )
    }

    /// Verifies `token` under `binding` (or the fixed binding, or none) and returns its payload.
    pub fn verify(&self, token: &str, binding: Option<&Binding>) -> Result<Vec<u8>, StateError> {
        if token.len() > self.max_token_bytes {
            return Err(StateError::TooLarge {
                len: token.len(),
                max: self.max_token_bytes,
            });
        }
        let mut parts = token.split('.');
        let (Some(version), Some(kid), Some(expiry), Some(hint), Some(payload), Some(tag), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return Err(StateError::Malformed("wrong number of parts"));
        };
        if version != VERSION {
            return Err(StateError::Malformed("unknown version"));
        }
        let decode = |part: &str, what| {
            URL_SAFE_NO_PAD
                .decode(part)
                .map_err(|_| StateError::Malformed(what))
        };
        let kid = String::from_utf8(decode(kid, "key id is not base64url")?)
            .map_err(|_| StateError::Malformed("key id is not text"))?;
        let expiry: u64 = expiry
            .parse()
            .map_err(|_| StateError::Malformed("expiry is not a number"))?;
        let hint = decode(hint, "binding hint is not base64url")?;
        let payload = decode(payload, "payload is not base64url")?;
        let tag_bytes = decode(tag, "tag is not base64url")?;
        let key = if kid == self.key_id {
            &self.key
        } else {
            self.previous
                .iter()
                .find(|(id, _)| *id == kid)
                .map(|(_, k)| k)
                .ok_or(StateError::UnknownKey)?
        };
        let none = Binding::none();
        let binding = binding.or(self.bound.as_ref()).unwrap_or(&none);
        if hint != binding.hint() {
            return Err(StateError::BindingMismatch);
        }
        // Constant-time comparison.
        mac(key, &kid, expiry, &hint, binding, &payload)
            .verify_slice(&tag_bytes)
            .map_err(|_| StateError::BadSignature)?;
        if (self.clock)() > expiry {
            return Err(StateError::Expired);
        }
        Ok(payload)
    }
}

/// The MAC of a token's fields, each length-prefixed.
fn mac(
    key: &SigningKey,
    kid: &str,
    expiry: u64,
    hint: &[u8],
    binding: &Binding,
    payload: &[u8],
) -> Hmac<Sha256> {
    let mut mac = key.mac();
    for part in [
        DOMAIN,
        kid.as_bytes(),
        &expiry.to_be_bytes(),
        hint,
        binding.as_bytes(),
        payload,
    ] {
        mac.update(&(part.len() as u64).to_be_bytes());
        mac.update(part);
    }
    mac
}
