//! The request-state signer of a server, and what each state is bound to.

use std::sync::Arc;
#[cfg(feature = "http")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;
use typemcp_core::state::{
    Binding, BindingRequest, Clock, KeyError, KeyRing, Protection, SigningKey, StateError,
    StateSigner, TtlError, VerifiedState,
};

use super::single_use::SingleUseStore;
use crate::RequestContext;

/// What a binding policy sees of a request.
#[derive(Debug, Clone, Copy)]
pub struct BindingContext<'a> {
    /// The request (method, authenticated identity, HTTP parts).
    pub request: &'a RequestContext,
    /// The tool name, prompt name or resource URI.
    pub target: &'a str,
    /// The arguments (`{}` for resources).
    pub arguments: &'a Value,
}

type Policy = Arc<dyn Fn(&BindingContext<'_>) -> Binding + Send + Sync>;

/// Signs the states handlers hand out and verifies the ones clients echo back.
///
/// By default each state is bound to the authenticated subject (empty over stdio or on an
/// unauthenticated endpoint), the method, the tool name / prompt name / resource URI, and a
/// digest of the canonicalised arguments: a state minted for `{target: staging}` cannot
/// resume `{target: production}`, another tool, or another caller. [`bind_by`](Self::bind_by)
/// replaces that policy.
///
/// ```
/// use std::time::Duration;
/// use typemcp_server::state::RequestStateSigner;
/// use typemcp_server::typemcp_core::state::Binding;
///
/// // From configuration (base64, at least 32 bytes), with a 5-minute expiry:
/// # unsafe { std::env::set_var("DOC_STATE_KEY", "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE="); }
/// let signer = RequestStateSigner::from_env("DOC_STATE_KEY").unwrap().ttl(Duration::from_secs(300)).unwrap();
/// // Bound by tenant header instead of the default policy, extending it:
/// let signer = signer.bind_by(|ctx| {
///     let tenant = ctx.request.transport().http_parts()
///         .and_then(|p| p.headers.get("x-tenant")).and_then(|h| h.to_str().ok()).unwrap_or("");
///     let default = RequestStateSigner::derive_binding(ctx);
///     Binding::from_parts([tenant.as_bytes(), default.as_bytes()])
/// });
/// # let _ = signer;
/// ```
#[derive(Clone)]
pub struct RequestStateSigner {
    signer: StateSigner,
    policy: Option<Policy>,
    fixed: Option<Binding>,
    /// Whether question messages ride in the states `Round` mints.
    keep_messages: bool,
    /// The key was drawn for this process (`generate`), so no other instance can verify.
    process_key: bool,
    /// The process-key warning was logged already (shared by clones); only HTTP logs it.
    #[cfg(feature = "http")]
    warned: Arc<AtomicBool>,
    /// Where consumed states are recorded, when each state is good for one use.
    single_use: Option<Arc<dyn SingleUseStore>>,
}

impl std::fmt::Debug for RequestStateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStateSigner")
            .field("signer", &self.signer)
            .field("custom_policy", &self.policy.is_some())
            .field("messages_in_state", &self.keep_messages)
            .field("process_key", &self.process_key)
            .field("single_use", &self.single_use.is_some())
            .finish_non_exhaustive()
    }
}

impl RequestStateSigner {
    /// Logs, once per signer, a warning when it signs with a key drawn for its own process:
    /// fine for one instance, but behind a load balancer (or across a restart) another
    /// instance cannot verify the state, and every resumed multi-round request is refused.
    #[cfg(feature = "http")] // Called when HTTP serving starts.
    pub(crate) fn warn_if_process_key(&self) {
        if self.process_key && !self.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "serving HTTP with a request-state key drawn for this process only: behind a load balancer, \
                 or after a restart, another instance cannot verify the states this one signs, and every \
                 resumed multi-round request (input_required) is refused with -32602; give every instance \
                 the same key (RequestStateSigner::from_env(\"MCP_REQUEST_STATE_KEY\"))"
            );
        }
    }

    /// A signer with this key (at least 32 bytes).
    pub fn new(key: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        SigningKey::new(key).map(|k| Self::from_signer(StateSigner::new(k)))
    }

    /// A signer with a fresh random key, for states that never outlive this process (and
    /// never verify on another instance: serving HTTP with it logs a warning at start-up).
    pub fn generate() -> Result<Self, KeyError> {
        StateSigner::generate().map(|signer| Self {
            process_key: true,
            ..Self::from_signer(signer)
        })
    }

    /// A signer whose key is the base64 value of an environment variable.
    pub fn from_env(name: &str) -> Result<Self, KeyError> {
        StateSigner::from_env(name).map(Self::from_signer)
    }

    /// A signer minting with the ring's first key and verifying with every key of it (key
    /// rotation from configuration).
    ///
    /// ```
    /// use typemcp_server::typemcp_core::state::KeyRing;
    /// use typemcp_server::state::RequestStateSigner;
    ///
    /// let ring = KeyRing::parse(
    ///     "2026-11:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE,\
    ///      2026-10:YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY:1793492100",
    /// ).unwrap();
    /// let signer = RequestStateSigner::from_ring(ring);
    /// let token = signer.sign(b"position", None);
    /// assert_eq!(signer.verify(&token, None).unwrap(), b"position");
    /// ```
    pub fn from_ring(ring: KeyRing) -> Self {
        Self::from_signer(StateSigner::from_ring(ring))
    }

    /// A signer whose key ring is the text of an environment variable (for example
    /// `MCP_REQUEST_STATE_KEYS`: `ID:BASE64[:RETIRE_AT]` entries separated by commas, the
    /// first one minting). Errors never include key material.
    ///
    /// ```
    /// use typemcp_server::state::RequestStateSigner;
    ///
    /// # unsafe { std::env::set_var("DOC_STATE_KEYS", "k2:MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE,k1:YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY"); }
    /// let signer = RequestStateSigner::from_env_ring("DOC_STATE_KEYS").unwrap();
    /// assert!(RequestStateSigner::from_env_ring("DOC_NO_SUCH_VARIABLE").is_err());
    /// # let _ = signer;
    /// ```
    pub fn from_env_ring(name: &str) -> Result<Self, KeyError> {
        KeyRing::from_env(name).map(Self::from_ring)
    }

    /// Seals the states it mints ([`Protection::Sealed`]): the payload is encrypted
    /// (XChaCha20-Poly1305), so the client cannot read it, with the same binding, expiry and
    /// key ids as signed states. States of either mode keep verifying, so switching loses no
    /// state in flight.
    ///
    /// ```
    /// use typemcp_server::typemcp_core::state::Protection;
    /// use typemcp_server::state::RequestStateSigner;
    ///
    /// let signed = RequestStateSigner::new([7u8; 32]).unwrap();
    /// let sealed = signed.clone().sealed();
    /// assert_eq!(sealed.protection(), Protection::Sealed);
    /// let token = sealed.sign(b"a quote the client must not see", None);
    /// assert_eq!(sealed.verify(&token, None).unwrap(), b"a quote the client must not see");
    /// // A signed state still verifies after the switch.
    /// let before = signed.sign(b"in flight", None);
    /// assert_eq!(sealed.verify(&before, None).unwrap(), b"in flight");
    /// ```
    #[must_use]
    pub fn sealed(mut self) -> Self {
        self.signer = self.signer.with_protection(Protection::Sealed);
        self
    }

    /// How the states it mints are protected (signed by default).
    pub fn protection(&self) -> Protection {
        self.signer.protection()
    }

    /// Wraps a configured [`StateSigner`] (key rotation, key id, clock).
    pub fn from_signer(signer: StateSigner) -> Self {
        Self {
            signer,
            policy: None,
            fixed: None,
            keep_messages: true,
            process_key: false,
            #[cfg(feature = "http")]
            warned: Arc::default(),
            single_use: None,
        }
    }

    /// How long a state stays valid (default ten minutes): a whole number of seconds, at
    /// least one; anything else is refused, not truncated.
    pub fn ttl(mut self, ttl: Duration) -> Result<Self, TtlError> {
        self.signer = self.signer.with_ttl(ttl)?;
        Ok(self)
    }

    setters! {
        /// How far another instance's clock may run ahead (default five seconds): a state that
        /// expires later than `now + ttl + skew` is refused.
        pub fn clock_skew(skew: Duration) |b| b.signer = b.signer.with_clock_skew(skew);

        /// Whether the messages of `Round`'s questions travel in the signed state (default
        /// `true`).
        ///
        /// Kept, a question asked again (its answer was missing or malformed) repeats its own
        /// message, and each state grows by its messages' length. Dropped, states stay small and a
        /// question is asked again with a fixed message ("Please answer again: ..."). What a
        /// question built at run time needs to be checked and asked again (its options, schema or
        /// URL) always travels.
        pub fn messages_in_state(keep: bool) |b| b.keep_messages = keep;
    }

    /// Makes every state good for one use: after it verifies, and before the handler runs,
    /// each echoed state is consumed in `store`, and a state consumed already is refused like
    /// any bad state (`-32602` with the fixed message; "replayed" in the log). A store that
    /// fails refuses the request with `-32603` and logs why.
    ///
    /// Every flow with a destructive step needs this: without it, the last request of a
    /// finished flow can be sent again while its state lives, and runs the action again, and
    /// an earlier round's state rewinds the flow. A consumed state cannot be retried either:
    /// a client whose request failed after the state was consumed starts the flow over.
    /// [`MemoryStore`](crate::state::single_use::MemoryStore) suits one instance; behind a load
    /// balancer every instance needs the same store (`RedisStore`, feature `redis`).
    ///
    /// ```
    /// use typemcp_server::Server;
    /// use typemcp_server::state::RequestStateSigner;
    /// use typemcp_server::state::single_use::MemoryStore;
    ///
    /// # unsafe { std::env::set_var("DOC_SINGLE_USE_KEY", "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE="); }
    /// let signer = RequestStateSigner::from_env("DOC_SINGLE_USE_KEY")
    ///     .unwrap()
    ///     .single_use(MemoryStore::with_capacity(50_000));
    /// let server = Server::builder().request_state_signer(signer).build().unwrap();
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn single_use(self, store: impl SingleUseStore) -> Self {
        self.single_use_arc(Arc::new(store))
    }

    /// Like [`single_use`](Self::single_use), with a store shared already (one store for
    /// several servers in one process, or kept to inspect).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use typemcp_server::state::RequestStateSigner;
    /// use typemcp_server::state::single_use::{MemoryStore, SingleUseStore};
    ///
    /// let store: Arc<dyn SingleUseStore> = Arc::new(MemoryStore::new());
    /// let a = RequestStateSigner::generate().unwrap().single_use_arc(Arc::clone(&store));
    /// assert!(a.is_single_use());
    /// ```
    #[must_use]
    pub fn single_use_arc(mut self, store: Arc<dyn SingleUseStore>) -> Self {
        self.single_use = Some(store);
        self
    }

    /// Whether each state is good for one use ([`single_use`](Self::single_use)).
    pub fn is_single_use(&self) -> bool {
        self.single_use.is_some()
    }

    /// The single-use store, when there is one.
    pub(crate) fn single_use_store(&self) -> Option<&Arc<dyn SingleUseStore>> {
        self.single_use.as_ref()
    }

    /// When a state expiring at `expires_at` was minted, on the minting instance's clock: its
    /// expiry minus this signer's TTL (instances share the TTL; one that mints with a longer
    /// TTL than the verifier's dates its states later than they were).
    pub(crate) fn minted_at(&self, expires_at: u64) -> u64 {
        expires_at.saturating_sub(self.signer.ttl().as_secs())
    }

    /// How long a consumed state must be remembered: through its expiry plus the clock
    /// skew (another instance whose clock runs behind still verifies it until then).
    pub(crate) fn remember_until(&self, expires_at: u64) -> u64 {
        let skew = self.signer.clock_skew();
        let skew = skew.as_secs() + u64::from(skew.subsec_nanos() > 0);
        expires_at.saturating_add(skew)
    }

    /// Whether question messages travel in the state.
    pub fn keeps_messages(&self) -> bool {
        self.keep_messages
    }

    /// The longest state accepted (and minted).
    pub fn state_bytes_cap(&self) -> usize {
        self.signer.max_token_bytes()
    }

    /// Whether the key was drawn for this process ([`generate`](Self::generate)).
    pub fn is_process_key(&self) -> bool {
        self.process_key
    }

    setters! {
        /// The longest state accepted, checked before decoding (default 16 KiB).
        pub fn max_state_bytes(max: usize) |b| b.signer = b.signer.with_max_token_bytes(max);

        /// Replaces the clock (tests of expiry).
        pub fn clock(clock: Clock) |b| b.signer = b.signer.with_clock(clock);
    }

    /// Replaces the binding policy with a function of the request and what the transport
    /// knows. Call [`derive_binding`](Self::derive_binding) inside it to extend the default.
    #[must_use]
    pub fn bind_by<F>(mut self, policy: F) -> Self
    where
        F: Fn(&BindingContext<'_>) -> Binding + Send + Sync + 'static,
    {
        self.policy = Some(Arc::new(policy));
        self.fixed = None;
        self
    }

    /// Binds every state to one fixed binding, whatever the request.
    #[must_use]
    pub fn bind_to(mut self, binding: Binding) -> Self {
        self.fixed = Some(binding);
        self.policy = None;
        self
    }

    /// The default policy: subject, method, target and argument digest.
    pub fn derive_binding(ctx: &BindingContext<'_>) -> Binding {
        let subject = ctx
            .request
            .auth()
            .map(|a| a.subject())
            .filter(|s| !s.is_empty());
        Binding::derive(&BindingRequest {
            subject,
            method: ctx.request.method(),
            target: ctx.target,
            arguments: ctx.arguments,
        })
    }

    /// The binding this signer's policy gives a request.
    pub fn bind_for(&self, ctx: &BindingContext<'_>) -> Binding {
        match (&self.fixed, &self.policy) {
            (Some(fixed), _) => fixed.clone(),
            (None, Some(policy)) => policy(ctx),
            (None, None) => Self::derive_binding(ctx),
        }
    }

    /// Signs a payload under an explicit binding (or the fixed one, or none).
    pub fn sign(&self, payload: &[u8], binding: Option<&Binding>) -> String {
        self.signer.sign(payload, binding.or(self.fixed.as_ref()))
    }

    /// Verifies a token under an explicit binding (or the fixed one, or none). This does not
    /// consume it, even with [`single_use`](Self::single_use): only a state echoed on a
    /// request is consumed, before its handler runs.
    pub fn verify(&self, token: &str, binding: Option<&Binding>) -> Result<Vec<u8>, StateError> {
        self.signer.verify(token, binding.or(self.fixed.as_ref()))
    }

    /// Like [`verify`](Self::verify), with the token's expiry.
    pub(crate) fn verify_state(
        &self,
        token: &str,
        binding: Option<&Binding>,
    ) -> Result<VerifiedState, StateError> {
        self.signer
            .verify_state(token, binding.or(self.fixed.as_ref()))
    }
}
