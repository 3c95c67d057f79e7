#![doc = include_str!("../../../docs/auth.md")]

#[cfg(feature = "auth-jwt")]
mod jwt;
mod metadata;

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::response::Response;
use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::{Request, StatusCode};
use tower::{Layer, Service};
use typemcp_core::McpError;

#[cfg(feature = "auth-jwt")]
pub use jwt::{JwtAuthenticator, JwtAuthenticatorBuilder, JwtConfigError};
pub use metadata::{MetadataError, ProtectedResourceMetadata};

use super::stream;
use crate::AuthIdentity;
use crate::dispatch::Reply;

/// What [`Authenticator::authenticate`] returns: the caller's identity, `None` to let the
/// request through without one, or a refusal (HTTP 401).
pub type AuthResult = Result<Option<AuthIdentity>, AuthRejection>;

/// The future of [`Authenticator::authenticate`].
pub type AuthFuture<'a> = Pin<Box<dyn Future<Output = AuthResult> + Send + 'a>>;

/// Turns an HTTP request (its method, URI, headers and extensions; never its body) into the
/// identity of its caller.
///
/// The [`AuthLayer`] calls it once per request, before the MCP endpoint, and inserts the
/// identity into the request's extensions, where handlers read it with
/// [`RequestContext::auth`](crate::RequestContext::auth). Return:
/// - `Ok(Some(identity))` for an authenticated caller;
/// - `Ok(None)` to let the request through anonymously (the subject stays empty);
/// - `Err(rejection)` to answer 401 with a `WWW-Authenticate: Bearer` challenge. The
///   rejection's reason is logged, never sent.
///
/// The trait is object safe: [`HttpConfig::authenticate`](super::HttpConfig::authenticate)
/// keeps it as `Arc<dyn Authenticator>`.
pub trait Authenticator: Send + Sync + 'static {
    /// Authenticates one request.
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a>;
}

impl<A: Authenticator + ?Sized> Authenticator for Arc<A> {
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a> {
        (**self).authenticate(request)
    }
}

/// Why a request was refused.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionKind {
    /// No credentials: 401 with `WWW-Authenticate: Bearer resource_metadata="…"`.
    MissingCredentials,
    /// Credentials were given and refused (malformed, expired, wrongly signed, for another
    /// issuer or audience): 401 with `error="invalid_token"` added to the challenge.
    InvalidToken,
}

/// A refused request: its kind decides the response, its reason goes to the log only.
///
/// The reason must never contain the credentials themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthRejection {
    kind: RejectionKind,
    reason: Cow<'static, str>,
}

impl AuthRejection {
    /// The request carries no credentials this authenticator understands.
    pub fn missing_credentials(reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            kind: RejectionKind::MissingCredentials,
            reason: reason.into(),
        }
    }

    /// The request's credentials were refused, for `reason` (logged, never sent).
    pub fn invalid_token(reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            kind: RejectionKind::InvalidToken,
            reason: reason.into(),
        }
    }

    /// The kind of refusal.
    pub fn kind(&self) -> RejectionKind {
        self.kind
    }

    /// Why the request was refused.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for AuthRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for AuthRejection {}

/// The bearer token of the request's `Authorization` header (RFC 6750 §2.1), if any.
///
/// `Ok(None)` when there is no `Authorization` header or it uses another scheme; an
/// [`invalid_token`](AuthRejection::invalid_token) rejection when there are several, or the
/// bearer token is empty or not visible ASCII. Tokens in the query string are not read (the
/// MCP authorization specification forbids them).
pub fn bearer_token(request: &http::request::Parts) -> Result<Option<&str>, AuthRejection> {
    let mut values = request.headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(AuthRejection::invalid_token(
            "several Authorization headers",
        ));
    }
    let Ok(value) = value.to_str() else {
        return Err(AuthRejection::invalid_token(
            "the Authorization header is not visible ASCII",
        ));
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(None);
    }
    let token = token.trim();
    if token.is_empty() || token.contains(' ') {
        return Err(AuthRejection::invalid_token("a malformed bearer token"));
    }
    Ok(Some(token))
}

/// The tower layer that authenticates every request before the service it wraps.
///
/// [`HttpConfig::authenticate`](super::HttpConfig::authenticate) puts it in front of the MCP
/// endpoint; use it directly to protect routes of your own as well:
///
/// ```
/// use axum::{Router, routing::get};
/// use typemcp_server::transport::http::auth::{
///     AuthFuture, AuthLayer, Authenticator, ProtectedResourceMetadata,
/// };
///
/// struct Nobody;
/// impl Authenticator for Nobody {
///     fn authenticate<'a>(&'a self, _: &'a http::request::Parts) -> AuthFuture<'a> {
///         Box::pin(async { Ok(None) })
///     }
/// }
///
/// let metadata =
///     ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://auth.example.com")?;
/// let app: Router = Router::new()
///     .route("/reports", get(|| async { "reports" }))
///     .layer(AuthLayer::new(Nobody, &metadata));
/// # let _ = app;
/// # Ok::<(), typemcp_server::transport::http::auth::MetadataError>(())
/// ```
#[derive(Clone)]
pub struct AuthLayer {
    guard: Arc<Guard>,
}

/// What every [`AuthService`] of one layer shares.
struct Guard {
    authenticator: Arc<dyn Authenticator>,
    /// `Bearer resource_metadata="…"`.
    challenge: http::HeaderValue,
    /// `Bearer error="invalid_token", resource_metadata="…"`.
    invalid_challenge: http::HeaderValue,
}

impl AuthLayer {
    /// Authenticates with `authenticator`; refusals point clients to `metadata`.
    pub fn new(authenticator: impl Authenticator, metadata: &ProtectedResourceMetadata) -> Self {
        Self::from_arc(Arc::new(authenticator), metadata)
    }

    /// Like [`AuthLayer::new`], with an authenticator already shared.
    pub fn from_arc(
        authenticator: Arc<dyn Authenticator>,
        metadata: &ProtectedResourceMetadata,
    ) -> Self {
        let (challenge, invalid_challenge) = metadata.challenges();
        Self {
            guard: Arc::new(Guard {
                authenticator,
                challenge,
                invalid_challenge,
            }),
        }
    }
}

impl fmt::Debug for AuthLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthLayer")
            .field("challenge", &self.guard.challenge)
            .finish_non_exhaustive()
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            inner,
            guard: Arc::clone(&self.guard),
        }
    }
}

/// The service of an [`AuthLayer`]: authenticates, then calls the wrapped service.
#[derive(Clone)]
pub struct AuthService<S> {
    inner: S,
    guard: Arc<Guard>,
}

impl<S: fmt::Debug> fmt::Debug for AuthService<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthService")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S, B> Service<Request<B>> for AuthService<S>
where
    S: Service<Request<B>, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The clone that was not polled ready stays behind; the ready one serves this call.
        let fresh = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, fresh);
        let guard = Arc::clone(&self.guard);
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            match guard.authenticator.authenticate(&parts).await {
                Ok(Some(identity)) => {
                    parts.extensions.insert(identity);
                }
                Ok(None) => {}
                Err(rejection) => return Ok(guard.refuse(&parts, &rejection)),
            }
            inner.call(Request::from_parts(parts, body)).await
        })
    }
}

impl Guard {
    /// The 401 answer to a refused request; the reason goes to the log.
    fn refuse(&self, parts: &http::request::Parts, rejection: &AuthRejection) -> Response {
        let path = parts.uri.path();
        let (challenge, message) = match rejection.kind {
            RejectionKind::MissingCredentials => {
                tracing::debug!(%path, reason = %rejection.reason, "refused a request without credentials");
                (&self.challenge, "Unauthorized: a bearer token is required")
            }
            RejectionKind::InvalidToken => {
                tracing::warn!(%path, reason = %rejection.reason, "refused a request's credentials");
                (
                    &self.invalid_challenge,
                    "Unauthorized: the bearer token was refused",
                )
            }
        };
        let reply = Reply::error(None, McpError::invalid_request(message));
        let mut response = stream::json_with(reply.body, StatusCode::UNAUTHORIZED);
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, challenge.clone());
        response
    }
}

/// The authentication settings of an [`HttpConfig`](super::HttpConfig).
#[derive(Clone, Debug)]
pub(crate) struct AuthSettings {
    pub(crate) layer: AuthLayer,
    pub(crate) metadata: ProtectedResourceMetadata,
}
