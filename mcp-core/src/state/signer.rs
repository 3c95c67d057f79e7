//! Signing and verifying state tokens: one spelling per state, a bounded lifetime.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Binding, KeyError, SigningKey};

/// The current time in Unix seconds. Injectable, so expiry can be tested.
///
/// `0` means the clock could not be read (the system clock reads so when it is set before
/// 1970). Verification then fails closed: no state verifies ([`StateError::ClockUnavailable`]),
/// and a state signed then carries an expiry in 1970, which no working clock accepts.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Separates these signatures from any other use of the same key (and from format 1).
const DOMAIN: &[u8] = b"io.mcp-rust/request-state/v2";
const VERSION: &str = "mcp2";

/// Why a token was refused. For logs only: clients always get one fixed message.
///
/// A token bound to another request is refused as [`BadSignature`](Self::BadSignature): the
/// binding travels only inside the MAC, so nothing tells it apart from a forgery.
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
    /// Not a token of this format, or a field not in its one canonical spelling.
    #[error("malformed token: {0}")]
    Malformed(&'static str),
    /// Signed with a key this signer does not hold.
    #[error("signed with an unknown key")]
    UnknownKey,
    /// The signature does not match: forged, tampered, or bound to another caller, method,
    /// target or arguments.
    #[error("bad signature")]
    BadSignature,
    /// Past its expiry.
    #[error("expired")]
    Expired,
    /// Its expiry is further ahead than this signer's TTL plus the clock skew allows: minted
    /// under a longer TTL, or by a clock running ahead.
    #[error("expires at {expiry}, later than this signer allows (now + ttl + skew = {limit})")]
    ExpiryTooFar {
        /// The token's expiry (Unix seconds).
        expiry: u64,
        /// The latest expiry accepted now (Unix seconds).
        limit: u64,
    },
    /// The clock could not be read (it returned 0): nothing verifies until it can.
    #[error("the clock cannot be read")]
    ClockUnavailable,
}

/// Why a [`StateSigner`] setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TtlError {
    /// A state would expire as it is minted: tokens count time in whole seconds.
    #[error("a request-state TTL must be at least one second, got {0:?}")]
    BelowOneSecond(Duration),
    /// Tokens count time in whole seconds; the fraction would be dropped silently.
    #[error("a request-state TTL must be a whole number of seconds, got {0:?}")]
    FractionalSeconds(Duration),
}

/// Signs and verifies `requestState` tokens with HMAC-SHA256.
///
/// ```
/// use std::time::Duration;
/// use mcp_core::state::{Binding, SigningKey, StateSigner};
///
/// let signer = StateSigner::new(SigningKey::new([7u8; 32]).unwrap())
///     .with_ttl(Duration::from_secs(60))
///     .unwrap();
/// let binding = Binding::from_parts(["tools/call", "deploy"]);
/// let token = signer.sign(b"awaiting-confirmation", Some(&binding));
/// assert_eq!(signer.verify(&token, Some(&binding)).unwrap(), b"awaiting-confirmation");
/// assert!(signer.verify(&token, Some(&Binding::from_parts(["tools/call", "other"]))).is_err());
/// assert!(signer.verify(&format!("{token}-TAMPERED"), Some(&binding)).is_err());
/// // Sub-second TTLs are refused, not truncated.
/// assert!(StateSigner::generate().unwrap().with_ttl(Duration::from_millis(500)).is_err());
/// ```
#[derive(Clone)]
pub struct StateSigner {
    key_id: String,
    key: SigningKey,
    previous: Vec<(String, SigningKey)>,
    ttl: Duration,
    skew: Duration,
    max_token_bytes: usize,
    clock: Clock,
    bound: Option<Binding>,
}

impl std::fmt::Debug for StateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSigner")
            .field("key_id", &self.key_id)
            .field("ttl", &self.ttl)
            .field("clock_skew", &self.skew)
            .field("max_token_bytes", &self.max_token_bytes)
            .finish_non_exhaustive()
    }
}

/// The system clock, `0` when it reads before 1970.
fn system_clock() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl StateSigner {
    /// Ten minutes.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(600);
    /// Five seconds.
    pub const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(5);
    /// 16 KiB.
    pub const DEFAULT_MAX_TOKEN_BYTES: usize = 16 * 1024;

    /// A signer with this key (key id `"1"`), ten-minute expiry, five seconds of clock skew,
    /// no fixed binding.
    pub fn new(key: SigningKey) -> Self {
        Self {
            key_id: "1".to_owned(),
            key,
            previous: Vec::new(),
            ttl: Self::DEFAULT_TTL,
            skew: Self::DEFAULT_CLOCK_SKEW,
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

    /// A signer whose key is the base64 text of the environment variable `name` (read into a
    /// buffer wiped on drop; the variable itself stays in the environment).
    pub fn from_env(name: &str) -> Result<Self, KeyError> {
        let text = std::env::var(name)
            .map(zeroize::Zeroizing::new)
            .map_err(|_| KeyError::MissingVariable(name.to_owned()))?;
        SigningKey::from_base64(&text).map(Self::new)
    }

    /// Names the signing key (tokens carry it, in the clear, so keys can rotate).
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

    /// How long a minted state stays valid: a whole number of seconds, at least one.
    ///
    /// It also bounds what verifies: a state whose expiry is further ahead than
    /// `now + ttl + skew` is refused, so lowering the TTL takes effect on states already out.
    pub fn with_ttl(mut self, ttl: Duration) -> Result<Self, TtlError> {
        if ttl < Duration::from_secs(1) {
            return Err(TtlError::BelowOneSecond(ttl));
        }
        if ttl.subsec_nanos() != 0 {
            return Err(TtlError::FractionalSeconds(ttl));
        }
        self.ttl = ttl;
        Ok(self)
    }

    /// How far ahead of this signer's clock another instance's clock may run (default five
    /// seconds): a state expiring later than `now + ttl + skew` is refused. Counted in whole
    /// seconds (a fraction is dropped, which only makes the bound stricter).
    #[must_use]
    pub fn with_clock_skew(mut self, skew: Duration) -> Self {
        self.skew = skew;
        self
    }

    /// The longest token accepted, checked before decoding.
    #[must_use]
    pub fn with_max_token_bytes(mut self, max: usize) -> Self {
        self.max_token_bytes = max;
        self
    }

    /// Replaces the clock (tests of expiry). See [`Clock`] for what `0` means.
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

    /// The clock skew tolerated.
    pub fn clock_skew(&self) -> Duration {
        self.skew
    }

    /// The token length cap.
    pub fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }

    /// Signs `payload` under `binding` (or the fixed binding, or none).
    ///
    /// The token is `mcp2.<key id>.<expiry>.<payload>.<tag>`: the key id, payload and tag in
    /// unpadded base64url, the expiry in decimal Unix seconds. The binding is not in it.
    pub fn sign(&self, payload: &[u8], binding: Option<&Binding>) -> String {
        let none = Binding::none();
        let binding = binding.or(self.bound.as_ref()).unwrap_or(&none);
        let expiry = (self.clock)().saturating_add(self.ttl.as_secs());
        let kid = self.key_id.as_bytes();
        let tag = mac(&self.key, kid, expiry, binding, payload)
            .finalize()
            .into_bytes();
        format!(
            "{VERSION}.{}.{expiry}.{}.{}",
            URL_SAFE_NO_PAD.encode(kid),
            URL_SAFE_NO_PAD.encode(payload),
            URL_SAFE_NO_PAD.encode(tag),
        )
    }

    /// Verifies `token` under `binding` (or the fixed binding, or none) and returns its payload.
    ///
    /// Every field must be in its one canonical spelling (the version exactly, base64url
    /// without padding or stray bits, the expiry in decimal without sign or leading zeros), so
    /// a state has exactly one token: a replay cache keyed on the token text is sound.
    pub fn verify(&self, token: &str, binding: Option<&Binding>) -> Result<Vec<u8>, StateError> {
        if token.len() > self.max_token_bytes {
            return Err(StateError::TooLarge {
                len: token.len(),
                max: self.max_token_bytes,
            });
        }
        let mut parts = token.split('.');
        let (Some(version), Some(kid), Some(expiry), Some(payload), Some(tag), None) = (
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
        let kid = decode_canonical(kid, "key id is not canonical base64url")?;
        let expiry = parse_expiry(expiry)?;
        let payload = decode_canonical(payload, "payload is not canonical base64url")?;
        let tag = decode_canonical(tag, "tag is not canonical base64url")?;
        let key = if kid == self.key_id.as_bytes() {
            &self.key
        } else {
            self.previous
                .iter()
                .find(|(id, _)| id.as_bytes() == kid)
                .map(|(_, k)| k)
                .ok_or(StateError::UnknownKey)?
        };
        let none = Binding::none();
        let binding = binding.or(self.bound.as_ref()).unwrap_or(&none);
        // Constant-time comparison (a tag of another length is refused too).
        mac(key, &kid, expiry, binding, &payload)
            .verify_slice(&tag)
            .map_err(|_| StateError::BadSignature)?;
        self.check_lifetime(expiry)?;
        Ok(payload)
    }

    /// Valid from now up to its expiry, and that expiry no further ahead than a state this
    /// signer mints now, plus the skew. An unreadable clock fails closed.
    fn check_lifetime(&self, expiry: u64) -> Result<(), StateError> {
        let now = (self.clock)();
        if now == 0 {
            return Err(StateError::ClockUnavailable);
        }
        if now > expiry {
            return Err(StateError::Expired);
        }
        let limit = now
            .saturating_add(self.ttl.as_secs())
            .saturating_add(self.skew.as_secs());
        if expiry > limit {
            return Err(StateError::ExpiryTooFar { expiry, limit });
        }
        Ok(())
    }
}

/// Decodes unpadded base64url, refusing any text that is not the canonical encoding of the
/// bytes it decodes to (padding, non-zero trailing bits).
fn decode_canonical(part: &str, what: &'static str) -> Result<Vec<u8>, StateError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| StateError::Malformed(what))?;
    // Whole groups of four characters and three bytes map one to one; only the last, partial
    // group can be spelled otherwise. The engine already refuses padding and stray bits:
    // re-encoding that group keeps the rule explicit and independent of its configuration.
    let (full_chars, full_bytes) = (part.len() / 4 * 4, part.len() / 4 * 3);
    let tail = bytes.get(full_bytes..).unwrap_or_default();
    let spelled = part.get(full_chars..).unwrap_or_default();
    if URL_SAFE_NO_PAD.encode(tail) != spelled {
        return Err(StateError::Malformed(what));
    }
    Ok(bytes)
}

/// The expiry in canonical decimal: ASCII digits only (no sign, no space), no leading zero,
/// within `u64`.
fn parse_expiry(text: &str) -> Result<u64, StateError> {
    const NOT_CANONICAL: StateError = StateError::Malformed("expiry is not a canonical number");
    let digits_only = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits_only || (text.len() > 1 && text.starts_with('0')) {
        return Err(NOT_CANONICAL);
    }
    text.parse().map_err(|_| NOT_CANONICAL)
}

/// The MAC of a token's fields, each length-prefixed.
fn mac(
    key: &SigningKey,
    kid: &[u8],
    expiry: u64,
    binding: &Binding,
    payload: &[u8],
) -> Hmac<Sha256> {
    let mut mac = key.mac();
    for part in [
        DOMAIN,
        kid,
        &expiry.to_be_bytes(),
        binding.as_bytes(),
        payload,
    ] {
        mac.update(&(part.len() as u64).to_be_bytes());
        mac.update(part);
    }
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expiry_has_one_spelling() {
        assert_eq!(parse_expiry("1796073536"), Ok(1_796_073_536));
        assert_eq!(parse_expiry("0"), Ok(0));
        for respelled in [
            "+1796073536",
            "01796073536",
            "00",
            " 1796073536",
            "1796073536 ",
            "-0",
            "",
            "1_796_073_536",
            "18446744073709551616",
        ] {
            assert!(parse_expiry(respelled).is_err(), "{respelled:?}");
        }
    }

    #[test]
    fn base64_fields_have_one_spelling() {
        // "QQ" is the canonical spelling of "A"; "QR".."QV" differ only in unused bits.
        assert_eq!(decode_canonical("QQ", "x"), Ok(b"A".to_vec()));
        for respelled in ["QR", "QV", "QQ==", "QQ=", "Q Q", "QQ\n"] {
            assert!(decode_canonical(respelled, "x").is_err(), "{respelled:?}");
        }
    }
}
