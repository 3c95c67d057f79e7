//! The built-in bearer JWT validator (feature `auth-jwt`): HS256 with a shared secret,
//! RS256 and ES256 with the keys of a JWKS document; issuer, audience and expiry checked.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use zeroize::Zeroizing;

use super::{AuthFuture, AuthRejection, Authenticator, bearer_token};
use crate::AuthIdentity;

/// The shortest HS256 secret accepted: 256 bits (RFC 7518 §3.2).
const MIN_SECRET_BYTES: usize = 32;
/// The default clock-skew allowance on `exp` and `nbf`.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// The largest leeway accepted.
const MAX_LEEWAY: Duration = Duration::from_secs(300);
/// Longer bearer tokens are refused before any parsing.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// A JWT authenticator that could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwtConfigError {
    /// The issuer or the audience is empty.
    #[error("the JWT issuer and audience must not be empty")]
    EmptyIssuerOrAudience,
    /// A JWKS file could not be read.
    #[error("cannot read the JWKS file {path}: {source}")]
    ReadJwks {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A JWKS document is not a JSON object with a `keys` array.
    #[error("the JWKS document {origin} is not a JSON object with a \"keys\" array")]
    Jwks {
        /// The file, or `inline`.
        origin: String,
    },
    /// Two usable keys share a `kid`.
    #[error("two JWKS keys have the kid {0:?}")]
    DuplicateKid(String),
    /// The HS256 secret is shorter than 32 bytes.
    #[error("the HS256 secret must be at least 32 bytes long")]
    ShortSecret,
    /// Neither a usable JWKS key nor an HS256 secret was given.
    #[error(
        "no usable key: give a JWKS with RS256 or ES256 (P-256) signing keys that have a kid, or an HS256 secret"
    )]
    NoKeys,
    /// No `jsonwebtoken` crypto provider could be installed (another crate installed an
    /// incomplete one).
    #[error("no jsonwebtoken CryptoProvider is available")]
    CryptoProvider,
}

/// A verification key of the JWKS document.
struct JwksKey {
    algorithm: Algorithm,
    key: DecodingKey,
}

/// Validates `Authorization: Bearer <JWT>` and maps the claims to an [`AuthIdentity`].
///
/// - algorithms: HS256 (shared secret), RS256 and ES256 (P-256) from a JWKS document, by
///   the token's `kid` (a token without `kid`, or with one the JWKS does not hold, is
///   refused); the token's `alg` must be the key's;
/// - claims: `exp`, `iss`, `aud` and `sub` are required; `iss` must be the issuer, `aud`
///   must contain the audience, `exp` (and `nbf` if present) must hold within the leeway
///   (default 30 s, at most 5 min);
/// - identity: `sub` is the subject, `client_id` (else `azp`) the client id, `scope`
///   (space-separated) or `scp` (a list or a space-separated string) the scopes; all the
///   claims are kept ([`AuthIdentity::claims`]).
///
/// A request without a bearer token is refused as
/// [`missing_credentials`](AuthRejection::missing_credentials), a refused token as
/// [`invalid_token`](AuthRejection::invalid_token) (HTTP 401 both).
///
/// ```
/// use std::time::Duration;
/// use typemcp_server::transport::http::HttpConfig;
/// use typemcp_server::transport::http::auth::{JwtAuthenticator, ProtectedResourceMetadata};
///
/// let jwt = JwtAuthenticator::builder("https://auth.example.com", "https://mcp.example.com/mcp")
///     .hs256_secret(b"a shared secret of at least 32 bytes!".to_vec())
///     .leeway(Duration::from_secs(10))
///     .build()?;
/// let metadata =
///     ProtectedResourceMetadata::new("https://mcp.example.com/mcp", "https://auth.example.com")?;
/// let config = HttpConfig::default().authenticate(jwt, metadata);
/// # let _ = config;
///
/// // Keys of an authorization server, as a JWKS file:
/// fn from_jwks() -> Result<JwtAuthenticator, Box<dyn std::error::Error>> {
///     Ok(JwtAuthenticator::builder("https://auth.example.com", "https://mcp.example.com/mcp")
///         .jwks_file("/etc/mcp/jwks.json")
///         .build()?)
/// }
/// # let _ = from_jwks;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct JwtAuthenticator {
    issuer: String,
    audience: String,
    leeway: Duration,
    keys: HashMap<String, JwksKey>,
    secret: Option<DecodingKey>,
}

impl fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut kids: Vec<&str> = self.keys.keys().map(String::as_str).collect();
        kids.sort_unstable();
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .field("kids", &kids)
            .field("hs256", &self.secret.is_some())
            .finish()
    }
}

/// Where a JWKS document comes from.
enum JwksSource {
    File(PathBuf),
    Inline(String),
}

/// Settings of a [`JwtAuthenticator`]; [`build`](Self::build) reads the keys.
pub struct JwtAuthenticatorBuilder {
    issuer: String,
    audience: String,
    leeway: Duration,
    jwks: Vec<JwksSource>,
    secret: Option<Zeroizing<Vec<u8>>>,
}

impl fmt::Debug for JwtAuthenticatorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtAuthenticatorBuilder")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .field("jwks_documents", &self.jwks.len())
            .field("hs256", &self.secret.is_some())
            .finish()
    }
}

impl JwtAuthenticator {
    /// Tokens issued by `issuer` (the `iss` claim, exactly) for `audience` (one of the
    /// `aud` values, exactly; usually the resource URL of the MCP endpoint).
    pub fn builder(
        issuer: impl Into<String>,
        audience: impl Into<String>,
    ) -> JwtAuthenticatorBuilder {
        JwtAuthenticatorBuilder {
            issuer: issuer.into(),
            audience: audience.into(),
            leeway: DEFAULT_LEEWAY,
            jwks: Vec::new(),
            secret: None,
        }
    }

    /// Validates one bearer token (without the `Bearer ` prefix).
    pub fn verify(&self, token: &str) -> Result<AuthIdentity, AuthRejection> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(AuthRejection::invalid_token("an oversized token"));
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| AuthRejection::invalid_token("a malformed token header"))?;
        let key = match header.alg {
            Algorithm::HS256 => self
                .secret
                .as_ref()
                .ok_or_else(|| AuthRejection::invalid_token("HS256 is not accepted"))?,
            Algorithm::RS256 | Algorithm::ES256 => {
                let kid = header
                    .kid
                    .as_deref()
                    .ok_or_else(|| AuthRejection::invalid_token("a token without kid"))?;
                // The kid comes from the client: quoted, escaped and cut short for the log.
                let shown = || kid.chars().take(64).collect::<String>();
                let found = self.keys.get(kid).ok_or_else(|| {
                    AuthRejection::invalid_token(format!("unknown kid {:?}", shown()))
                })?;
                if found.algorithm != header.alg {
                    return Err(AuthRejection::invalid_token(format!(
                        "the key {:?} does not verify {:?}",
                        shown(),
                        header.alg
                    )));
                }
                &found.key
            }
            other => {
                return Err(AuthRejection::invalid_token(format!(
                    "the algorithm {other:?} is not accepted"
                )));
            }
        };
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, key, &validation)
            .map_err(|error| AuthRejection::invalid_token(refusal(error.kind())))?;
        identity(data.claims)
    }
}

/// Why `jsonwebtoken` refused a token, in words that cannot carry the token.
fn refusal(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "an expired token".into(),
        ErrorKind::ImmatureSignature => "a token not valid yet (nbf)".into(),
        ErrorKind::InvalidSignature => "a wrong signature".into(),
        ErrorKind::InvalidIssuer => "a wrong issuer".into(),
        ErrorKind::InvalidAudience => "a wrong audience".into(),
        ErrorKind::InvalidAlgorithm => "an algorithm that does not fit the key".into(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the claim {claim:?} is missing"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the claim {claim:?} is malformed"),
        _ => "a malformed token".into(),
    }
}

/// The identity of validated `claims`.
fn identity(claims: Map<String, Value>) -> Result<AuthIdentity, AuthRejection> {
    let subject = claims
        .get("sub")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| AuthRejection::invalid_token("an empty subject"))?;
    let mut identity = AuthIdentity::new(subject);
    let client = ["client_id", "azp"]
        .iter()
        .find_map(|name| claims.get(*name).and_then(Value::as_str));
    if let Some(client) = client {
        identity = identity.with_client_id(client);
    }
    let scopes: Vec<&str> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => {
            scope.split_whitespace().collect()
        }
        (None, Some(Value::Array(list))) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    identity = identity.with_scopes(scopes);
    Ok(identity.with_claims(claims))
}

impl Authenticator for JwtAuthenticator {
    fn authenticate<'a>(&'a self, request: &'a http::request::Parts) -> AuthFuture<'a> {
        Box::pin(async move {
            match bearer_token(request)? {
                Some(token) => self.verify(token).map(Some),
                None => Err(AuthRejection::missing_credentials("no bearer token")),
            }
        })
    }
}

impl JwtAuthenticatorBuilder {
    setters! {
        /// Verifies RS256 and ES256 tokens with the keys of the JWKS document in `path` (read
        /// by [`build`](Self::build)). Keys without `kid`, of another type or curve, or for
        /// encryption (`"use": "enc"`) are skipped. Call it again to add another document.
        pub fn jwks_file(path: impl AsRef<Path>) |b|
            b.jwks.push(JwksSource::File(path.as_ref().to_owned()));

        /// Like [`jwks_file`](Self::jwks_file), with the document itself.
        pub fn jwks_json(document: impl Into<String>) |b|
            b.jwks.push(JwksSource::Inline(document.into()));

        /// Verifies HS256 tokens with this shared secret (at least 32 bytes). The builder and
        /// the key wipe their copies when dropped; wipe yours.
        pub fn hs256_secret(secret: impl Into<Vec<u8>>) |b|
            b.secret = Some(Zeroizing::new(secret.into()));

        /// The clock-skew allowance on `exp` and `nbf` (default 30 s; at most 5 min, whole
        /// seconds).
        pub fn leeway(leeway: Duration) |b| b.leeway = leeway.min(MAX_LEEWAY);
    }

    /// Reads the keys and checks the settings.
    pub fn build(self) -> Result<JwtAuthenticator, JwtConfigError> {
        ensure_crypto_provider()?;
        if self.issuer.is_empty() || self.audience.is_empty() {
            return Err(JwtConfigError::EmptyIssuerOrAudience);
        }
        let mut keys = HashMap::new();
        for source in &self.jwks {
            let (origin, text) = match source {
                JwksSource::File(path) => {
                    let text = std::fs::read_to_string(path).map_err(|source| {
                        JwtConfigError::ReadJwks {
                            path: path.clone(),
                            source,
                        }
                    })?;
                    (path.display().to_string(), text)
                }
                JwksSource::Inline(text) => ("inline".to_owned(), text.clone()),
            };
            load_jwks(&origin, &text, &mut keys)?;
        }
        let secret = match &self.secret {
            None => None,
            Some(secret) if secret.len() < MIN_SECRET_BYTES => {
                return Err(JwtConfigError::ShortSecret);
            }
            Some(secret) => {
                Some(DecodingKey::from_secret(secret).map_err(|_| JwtConfigError::ShortSecret)?)
            }
        };
        if keys.is_empty() && secret.is_none() {
            return Err(JwtConfigError::NoKeys);
        }
        Ok(JwtAuthenticator {
            issuer: self.issuer,
            audience: self.audience,
            leeway: Duration::from_secs(self.leeway.as_secs()),
            keys,
            secret,
        })
    }
}

/// Makes sure `jsonwebtoken` has a crypto provider, so that validating never panics: the
/// RustCrypto one, unless the process installed another.
fn ensure_crypto_provider() -> Result<(), JwtConfigError> {
    use jsonwebtoken::crypto::CryptoProvider;
    if CryptoProvider::try_get_default().is_none() {
        // Fails only when another thread installed one first, which is as good.
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
    }
    CryptoProvider::try_get_default()
        .map(|_| ())
        .ok_or(JwtConfigError::CryptoProvider)
}

/// Adds the usable keys of the JWKS document `text` to `keys`.
fn load_jwks(
    origin: &str,
    text: &str,
    keys: &mut HashMap<String, JwksKey>,
) -> Result<(), JwtConfigError> {
    let invalid = || JwtConfigError::Jwks {
        origin: origin.to_owned(),
    };
    let document: Value = serde_json::from_str(text).map_err(|_| invalid())?;
    let entries = document
        .get("keys")
        .and_then(Value::as_array)
        .ok_or_else(invalid)?;
    for (index, entry) in entries.iter().enumerate() {
        match usable_key(entry) {
            Ok((kid, key)) => {
                if keys.insert(kid.clone(), key).is_some() {
                    return Err(JwtConfigError::DuplicateKid(kid));
                }
            }
            Err(why) => {
                tracing::debug!(jwks = origin, index, why, "skipped a JWKS key");
            }
        }
    }
    Ok(())
}

/// The kid and verification key of one JWKS entry, or why it is skipped.
fn usable_key(entry: &Value) -> Result<(String, JwksKey), &'static str> {
    let jwk: Jwk =
        serde_json::from_value(entry.clone()).map_err(|_| "not a JWK this crate reads")?;
    let kid = jwk.common.key_id.clone().ok_or("no kid")?;
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return Err("not a signing key");
    }
    let algorithm = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
            Algorithm::ES256
        }
        _ => return Err("neither RSA nor P-256"),
    };
    let declared = jwk.common.key_algorithm;
    let fits = match declared {
        None => true,
        Some(KeyAlgorithm::RS256) => algorithm == Algorithm::RS256,
        Some(KeyAlgorithm::ES256) => algorithm == Algorithm::ES256,
        Some(_) => false,
    };
    if !fits {
        return Err("its alg is neither RS256 nor ES256");
    }
    let key = DecodingKey::from_jwk(&jwk).map_err(|_| "malformed key parameters")?;
    Ok((kid, JwksKey { algorithm, key }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn builder() -> JwtAuthenticatorBuilder {
        JwtAuthenticator::builder("https://as.example", "https://rs.example/mcp")
    }

    #[test]
    fn settings_without_keys_or_with_a_short_secret_are_refused() {
        assert!(matches!(builder().build(), Err(JwtConfigError::NoKeys)));
        let short = builder().hs256_secret(b"too short".to_vec()).build();
        assert!(matches!(short, Err(JwtConfigError::ShortSecret)));
        let empty = JwtAuthenticator::builder("", "aud")
            .hs256_secret(SECRET)
            .build();
        assert!(matches!(empty, Err(JwtConfigError::EmptyIssuerOrAudience)));
        let bad = builder().jwks_json("[]").build();
        assert!(matches!(bad, Err(JwtConfigError::Jwks { .. })));
        let missing = builder().jwks_file("/nonexistent/jwks.json").build();
        assert!(matches!(missing, Err(JwtConfigError::ReadJwks { .. })));
    }

    #[test]
    fn unusable_jwks_keys_are_skipped_and_duplicates_refused() {
        let ec = r#"{"kty":"EC","crv":"P-256","kid":"k",
            "x":"G63rWLkA2r5Lz2SOBdLrL-eGHCWYcn2YUHQMszTu7pM",
            "y":"FBoyf-dPeXYg794yUGQ0lBwXk46yuseNx_Sou0sxKOM"}"#;
        let no_kid = ec.replace(r#""kid":"k","#, "");
        let for_encryption = ec.replace(r#""kid":"k","#, r#""kid":"e","use":"enc","#);
        let other_alg = ec.replace(r#""kid":"k","#, r#""kid":"a","alg":"RS256","#);
        let oct = r#"{"kty":"oct","kid":"o","k":"c2VjcmV0"}"#;
        let document = format!(r#"{{"keys":[{no_kid},{for_encryption},{other_alg},{oct},{{}}]}}"#);
        let none = builder().jwks_json(document).build();
        assert!(matches!(none, Err(JwtConfigError::NoKeys)), "{none:?}");
        let one = builder().jwks_json(format!(r#"{{"keys":[{ec}]}}"#)).build();
        let kids = one.map(|a| a.keys.keys().cloned().collect::<Vec<_>>());
        assert_eq!(kids.ok(), Some(vec!["k".to_owned()]));
        let twice = builder()
            .jwks_json(format!(r#"{{"keys":[{ec},{ec}]}}"#))
            .build();
        assert!(matches!(twice, Err(JwtConfigError::DuplicateKid(kid)) if kid == "k"));
    }

    #[test]
    fn claims_map_to_the_identity() {
        let claims = serde_json::json!({
            "sub": "ann", "azp": "cli", "scp": ["a", "b"], "extra": 1
        });
        let Value::Object(claims) = claims else {
            unreachable!()
        };
        let identity = identity(claims).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(identity.subject(), "ann");
        assert_eq!(identity.client_id(), Some("cli"));
        assert_eq!(identity.scopes(), ["a", "b"]);
        assert_eq!(identity.claims()["extra"], 1);
        let mut spaced = Map::new();
        spaced.insert("sub".into(), "bob".into());
        spaced.insert("client_id".into(), "web".into());
        spaced.insert("azp".into(), "other".into());
        spaced.insert("scope".into(), " read  write ".into());
        let identity = super::identity(spaced).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(identity.client_id(), Some("web"));
        assert_eq!(identity.scopes(), ["read", "write"]);
        let mut empty = Map::new();
        empty.insert("sub".into(), "".into());
        assert!(super::identity(empty).is_err());
    }
}
