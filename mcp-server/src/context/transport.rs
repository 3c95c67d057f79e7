//! What the transport knows about a request: its kind, HTTP request parts, and the
//! authenticated identity an authentication layer attached.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::polling::SseControl;
use crate::caller::Caller;

/// The transport a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// Newline-delimited JSON over stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// Called directly in the same process (tests, embedding).
    InProcess,
}

/// The caller an authentication layer vouched for.
///
/// Over HTTP, the authentication layer of
/// [`transport::http::auth`](crate::transport::http::auth) puts it into the request's
/// extensions (the built-in bearer JWT validator, or your own `Authenticator`); handlers read
/// it with [`RequestContext::auth`](crate::RequestContext::auth), and the default request-state
/// binding includes its subject. Over stdio and on unprotected endpoints there is none.
///
/// ```
/// use typemcp_server::AuthIdentity;
/// let who = AuthIdentity::new("user-42").with_client_id("cli").with_scopes(["deploy"]);
/// assert_eq!(who.subject(), "user-42");
/// assert!(who.has_scope("deploy"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthIdentity {
    subject: String,
    client_id: Option<String>,
    scopes: Vec<String>,
    claims: Map<String, Value>,
}

impl AuthIdentity {
    /// An identity for the given subject (the `sub` claim, or your own user id).
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// Sets the OAuth client id.
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the granted scopes.
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Attaches the token's claims.
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The OAuth client id.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The granted scopes.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// The token's claims.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// What the transport knows about one request.
#[derive(Debug, Clone)]
pub struct TransportInfo {
    kind: TransportKind,
    http: Option<Arc<http::request::Parts>>,
    auth: Option<AuthIdentity>,
    /// Closes the request's SSE connection (a resumable stream of a 2025-11-25 session).
    sse: Option<SseControl>,
}

impl TransportInfo {
    /// A request read from stdio.
    pub fn stdio() -> Self {
        Self {
            kind: TransportKind::Stdio,
            http: None,
            auth: None,
            sse: None,
        }
    }

    /// A request made in-process.
    pub fn in_process() -> Self {
        Self {
            kind: TransportKind::InProcess,
            http: None,
            auth: None,
            sse: None,
        }
    }

    /// A request received over HTTP; the identity is taken from the request extensions.
    pub fn http(parts: http::request::Parts) -> Self {
        let auth = parts.extensions.get::<AuthIdentity>().cloned();
        Self {
            kind: TransportKind::Http,
            http: Some(Arc::new(parts)),
            auth,
            sse: None,
        }
    }

    /// Sets the authenticated identity (for in-process callers and tests).
    #[must_use]
    pub fn with_auth(mut self, auth: AuthIdentity) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Lets the handler close the connection of the request's resumable SSE stream.
    #[cfg(feature = "http")] // Used by the HTTP transport.
    pub(crate) fn with_sse_control(mut self, control: SseControl) -> Self {
        self.sse = Some(control);
        self
    }

    pub(crate) fn sse_control(&self) -> Option<&SseControl> {
        self.sse.as_ref()
    }

    /// The transport kind.
    pub fn kind(&self) -> TransportKind {
        self.kind
    }

    /// The HTTP request's method, URI, headers and extensions (not the body).
    pub fn http_parts(&self) -> Option<&http::request::Parts> {
        self.http.as_deref()
    }

    /// The authenticated identity, if any.
    pub fn auth(&self) -> Option<&AuthIdentity> {
        self.auth.as_ref()
    }

    /// Whom the request counts against for per-caller quotas (see [`Caller`]).
    pub(crate) fn caller(&self) -> Caller {
        #[cfg(feature = "http")]
        let peer = self.http.as_deref().and_then(crate::caller::peer_of);
        #[cfg(not(feature = "http"))]
        let peer = None;
        Caller::of(self.auth.as_ref().map(AuthIdentity::subject), peer)
    }
}
