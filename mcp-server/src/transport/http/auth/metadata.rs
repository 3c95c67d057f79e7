//! The OAuth 2.0 Protected Resource Metadata document (RFC 9728) of a protected MCP
//! endpoint, and the router serving it at its well-known URI.

use axum::Router;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::header::{ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, Uri};
use serde::Serialize;

/// The well-known path prefix of RFC 9728 §3.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// A refused [`ProtectedResourceMetadata`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataError {
    /// The resource is not an absolute `http`/`https` URL without query or fragment, or its
    /// path holds characters other than letters, digits, `/`, `-`, `.`, `_`, `~` and `%`.
    #[error(
        "the resource {0:?} must be an absolute http(s) URL without query or fragment, its path made of letters, digits and / - . _ ~ %"
    )]
    Resource(String),
    /// An authorization server is not an absolute `http`/`https` URL.
    #[error("the authorization server {0:?} must be an absolute http(s) URL")]
    AuthorizationServer(String),
}

/// The protected-resource metadata document (RFC 9728) the MCP authorization specification
/// asks a protected server to publish: which resource this is, which authorization servers
/// issue tokens for it, and which scopes it knows.
///
/// The document is served at the resource's well-known URI ([`url`](Self::url)): for the
/// resource `https://mcp.example.com/mcp` that is
/// `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`. Every 401 answer points
/// to it in its `WWW-Authenticate: Bearer resource_metadata="…"` challenge.
///
/// ```
/// use typemcp_server::transport::http::auth::ProtectedResourceMetadata;
///
/// let metadata =
///     ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://auth.example.com")?
///         .scopes_supported(["deploy", "read"])
///         .resource_name("Deployments");
/// assert_eq!(
///     metadata.url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// assert_eq!(metadata.document()["bearer_methods_supported"], serde_json::json!(["header"]));
/// # Ok::<(), typemcp_server::transport::http::auth::MetadataError>(())
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct ProtectedResourceMetadata {
    resource: String,
    authorization_servers: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    scopes_supported: Vec<String>,
    bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_name: Option<String>,
    /// Where the document is served, relative to the origin.
    #[serde(skip)]
    path: String,
    /// The document's absolute URL.
    #[serde(skip)]
    url: String,
}

impl ProtectedResourceMetadata {
    /// The metadata of `resource`, the URL clients connect to (such as
    /// `https://mcp.example.com/mcp`; MCP clients check that it is the URL they use), whose
    /// tokens `authorization_server` issues.
    pub fn new(resource: &str, authorization_server: &str) -> Result<Self, MetadataError> {
        let (origin, path) =
            split_url(resource).ok_or_else(|| MetadataError::Resource(resource.to_owned()))?;
        let path_ok = path.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~' | b'%')
        });
        if !path_ok || path.contains("//") {
            return Err(MetadataError::Resource(resource.to_owned()));
        }
        // RFC 9728 §3.1: the well-known segment goes between the host and the path.
        let path = format!("{WELL_KNOWN}{}", path.trim_end_matches('/'));
        let url = format!("{origin}{path}");
        let metadata = Self {
            resource: resource.to_owned(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            bearer_methods_supported: ["header"],
            resource_name: None,
            path,
            url,
        };
        metadata.and_authorization_server(authorization_server)
    }

    /// Adds another authorization server.
    pub fn and_authorization_server(mut self, issuer: &str) -> Result<Self, MetadataError> {
        if split_url(issuer).is_none() {
            return Err(MetadataError::AuthorizationServer(issuer.to_owned()));
        }
        self.authorization_servers.push(issuer.to_owned());
        Ok(self)
    }

    /// The scopes this resource knows (`scopes_supported`).
    #[must_use]
    pub fn scopes_supported<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A human-readable name of the resource (`resource_name`).
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The resource identifier.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The document's absolute URL, sent in every `WWW-Authenticate` challenge.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The document's path on the resource's origin.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The document as JSON.
    pub fn document(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// An axum router answering GET at [`path`](Self::path) (and, for a resource with a path,
    /// also at `/.well-known/oauth-protected-resource`, where some clients look first) with
    /// the document. Merge it at the root of your application, outside any authentication:
    /// [`Server::serve_http_on`](crate::Server::serve_http_on) does so by itself.
    pub fn router(&self) -> Router {
        let body = serde_json::to_vec(self).unwrap_or_default();
        let serve = move || {
            let body = body.clone();
            async move { document_response(body) }
        };
        let router = Router::new().route(&self.path, get(serve.clone()));
        if self.path == WELL_KNOWN {
            router
        } else {
            router.route(WELL_KNOWN, get(serve))
        }
    }

    /// The two `WWW-Authenticate` values: without and with `error="invalid_token"`.
    pub(super) fn challenges(&self) -> (HeaderValue, HeaderValue) {
        // `url` is made of an origin `Uri` accepted and the path characters checked above:
        // no quote, backslash or control character to escape.
        let missing = format!("Bearer resource_metadata=\"{}\"", self.url);
        let invalid = format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}\"",
            self.url
        );
        let value = |text: String| {
            HeaderValue::try_from(text).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
        };
        (value(missing), value(invalid))
    }
}

/// The JSON answer carrying the document.
fn document_response(body: Vec<u8>) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    // Public metadata: browser-based clients read it across origins.
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

/// `scheme://authority` and the path of an absolute `http`/`https` URL without query or
/// fragment; `None` for anything else.
fn split_url(url: &str) -> Option<(String, &str)> {
    if url.contains('#') || url.contains('?') {
        return None;
    }
    let uri: Uri = url.parse().ok()?;
    let scheme = uri
        .scheme_str()
        .filter(|s| matches!(*s, "http" | "https"))?;
    let authority = uri.authority()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let origin = format!("{scheme}://{authority}");
    let path = url.get(origin.len()..)?;
    Some((origin, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_url_inserts_the_segment_before_the_path() {
        let cases = [
            (
                "https://h.example/mcp",
                "https://h.example/.well-known/oauth-protected-resource/mcp",
            ),
            (
                "https://h.example/a/b/",
                "https://h.example/.well-known/oauth-protected-resource/a/b",
            ),
            (
                "https://h.example",
                "https://h.example/.well-known/oauth-protected-resource",
            ),
            (
                "http://127.0.0.1:8080/",
                "http://127.0.0.1:8080/.well-known/oauth-protected-resource",
            ),
        ];
        for (resource, url) in cases {
            let metadata = ProtectedResourceMetadata::new(resource, "https://as.example");
            assert_eq!(metadata.map(|m| m.url), Ok(url.to_owned()), "{resource}");
        }
    }

    #[test]
    fn resources_that_cannot_be_routed_or_quoted_are_refused() {
        for resource in [
            "mcp",
            "/mcp",
            "ftp://h.example/mcp",
            "https://h.example/mcp?x=1",
            "https://h.example/mcp#f",
            "https://u@h.example/mcp",
            "https://h.example/{id}",
            "https://h.example/a\"b",
            "https://h.example//mcp",
        ] {
            let refused = ProtectedResourceMetadata::new(resource, "https://as.example");
            assert!(refused.is_err(), "{resource} was accepted");
        }
        let refused = ProtectedResourceMetadata::new("https://h.example/mcp", "issuer");
        assert!(matches!(
            refused,
            Err(MetadataError::AuthorizationServer(_))
        ));
    }

    #[test]
    fn the_challenges_name_the_document() {
        let metadata =
            ProtectedResourceMetadata::new("https://h.example/mcp", "https://as.example");
        let (missing, invalid) = metadata
            .map(|m| m.challenges())
            .unwrap_or_else(|e| panic!("{e}"));
        let url = "https://h.example/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            missing,
            format!("Bearer resource_metadata=\"{url}\"").as_str()
        );
        let invalid_text = format!("Bearer error=\"invalid_token\", resource_metadata=\"{url}\"");
        assert_eq!(invalid, invalid_text.as_str());
    }
}
