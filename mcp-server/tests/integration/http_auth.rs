//! Bearer JWT authentication on the HTTP transport (feature `auth-jwt`), in-process: every
//! request goes through [`Server::http_service_with`] as a tower `Service` (`oneshot`), with
//! real tokens signed by the test-only keys of `tests/fixtures/auth` (HS256, RS256, ES256).
//!
//! A valid token reaches the handlers as `ctx.auth()`; a missing, expired, wrongly signed,
//! foreign or unknown-key token gets 401 with the `WWW-Authenticate: Bearer` challenge naming
//! the protected-resource metadata, and never reaches a handler; the reason is logged without
//! the token; a request state minted for one subject does not resume for another.
//! [`Server::serve_http_on`] (on a loopback listener) also serves the metadata document.

#![cfg(feature = "auth-jwt")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::support::confirm::{Confirm, Flow, FlowAnswered, FlowAsking};
use axum::body::Body;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tower::ServiceExt;
use typemcp_server::state::{Reply, RequestStateSigner, Round, Step};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::transport::http::auth::{JwtAuthenticator, ProtectedResourceMetadata};
use typemcp_server::{RequestContext, Server, State, tool};

// ----- Keys, tokens and the server under test -----

const ISSUER: &str = "https://auth.example.test";
const AUDIENCE: &str = "https://mcp.example.test/mcp";
const RESOURCE: &str = "https://mcp.example.test/mcp";
const METADATA_URL: &str = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp";
const SECRET: &[u8] = b"test-only HS256 secret, 32+ bytes long";

const JWKS: &str = include_str!("../fixtures/auth/jwks.json");
const RSA_PRIVATE: &str = include_str!("../fixtures/auth/rsa-private.pem");
const RSA_OTHER_PRIVATE: &str = include_str!("../fixtures/auth/rsa-other-private.pem");
const EC_PRIVATE: &str = include_str!("../fixtures/auth/ec-private.pem");

/// The DER bytes of a PEM document.
fn der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    STANDARD.decode(body).unwrap()
}

/// A key that signs test tokens.
#[derive(Clone, Copy)]
enum Signer {
    Hs256,
    Rs256,
    Es256,
    /// An RSA key the JWKS does not hold, claiming the `kid` of the one it does.
    Rs256Impostor,
    /// HS256 with another secret.
    Hs256WrongSecret,
}

impl Signer {
    fn key(self) -> (Algorithm, Option<&'static str>, EncodingKey) {
        match self {
            Self::Hs256 => (
                Algorithm::HS256,
                None,
                EncodingKey::from_secret(SECRET).unwrap(),
            ),
            Self::Hs256WrongSecret => {
                let key = EncodingKey::from_secret(b"another secret, also 32 bytes long").unwrap();
                (Algorithm::HS256, None, key)
            }
            Self::Rs256 => {
                let key = EncodingKey::from_rsa_der(&der(RSA_PRIVATE));
                (Algorithm::RS256, Some("rsa-1"), key)
            }
            Self::Rs256Impostor => {
                let key = EncodingKey::from_rsa_der(&der(RSA_OTHER_PRIVATE));
                (Algorithm::RS256, Some("rsa-1"), key)
            }
            Self::Es256 => {
                let key = EncodingKey::from_ec_der(&der(EC_PRIVATE));
                (Algorithm::ES256, Some("ec-1"), key)
            }
        }
    }

    /// A token of `claims` whose header names `kid`.
    fn sign_with_kid(self, claims: &Value, kid: Option<&str>) -> String {
        let (alg, _, key) = self.key();
        let mut header = Header::new(alg);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &key).unwrap()
    }

    /// A token of `claims` whose header names the signer's `kid`.
    fn sign(self, claims: &Value) -> String {
        let kid = self.key().1;
        self.sign_with_kid(claims, kid)
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Valid claims for `sub`, expiring in ten minutes.
fn claims(sub: &str) -> Value {
    json!({
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": sub,
        "exp": now() + 600,
        "iat": now(),
        "client_id": "test-client",
        "scope": "deploy read",
    })
}

/// `claims` with `key` set to `value`.
fn with(mut claims: Value, key: &str, value: Value) -> Value {
    claims[key] = value;
    claims
}

/// How many times a handler body ran.
#[derive(Clone, Default)]
struct Calls(Arc<AtomicUsize>);

/// Who the caller is, as the handler sees it.
#[tool(read_only)]
async fn whoami(ctx: RequestContext, calls: State<Calls>) -> String {
    calls.0.0.fetch_add(1, Ordering::SeqCst);
    let auth = ctx.auth();
    json!({
        "subject": auth.map(|a| a.subject()),
        "client_id": auth.and_then(|a| a.client_id()),
        "scopes": auth.map(|a| a.scopes()),
        "iat_kept": auth.is_some_and(|a| a.claims().contains_key("iat")),
    })
    .to_string()
}

/// Deploy after a confirmation: a two-round flow.
#[tool]
async fn deploy(target: String, round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.0.fetch_add(1, Ordering::SeqCst);
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: format!("Deploy {target}?").into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok: true }),
        }) => Step::done(format!("deployed {target}")),
        Some(FlowAnswered::Confirming { .. }) => Step::done("cancelled".to_owned()),
    }
}

fn jwt() -> JwtAuthenticator {
    JwtAuthenticator::builder(ISSUER, AUDIENCE)
        .jwks_json(JWKS)
        .hs256_secret(SECRET)
        .build()
        .unwrap()
}

fn metadata() -> ProtectedResourceMetadata {
    ProtectedResourceMetadata::new(RESOURCE, ISSUER)
        .unwrap()
        .scopes_supported(["deploy", "read"])
        .resource_name("Deployments (test)")
}

/// The server under test and its handler counter.
struct App {
    server: Server,
    calls: Calls,
    config: HttpConfig,
}

impl App {
    fn new(config: HttpConfig) -> Self {
        let calls = Calls::default();
        let server = Server::builder()
            .state(calls.clone())
            .tool(whoami)
            .tool(deploy)
            .request_state_signer(RequestStateSigner::new([9u8; 32]).unwrap())
            .build()
            .unwrap();
        Self {
            server,
            calls,
            config,
        }
    }

    /// Authenticating with the JWT validator.
    fn protected() -> Self {
        Self::new(HttpConfig::default().authenticate(jwt(), metadata()))
    }

    fn calls(&self) -> usize {
        self.calls.0.load(Ordering::SeqCst)
    }

    /// Posts `tools/call` of `tool` with `params` (merged), with `authorization` if any.
    async fn call(&self, authorization: Option<&str>, tool: &str, params: Value) -> Response {
        let mut message = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": {}},
        });
        for (key, value) in params.as_object().unwrap() {
            message["params"][key] = value.clone();
        }
        message["params"]["_meta"] = crate::support::wire::meta(crate::support::wire::forms());
        let mut request = Request::builder()
            .method(Method::POST)
            .uri("/")
            .header("Host", "127.0.0.1")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", tool);
        if let Some(authorization) = authorization {
            request = request.header("Authorization", authorization);
        }
        let request = request.body(Body::from(message.to_string())).unwrap();
        let service = self.server.http_service_with(self.config.clone());
        Response::read(service.oneshot(request).await.unwrap()).await
    }

    /// `whoami` with the bearer `token`.
    async fn whoami(&self, token: &str) -> Response {
        self.call(Some(&format!("Bearer {token}")), "whoami", json!({}))
            .await
    }
}

/// An HTTP answer, read.
struct Response {
    status: StatusCode,
    challenge: Option<String>,
    content_type: Option<String>,
    body: String,
}

impl Response {
    async fn read(response: http::Response<Body>) -> Self {
        let (parts, body) = response.into_parts();
        let header = |name| {
            let value = parts.headers.get(name);
            value.map(|v: &http::HeaderValue| v.to_str().unwrap().to_owned())
        };
        let bytes = body.collect().await.unwrap().to_bytes();
        Self {
            status: parts.status,
            challenge: header("www-authenticate"),
            content_type: header("content-type"),
            body: String::from_utf8(bytes.to_vec()).unwrap(),
        }
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }

    /// The text of a successful tool result.
    #[track_caller]
    fn text(&self) -> String {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        let json = self.json();
        let text = json["result"]["content"][0]["text"].as_str();
        text.unwrap_or_else(|| panic!("no text in {json}"))
            .to_owned()
    }

    /// What `whoami` saw.
    #[track_caller]
    fn seen(&self) -> Value {
        serde_json::from_str(&self.text()).unwrap()
    }
}

/// `reply` is the 401 of a request without (`invalid: false`) or with a refused token.
#[track_caller]
fn assert_unauthorized(reply: &Response, invalid: bool, case: &str) {
    assert_eq!(
        reply.status,
        StatusCode::UNAUTHORIZED,
        "{case}: {}",
        reply.body
    );
    let challenge = if invalid {
        format!("Bearer error=\"invalid_token\", resource_metadata=\"{METADATA_URL}\"")
    } else {
        format!("Bearer resource_metadata=\"{METADATA_URL}\"")
    };
    assert_eq!(
        reply.challenge.as_deref(),
        Some(challenge.as_str()),
        "{case}"
    );
    assert_eq!(
        reply.content_type.as_deref(),
        Some("application/json"),
        "{case}"
    );
    let message = if invalid {
        "Unauthorized: the bearer token was refused"
    } else {
        "Unauthorized: a bearer token is required"
    };
    let error = json!({"code": -32600, "message": message});
    let body = reply.json();
    assert_eq!(
        (&body["jsonrpc"], &body["error"]),
        (&json!("2.0"), &error),
        "{case}"
    );
    assert!(body.get("result").is_none(), "{case}: {body}");
}

// ----- Log capture -----

/// Everything logged while the guard lives, on this thread.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    /// Captures this thread's events (the tests run on a current-thread runtime).
    fn capture() -> (Self, tracing::subscriber::DefaultGuard) {
        let log = Self::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .without_time()
            .with_max_level(tracing::Level::TRACE)
            .finish();
        (log, tracing::subscriber::set_default(subscriber))
    }

    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

// ----- Tests -----

#[tokio::test]
async fn valid_hs256_rs256_and_es256_tokens_reach_the_handler_as_its_identity() {
    let app = App::protected();
    let cases = [
        (Signer::Hs256, "ann"),
        (Signer::Rs256, "bob"),
        (Signer::Es256, "cyd"),
    ];
    for (signer, subject) in cases {
        let seen = app.whoami(&signer.sign(&claims(subject))).await.seen();
        let expected = json!({
            "subject": subject,
            "client_id": "test-client",
            "scopes": ["deploy", "read"],
            "iat_kept": true,
        });
        assert_eq!(seen, expected);
    }
    // `azp` and `scp` when `client_id` and `scope` are absent; several audiences.
    let mut other = claims("dee");
    let object = other.as_object_mut().unwrap();
    object.remove("client_id");
    object.remove("scope");
    let other = with(other, "azp", json!("web"));
    let other = with(other, "scp", json!(["read"]));
    let other = with(other, "aud", json!(["https://elsewhere.test", AUDIENCE]));
    let seen = app.whoami(&Signer::Es256.sign(&other)).await.seen();
    assert_eq!(
        (&seen["subject"], &seen["client_id"], &seen["scopes"]),
        (&json!("dee"), &json!("web"), &json!(["read"]))
    );
    assert_eq!(app.calls(), 4);
}

#[tokio::test]
async fn a_request_without_a_bearer_token_gets_401_and_the_challenge() {
    let app = App::protected();
    let (log, _guard) = Log::capture();
    assert_unauthorized(
        &app.call(None, "whoami", json!({})).await,
        false,
        "no header",
    );
    let basic = app.call(Some("Basic YW5uOnB3"), "whoami", json!({})).await;
    assert_unauthorized(&basic, false, "another scheme");
    let empty = app.call(Some("Bearer "), "whoami", json!({})).await;
    assert_unauthorized(&empty, true, "an empty bearer token");
    assert_eq!(app.calls(), 0, "a handler ran");
    let log = log.text();
    assert!(log.contains("no bearer token"), "{log}");
    assert!(!log.contains("YW5uOnB3"), "{log}");
}

#[tokio::test]
async fn refused_tokens_get_401_with_invalid_token_and_the_reason_only_in_the_log() {
    let app = App::protected();
    let (log, _guard) = Log::capture();
    let expired = with(claims("ann"), "exp", json!(now() - 3600));
    let not_yet = with(claims("ann"), "nbf", json!(now() + 3600));
    let no_exp = {
        let mut claims = claims("ann");
        claims.as_object_mut().unwrap().remove("exp");
        claims
    };
    let no_sub = {
        let mut claims = claims("ann");
        claims.as_object_mut().unwrap().remove("sub");
        claims
    };
    let good = claims("ann");
    // The payload of a valid RS256 token under the header of another: a forged signature.
    let rs = Signer::Rs256.sign(&good);
    let forged_payload = {
        let other = Signer::Rs256.sign(&with(claims("ann"), "sub", json!("root")));
        let mut parts: Vec<&str> = rs.split('.').collect();
        parts[1] = other.split('.').nth(1).unwrap();
        parts.join(".")
    };
    let alg_none = format!(
        "{}.{}.",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
        rs.split('.').nth(1).unwrap()
    );
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "expired (HS256)",
            Signer::Hs256.sign(&expired),
            "an expired token",
        ),
        (
            "expired (RS256)",
            Signer::Rs256.sign(&expired),
            "an expired token",
        ),
        (
            "expired (ES256)",
            Signer::Es256.sign(&expired),
            "an expired token",
        ),
        (
            "not valid yet",
            Signer::Es256.sign(&not_yet),
            "not valid yet",
        ),
        (
            "without exp",
            Signer::Hs256.sign(&no_exp),
            "\"exp\" is missing",
        ),
        (
            "without sub",
            Signer::Hs256.sign(&no_sub),
            "\"sub\" is missing",
        ),
        (
            "another RSA key",
            Signer::Rs256Impostor.sign(&good),
            "a wrong signature",
        ),
        (
            "another secret",
            Signer::Hs256WrongSecret.sign(&good),
            "a wrong signature",
        ),
        ("a swapped payload", forged_payload, "a wrong signature"),
        (
            "wrong issuer",
            Signer::Rs256.sign(&with(good.clone(), "iss", json!("https://evil.test"))),
            "a wrong issuer",
        ),
        (
            "wrong audience",
            Signer::Es256.sign(&with(good.clone(), "aud", json!("https://other.test/mcp"))),
            "a wrong audience",
        ),
        (
            "unknown kid",
            Signer::Rs256.sign_with_kid(&good, Some("rsa-2")),
            "unknown kid",
        ),
        (
            "no kid",
            Signer::Es256.sign_with_kid(&good, None),
            "a token without kid",
        ),
        (
            "an ES256 token naming the RSA key",
            Signer::Es256.sign_with_kid(&good, Some("rsa-1")),
            "does not verify",
        ),
        ("alg none", alg_none, "a malformed token header"),
        (
            "not a JWT",
            "abc.def".to_owned(),
            "a malformed token header",
        ),
    ];
    for (case, token, reason) in &cases {
        let logged_before = log.text().len();
        let reply = app.whoami(token).await;
        assert_unauthorized(&reply, true, case);
        assert!(
            !reply.body.contains(token.as_str()),
            "{case}: the token was echoed"
        );
        assert!(!reply.body.contains(reason), "{case}: the reason was sent");
        let log = log.text()[logged_before..].to_owned();
        assert!(
            log.contains(reason),
            "{case}: {reason:?} not logged in {log}"
        );
        assert!(log.contains("WARN"), "{case}: not a warning: {log}");
        let signature = token.rsplit('.').next().unwrap_or_default();
        let leaked = !signature.is_empty() && log.contains(signature);
        assert!(!leaked, "{case}: the token went to the log");
    }
    assert_eq!(app.calls(), 0, "a handler ran");
    // The server still serves.
    let seen = app.whoami(&Signer::Rs256.sign(&good)).await.seen();
    assert_eq!(seen["subject"], "ann");
}

#[tokio::test]
async fn the_protected_resource_metadata_document_is_served_at_its_well_known_url() {
    let metadata = metadata();
    assert_eq!(metadata.url(), METADATA_URL);
    let expected = json!({
        "resource": RESOURCE,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["deploy", "read"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Deployments (test)",
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let request = Request::get(path).body(Body::empty()).unwrap();
        let reply = Response::read(metadata.router().oneshot(request).await.unwrap()).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.content_type.as_deref(), Some("application/json"));
        assert_eq!(reply.json(), expected, "{path}");
    }
    let post = Request::post(metadata.path()).body(Body::empty()).unwrap();
    let reply = Response::read(metadata.router().oneshot(post).await.unwrap()).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    // The challenge of a refusal names the URL the document is served at.
    let refused = App::protected().call(None, "whoami", json!({})).await;
    let named = refused.challenge.unwrap();
    assert!(
        named.ends_with(&format!("\"{}\"", metadata.url())),
        "{named}"
    );
}

#[tokio::test]
async fn a_state_minted_for_one_subject_does_not_resume_for_another() {
    let app = App::protected();
    let ann = format!("Bearer {}", Signer::Rs256.sign(&claims("ann")));
    let bob = format!("Bearer {}", Signer::Es256.sign(&claims("bob")));
    let args = json!({"arguments": {"target": "prod"}});
    let first = app.call(Some(&ann), "deploy", args.clone()).await.json();
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap();
    let answer = json!({
        "arguments": {"target": "prod"},
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
        "requestState": state,
    });
    let calls = app.calls();
    let stolen = app.call(Some(&bob), "deploy", answer.clone()).await;
    assert_eq!(stolen.status, StatusCode::OK);
    let error = json!({"code": -32602, "message": "Invalid or expired \"requestState\""});
    assert_eq!(stolen.json()["error"], error, "{}", stolen.body);
    assert!(stolen.json().get("result").is_none());
    assert_eq!(app.calls(), calls, "the handler ran for bob");
    // The same subject with another token (HS256 this time) resumes it.
    let ann_again = format!("Bearer {}", Signer::Hs256.sign(&claims("ann")));
    let done = app.call(Some(&ann_again), "deploy", answer).await;
    assert_eq!(done.text(), "deployed prod");
}

#[tokio::test]
async fn without_authentication_the_subject_stays_empty() {
    let app = App::new(HttpConfig::default());
    let token = Signer::Rs256.sign(&claims("ann"));
    for authorization in [None, Some(format!("Bearer {token}"))] {
        let reply = app
            .call(authorization.as_deref(), "whoami", json!({}))
            .await;
        assert_eq!(reply.challenge, None);
        assert_eq!(reply.seen()["subject"], Value::Null);
    }
}

#[tokio::test]
async fn serve_http_on_serves_the_metadata_beside_the_protected_endpoint() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = App::protected();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(app.server.clone().serve_http_on(
        listener,
        app.config.clone(),
        async {
            let _ = stopped.await;
        },
    ));
    // One HTTP/1.1 exchange on loopback; the raw answer.
    let exchange = |request: String| async move {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    };
    let get = "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\n\
               Host: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let answer = exchange(get.to_owned()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // The JSON document, whether framed by a length or in chunks (with the `http2` feature,
    // hyper-util's auto driver answers HTTP/1.1 in chunks).
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let document = &body[body.find('{').unwrap()..=body.rfind('}').unwrap()];
    assert_eq!(
        serde_json::from_str::<Value>(document).unwrap()["resource"],
        RESOURCE
    );
    let post = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Content-Length: 2\r\nConnection: close\r\n\r\n{}";
    let answer = exchange(post.to_owned()).await.to_lowercase();
    assert!(answer.starts_with("http/1.1 401"), "{answer}");
    let challenge = format!("www-authenticate: bearer resource_metadata=\"{METADATA_URL}\"");
    assert!(answer.contains(&challenge), "{answer}");
    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}
