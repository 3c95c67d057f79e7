//! The request-state signer of a server, and what each state is bound to.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::state::{
    Binding, BindingRequest, Clock, KeyError, SigningKey, StateError, StateSigner,
};
use serde_json::Value;

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
/// use mcp_server::state::RequestStateSigner;
/// use mcp_server::mcp_core::state::Binding;
///
/// // From configuration (base64, at least 32 bytes), with a 5-minute expiry:
/// # unsafe { std::env::set_var("DOC_STATE_KEY", "MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDE="); }
/// let signer = RequestStateSigner::from_env("DOC_STATE_KEY").unwrap().ttl(Duration::from_secs(300));
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
}

impl std::fmt::Debug for RequestStateSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStateSigner")
            .field("signer", &self.signer)
            .field("custom_policy", &self.policy.is_some())
            .finish_non_exhaustive()
    }
}

impl RequestStateSigner {
    /// A signer with this key (at least 32 bytes).
    pub fn new(key: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        SigningKey::new(key).map(|k| Self::from_signer(StateSigner::new(k)))
    }

    /// A signer with a fresh random key, for states that never outlive this process.
    pub fn generate() -> Result<Self, KeyError> {
        StateSigner::generate().map(Self::from_signer)
    }

    /// A signer whose key is the base64 value of an environment variable.
    pub fn from_env(name: &str) -> Result<Self, KeyError> {
        StateSigner::from_env(name).map(Self::from_signer)
    }

    /// Wraps a configured [`StateSigner`] (key rotation, key id, clock).
    pub fn from_signer(signer: StateSigner) -> Self {
        Self {
            signer,
            policy: None,
            fixed: None,
        }
    }

    /// How long a state stays valid (default ten minutes).
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.signer = self.signer.with_ttl(ttl);
        self
    }

    /// The longest state accepted, checked before decoding (default 16 KiB).
    #[must_use]
    pub fn max_state_bytes(mut self, max: usize) -> Self {
        self.signer = self.signer.with_max_token_bytes(max);
        self
    }

    /// Replaces the clock (tests of expiry).
    #[must_use]
    pub fn clock(mut self, clock: Clock) -> Self {
        self.signer = self.signer.with_clock(clock);
        self
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

    /// Verifies a token under an explicit binding (or the fixed one, or none).
    pub fn verify(&self, token: &str, binding: Option<&Binding>) -> Result<Vec<u8>, StateError> {
        self.signer.verify(token, binding.or(self.fixed.as_ref()))
    }
}
