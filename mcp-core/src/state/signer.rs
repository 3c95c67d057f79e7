//! Minting and verifying state tokens: either mode, any key of the ring, a bounded lifetime.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::format::{self, Body, Protection, SEALED_NONCE, SIGNED_NONCE};
use super::mac::Signed;
use super::nonce;
use super::seal::Sealed;
use super::{Binding, KeyError, KeyRing, SigningKey};

/// The current time in Unix seconds. Injectable, so expiry can be tested.
///
/// `0` means the clock could not be read (the system clock reads so when it is set before
/// 1970). Verification then fails closed: no state verifies ([`StateError::ClockUnavailable`]),
/// and a state minted then carries an expiry in 1970, which no working clock accepts.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

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
    /// Minted with a key this signer does not hold.
    #[error("signed with an unknown key")]
    UnknownKey,
    /// Minted with a key of the ring that has retired ([`KeyRing::with_retired_at`]).
    #[error("signed with a retired key")]
    RetiredKey,
    /// The MAC (signed mode) or the AEAD tag (sealed mode) does not match: forged, tampered,
    /// or bound to another caller, method, target or arguments.
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

/// A token that verified: its payload and its expiry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedState {
    /// What was minted (the handler's serialized state), decrypted if it was sealed.
    pub payload: Vec<u8>,
    /// When the token expires (Unix seconds); it verifies up to and including that second.
    pub expires_at: u64,
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

/// Mints and verifies `requestState` tokens, signed (HMAC-SHA256) or sealed
/// (XChaCha20-Poly1305), with the keys of a [`KeyRing`].
///
/// ```
/// use std::time::Duration;
/// use typemcp_core::state::{Binding, Protection, SigningKey, StateSigner};
///
/// let signer = StateSigner::new(SigningKey::new([7u8; 32]).unwrap())
///     .with_ttl(Duration::from_secs(60))
///     .unwrap();
/// let binding = Binding::from_parts(["tools/call", "deploy"]);
/// let token = signer.sign(b"awaiting-confirmation", Some(&binding));
/// assert_eq!(signer.verify(&token, Some(&binding)).unwrap(), b"awaiting-confirmation");
/// assert!(signer.verify(&token, Some(&Binding::from_parts(["tools/call", "other"]))).is_err());
/// assert!(signer.verify(&format!("{token}-TAMPERED"), Some(&binding)).is_err());
/// // Every minting is unique, even of the same state in the same second.
/// assert_ne!(token, signer.sign(b"awaiting-confirmation", Some(&binding)));
/// // Sub-second TTLs are refused, not truncated.
/// assert!(StateSigner::generate().unwrap().with_ttl(Duration::from_millis(500)).is_err());
///
/// // Sealed: the client cannot read the state; this signer still verifies the signed one.
/// let sealing = signer.with_protection(Protection::Sealed);
/// let sealed = sealing.sign(b"price=1200", Some(&binding));
/// assert!(sealed.starts_with("mcp3s.") && !sealed.contains("cHJpY2U"));
/// assert_eq!(sealing.verify(&sealed, Some(&binding)).unwrap(), b"price=1200");
/// assert_eq!(sealing.verify(&token, Some(&binding)).unwrap(), b"awaiting-confirmation");
/// ```
#[derive(Clone)]
pub struct StateSigner {
    ring: KeyRing,
    protection: Protection,
    ttl: Duration,
    skew: Duration,
    max_token_bytes: usize,
    clock: Clock,
    bound: Option<Binding>,
}

impl std::fmt::Debug for StateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateSigner")
            .field("key_ring", &self.ring)
            .field("protection", &self.protection)
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

    /// A signer with this key (key id `"1"`), signed tokens, ten-minute expiry, five seconds
    /// of clock skew, no fixed binding.
    pub fn new(key: SigningKey) -> Self {
        Self::from_ring(KeyRing::single("1".to_owned(), key))
    }

    /// A signer minting with the ring's first key and verifying with all of them (otherwise
    /// as [`new`](Self::new)).
    pub fn from_ring(ring: KeyRing) -> Self {
        Self {
            ring,
            protection: Protection::Signed,
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

    /// Renames the minting key (tokens carry its id, in the clear, so keys can rotate). The id
    /// is not checked: ids from configuration belong in a [`KeyRing`], which checks them.
    #[must_use]
    pub fn with_key_id(mut self, key_id: impl Into<String>) -> Self {
        self.ring.rename_minting_key(key_id.into());
        self
    }

    /// Keeps verifying tokens minted with a previous key during a rotation (adds a verifying
    /// key to the ring; an id already in it keeps its earlier key).
    #[must_use]
    pub fn with_previous_key(mut self, key_id: impl Into<String>, key: SigningKey) -> Self {
        self.ring.push_verifying_key(key_id.into(), key);
        self
    }

    /// How new states are protected ([`Protection::Signed`] by default). States of either mode
    /// verify whatever this is.
    #[must_use]
    pub fn with_protection(mut self, protection: Protection) -> Self {
        self.protection = protection;
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

    /// How new states are protected.
    pub fn protection(&self) -> Protection {
        self.protection
    }

    /// The keys (`Debug` shows their ids only).
    pub fn key_ring(&self) -> &KeyRing {
        &self.ring
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

    /// Mints a token of `payload` under `binding` (or the fixed binding, or none), with the
    /// ring's minting key, in this signer's [`Protection`]:
    ///
    /// - signed: `mcp3.<key id>.<expiry>.<nonce>.<payload>.<tag>`;
    /// - sealed: `mcp3s.<key id>.<expiry>.<nonce>.<ciphertext>`;
    ///
    /// the expiry in decimal Unix seconds, the rest unpadded base64url. The nonce is random,
    /// so each minting differs. The binding is not in the token.
    pub fn sign(&self, payload: &[u8], binding: Option<&Binding>) -> String {
        let none = Binding::none();
        let binding = binding.or(self.bound.as_ref()).unwrap_or(&none);
        let expiry = (self.clock)().saturating_add(self.ttl.as_secs());
        let minting = self.ring.minting();
        let (kid, key) = (minting.id.as_bytes(), &minting.key);
        let fields = [kid, &expiry.to_be_bytes(), binding.as_bytes(), payload];
        match self.protection {
            Protection::Signed => {
                let nonce: [u8; SIGNED_NONCE] = nonce::fresh(key, &fields);
                let signed = Signed {
                    kid,
                    expiry,
                    nonce: &nonce,
                    binding,
                    payload,
                };
                format::signed(kid, expiry, &nonce, payload, &signed.tag(key))
            }
            Protection::Sealed => {
                let nonce: [u8; SEALED_NONCE] = nonce::fresh(key, &fields);
                let sealed = Sealed {
                    kid,
                    expiry,
                    nonce: &nonce,
                    binding,
                };
                format::sealed(kid, expiry, &nonce, &sealed.seal(key, payload))
            }
        }
    }

    /// Verifies `token` under `binding` (or the fixed binding, or none) and returns its payload.
    ///
    /// Tokens of both modes verify, minted with any key of the ring that has not retired.
    /// Every field must be in its one canonical spelling (the version exactly, base64url
    /// without padding or stray bits, the expiry in decimal without sign or leading zeros),
    /// and every minting carries a fresh nonce: a state has exactly one token, and no two
    /// mintings share one, so a single-use store keyed on the token text is sound.
    pub fn verify(&self, token: &str, binding: Option<&Binding>) -> Result<Vec<u8>, StateError> {
        self.verify_state(token, binding).map(|state| state.payload)
    }

    /// Like [`verify`](Self::verify), and also returns the token's expiry (what a single-use
    /// store needs to remember a consumed state exactly as long as it could be replayed).
    ///
    /// The checks, in order: the length cap (before any decoding), the format, the key id
    /// ([`UnknownKey`](StateError::UnknownKey)), the clock
    /// ([`ClockUnavailable`](StateError::ClockUnavailable)), the key's retirement, the MAC or
    /// AEAD tag in constant time, then the expiry.
    pub fn verify_state(
        &self,
        token: &str,
        binding: Option<&Binding>,
    ) -> Result<VerifiedState, StateError> {
        if token.len() > self.max_token_bytes {
            return Err(StateError::TooLarge {
                len: token.len(),
                max: self.max_token_bytes,
            });
        }
        let format::Parsed { kid, expiry, body } = format::parse(token)?;
        let entry = self.ring.find(&kid).ok_or(StateError::UnknownKey)?;
        let now = (self.clock)();
        if now == 0 {
            return Err(StateError::ClockUnavailable);
        }
        if entry.retired_at.is_some_and(|at| now >= at) {
            return Err(StateError::RetiredKey);
        }
        let none = Binding::none();
        let binding = binding.or(self.bound.as_ref()).unwrap_or(&none);
        let payload = match body {
            Body::Signed {
                nonce,
                payload,
                tag,
            } => {
                let signed = Signed {
                    kid: &kid,
                    expiry,
                    nonce: &nonce,
                    binding,
                    payload: &payload,
                };
                signed.verify(&entry.key, &tag)?;
                payload
            }
            Body::Sealed { nonce, ciphertext } => {
                let sealed = Sealed {
                    kid: &kid,
                    expiry,
                    nonce: &nonce,
                    binding,
                };
                sealed.open(&entry.key, ciphertext)?
            }
        };
        self.check_lifetime(expiry, now)?;
        Ok(VerifiedState {
            payload,
            expires_at: expiry,
        })
    }

    /// Valid from now up to its expiry, and that expiry no further ahead than a state this
    /// signer mints now, plus the skew.
    fn check_lifetime(&self, expiry: u64, now: u64) -> Result<(), StateError> {
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
