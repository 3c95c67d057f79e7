//! Server-level security properties of multi-round requests (`requestState`), driven
//! in-process through [`Server::handle_message`].
//!
//! Every refused state must be answered with JSON-RPC `-32602` and exactly the message
//! `Invalid or expired "requestState"`, no handler may run, the reason must go to the log
//! (never the token, never the key), and the server must keep serving afterwards.
//!
//! Every case that forges, damages, replays or outlives a state runs under both modes of the
//! signer ([`MODES`]): signed and sealed.
//!
//! The handlers under test count their invocations in [`Calls`] (server state); most share
//! the one-question [`Flow`], under names, arguments, methods (a tool, the prompt `deploy`,
//! the resource `approve`) and callers chosen to collide. A request is a [`Req`]; the log is
//! captured per thread by a `tracing_subscriber::fmt` subscriber ([`capture_logs`]).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{Continuation, Reply, RequestState, RequestStateSigner, Round, Step};
use typemcp_server::typemcp_core::form::form_request;
use typemcp_server::typemcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
use typemcp_server::typemcp_core::state::{
    Binding, BindingRequest, Protection, SigningKey, StateSigner,
};
use typemcp_server::{
    AuthIdentity, Server, ServerBuilder, State, TransportInfo, prompt, resource, tool,
};

use crate::support::confirm::{Confirm, Flow, FlowAnswered, FlowAsking};
use crate::support::log_capture::{capture_logs, clear_log, log_lines};
use crate::support::replies::{state_of, text_of};
use crate::support::wire;

// ----- The server under test -----

/// The signing key of the server under test.
const KEY: [u8; 32] = [7u8; 32];
/// A fixed starting time for the injected clock (Unix seconds).
const T0: u64 = 1_800_000_000;
/// The caller most requests come from.
const ANN: Option<&str> = Some("ann");
/// Both ways a signer protects its states: every refusal must hold in each.
const MODES: [Protection; 2] = [Protection::Signed, Protection::Sealed];

/// The signer of `key`, minting in `mode`.
fn signer_in(mode: Protection, key: [u8; 32]) -> RequestStateSigner {
    let signer = RequestStateSigner::new(key).unwrap();
    if mode == Protection::Sealed {
        signer.sealed()
    } else {
        signer
    }
}

/// How many times each handler's body ran (by handler name), and the token `foreign` minted.
#[derive(Clone, Default)]
struct Calls {
    counts: Arc<Mutex<HashMap<&'static str, usize>>>,
    leaked: Arc<Mutex<Option<String>>>,
}

impl Calls {
    fn bump(&self, handler: &'static str) {
        *self.counts.lock().unwrap().entry(handler).or_default() += 1;
    }

    /// The [`Flow`] of every handler but `nag`: ask, then report the answer about `what`.
    fn step(&self, handler: &'static str, round: &Round<Flow>, what: &str) -> Step<Flow, String> {
        self.bump(handler);
        match round.resume() {
            None => round.ask(FlowAsking::Confirming {
                confirm: format!("Confirm {what}?").into(),
            }),
            Some(FlowAnswered::Confirming {
                confirm: Reply::Accepted(Confirm { ok: true }),
            }) => Step::done(format!("done: {what}")),
            Some(FlowAnswered::Confirming { .. }) => Step::done(format!("cancelled: {what}")),
        }
    }
}

/// A flow that asks again and again (three times in all).
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Again {
    #[awaits(confirm: Confirm)]
    Asking { n: u32 },
}

/// Deploy the service.
#[tool]
async fn deploy(target: String, round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.step("deploy", &round, &format!("deploy {target}"))
}

/// Roll the service back.
#[tool]
async fn rollback(target: String, round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    let what = format!("rollback {target}");
    calls.0.step("rollback", &round, &what)
}

/// Approve something (no arguments; also the URI of a resource).
#[tool]
async fn approve(round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.step("approve", &round, "approve")
}

/// Two arguments, for argument key order.
#[tool]
async fn pair(a: i64, b: i64, round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.step("pair", &round, &format!("pair {a} {b}"))
}

/// Asks three times, then finishes.
#[tool]
async fn nag(round: Round<Again>, calls: State<Calls>) -> Step<Again, String> {
    calls.0.bump("nag");
    match round.resume() {
        None => round.ask(AgainAsking::Asking {
            n: 1,
            confirm: "Question 1?".into(),
        }),
        Some(AgainAnswered::Asking { n, confirm }) if n < 3 && confirm.is_accepted() => {
            round.ask(AgainAsking::Asking {
                n: n + 1,
                confirm: format!("Question {}?", n + 1).into(),
            })
        }
        Some(AgainAnswered::Asking { n, .. }) => Step::done(format!("answered {n}")),
    }
}

/// Never mints a state.
#[tool]
async fn hello(calls: State<Calls>) -> &'static str {
    calls.0.bump("hello");
    "hello"
}

/// Mints a state under a foreign binding.
#[tool]
async fn foreign(state: RequestState, calls: State<Calls>) -> Outcome<CallToolResult> {
    calls.0.bump("foreign");
    let (signer, binding) = (state.signer().unwrap(), Binding::from_parts(["elsewhere"]));
    let token = signer.sign(b"foreign-payload-marker", Some(&binding));
    *calls.0.leaked.lock().unwrap() = Some(token.clone());
    let question = form_request::<Confirm>("Confirm?".to_owned());
    let result = InputRequiredResult::new().with_request("confirm", question);
    Outcome::InputRequired(result.with_state(token))
}

/// Reports what the `RequestState` extractor saw.
#[tool]
async fn raw(state: RequestState, calls: State<Calls>) -> String {
    calls.0.bump("raw");
    let (payload, sign, signer) = (state.payload(), state.sign(b"x"), state.signer());
    let seen = [payload.is_none(), sign.is_none(), signer.is_none()];
    json!({"raw": state.raw(), "payload, sign, signer are none": seen}).to_string()
}

/// The deploy flow as a prompt, under the tool's name.
#[prompt(name = "deploy")]
async fn as_prompt(target: String, round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.step("prompt", &round, &format!("prompt {target}"))
}

/// The flow as a resource, whose URI is a tool's name.
#[resource(uri = "approve", mime_type = "text/plain")]
async fn as_resource(round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.step("resource", &round, "resource")
}

// ----- Requests and the harness -----

/// One request to the server: its caller (`None`: no identity), method and first-round params.
#[derive(Debug, Clone)]
struct Req(Option<&'static str>, &'static str, Value);

impl Req {
    /// The same request sent by `who`.
    fn by(self, who: Option<&'static str>) -> Self {
        Self(who, self.1, self.2)
    }
}

/// `tools/call` of `name` with `arguments`, by "ann".
fn call(name: &str, arguments: Value) -> Req {
    let params = json!({"name": name, "arguments": arguments});
    Req(ANN, "tools/call", params)
}

/// `tools/call` of `deploy` to `target`, by "ann".
fn deploy_to(target: &str) -> Req {
    call("deploy", json!({ "target": target }))
}

/// `deploy` to staging, the request most tests mint and echo.
fn staging() -> Req {
    deploy_to("staging")
}

/// `prompts/get` of the prompt `deploy` to staging, by "ann".
fn prompt_staging() -> Req {
    let params = json!({"name": "deploy", "arguments": {"target": "staging"}});
    Req(ANN, "prompts/get", params)
}

/// `resources/read` of the resource `approve`, by "ann".
fn read_approve() -> Req {
    Req(ANN, "resources/read", json!({"uri": "approve"}))
}

/// An accepted answer to the `confirm` question.
fn accept(ok: bool) -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": ok}}})
}

/// `req` as a JSON-RPC request with `extra` params and a valid `_meta` declaring forms.
fn encode(Req(_, method, params): &Req, extra: Value) -> Vec<u8> {
    let mut params = params.clone();
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    serde_json::to_vec(&wire::request(method, params, wire::forms())).unwrap()
}

/// A server under test: the server, its counters and its clock.
struct Harness {
    server: Server,
    calls: Calls,
    clock: Arc<AtomicU64>,
}

impl Harness {
    /// A server with every handler and the signer of `key` on the test clock, as adjusted by
    /// `signer` and `builder`.
    fn build(
        key: [u8; 32],
        signer: impl FnOnce(RequestStateSigner) -> RequestStateSigner,
        builder: impl FnOnce(ServerBuilder) -> ServerBuilder,
    ) -> Self {
        Self::build_in(Protection::Signed, key, signer, builder)
    }

    /// [`build`](Self::build), the signer minting in `mode`.
    fn build_in(
        mode: Protection,
        key: [u8; 32],
        signer: impl FnOnce(RequestStateSigner) -> RequestStateSigner,
        builder: impl FnOnce(ServerBuilder) -> ServerBuilder,
    ) -> Self {
        capture_logs();
        let clock = Arc::new(AtomicU64::new(T0));
        let now = Arc::clone(&clock);
        let clocked = signer_in(mode, key);
        let signer = signer(clocked.clock(Arc::new(move || now.load(Ordering::SeqCst))));
        let calls = Calls::default();
        let server = Server::builder()
            .state(calls.clone())
            .tool(deploy)
            .tool(rollback)
            .tool(approve)
            .tool(pair)
            .tool(nag)
            .tool(hello)
            .tool(foreign)
            .tool(raw)
            .prompt(as_prompt)
            .resource(as_resource)
            .request_state_signer(signer);
        let server = builder(server).build().unwrap();
        Self {
            server,
            calls,
            clock,
        }
    }

    fn new() -> Self {
        Self::build(KEY, |s| s, |b| b)
    }

    /// The default server, its signer minting in `mode`.
    fn new_in(mode: Protection) -> Self {
        Self::build_in(mode, KEY, |s| s, |b| b)
    }

    /// How many times the handler `name` ran.
    fn count(&self, name: &str) -> usize {
        let counts = self.calls.counts.lock().unwrap();
        counts.get(name).copied().unwrap_or(0)
    }

    /// Sends `bytes` as `who`; the raw reply.
    async fn send_bytes(&self, who: Option<&str>, bytes: &[u8]) -> Vec<u8> {
        let mut transport = TransportInfo::in_process();
        if let Some(subject) = who {
            transport = transport.with_auth(AuthIdentity::new(subject));
        }
        let reply = self.server.handle_message(bytes, transport).await;
        reply.expect("a request gets a reply").to_vec()
    }

    /// Sends `req` with `extra` params (`inputResponses`, `requestState`).
    async fn send(&self, req: &Req, extra: Value) -> Value {
        let reply = self.send_bytes(req.0, &encode(req, extra)).await;
        serde_json::from_slice(&reply).unwrap()
    }

    /// The signed state of the first round of `req`.
    async fn mint(&self, req: &Req) -> String {
        state_of(&self.send(req, json!({})).await)
    }

    /// `req` resumed with an accepted confirmation and `state`.
    async fn answer(&self, req: &Req, state: &str) -> Value {
        let extra = json!({"inputResponses": accept(true), "requestState": state});
        self.send(req, extra).await
    }

    /// Each of `states`, echoed to `req` with an answer, gets the fixed refusal and runs no
    /// handler (`case` names it in failures).
    async fn refuse<S: AsRef<str>>(&self, case: &str, req: &Req, states: &[S]) {
        for state in states.iter().map(AsRef::as_ref) {
            let case = format!("{case}: {state:?} echoed to {req:?}");
            let before: usize = self.calls.counts.lock().unwrap().values().sum();
            assert_refused(&self.answer(req, state).await, &case);
            let after: usize = self.calls.counts.lock().unwrap().values().sum();
            assert_eq!(before, after, "{case}: a handler ran");
        }
    }

    /// A full good round trip on `deploy`: the server still serves.
    async fn assert_still_serves(&self) {
        let state = self.mint(&staging()).await;
        let reply = self.answer(&staging(), &state).await;
        assert_eq!(text_of(&reply), "done: deploy staging");
        let reply = self.send(&call("hello", json!({})), json!({})).await;
        assert_eq!(text_of(&reply), "hello");
    }

    /// The end of a refusal test: every `reason` was logged, no `token` leaked, and the
    /// server still serves.
    async fn finish(&self, reasons: &[&str], tokens: &[&str]) {
        reasons.iter().for_each(|r| assert_refusal_logged(r));
        tokens.iter().for_each(|t| assert_no_secrets(t));
        self.assert_still_serves().await;
    }
}

/// What the `raw` tool reports.
fn raw_seen(reply: &Value) -> Value {
    serde_json::from_str(&text_of(reply)).unwrap()
}

/// `reply` is exactly the error `code` and `message`, with no result (`case` names it).
#[track_caller]
fn assert_error(reply: &Value, code: i64, message: &str, case: &str) {
    let expected = json!({"error": {"code": code, "message": message}, "result": null});
    let error = json!({"error": reply["error"], "result": reply.get("result")});
    assert_eq!(error, expected, "{case}: {reply}");
}

/// The refusal every bad state gets: `-32602` and the fixed message, nothing else.
#[track_caller]
fn assert_refused(reply: &Value, case: &str) {
    assert_error(reply, -32602, "Invalid or expired \"requestState\"", case);
}

/// The dot-separated fields of a token: signed, `mcp3.<key id>.<expiry>.<nonce>.<payload>.<tag>`;
/// sealed, `mcp3s.<key id>.<expiry>.<nonce>.<ciphertext>` (the Poly1305 tag ends the
/// ciphertext).
#[track_caller]
fn fields(token: &str) -> Vec<String> {
    let parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    let format = (parts.len(), parts[0].as_str());
    assert!(
        format == (6, "mcp3") || format == (5, "mcp3s"),
        "token format changed: {token}"
    );
    parts
}

/// Whether `token` is sealed.
fn is_sealed(token: &str) -> bool {
    token.starts_with("mcp3s.")
}

/// The index of the payload (the ciphertext, if sealed) among a token's fields.
const PAYLOAD: usize = 4;

/// The index of the field holding the tag: the last (the ciphertext, if sealed).
fn tag_field(token: &str) -> usize {
    token.split('.').count() - 1
}

/// `token` with field `index` replaced by `value`.
fn with_field(token: &str, index: usize, value: String) -> String {
    let mut parts = fields(token);
    parts[index] = value;
    parts.join(".")
}

/// The `refused a requestState` lines of this thread.
fn refusals() -> Vec<String> {
    let mut lines = log_lines();
    lines.retain(|l| l.contains("refused a requestState"));
    lines
}

/// A refusal with `reason` was logged, and every refusal is a warning.
#[track_caller]
fn assert_refusal_logged(reason: &str) {
    let refusals = refusals();
    let logged = refusals.iter().any(|l| l.contains(reason));
    assert!(logged, "no refusal for {reason:?}: {:#?}", log_lines());
    let warnings = refusals.iter().all(|l| l.starts_with(" WARN "));
    assert!(warnings, "refusals are warnings: {refusals:#?}");
}

/// No line holds the token (nor its tag or payload, when long enough to be recognisable),
/// nor the key.
#[track_caller]
fn assert_no_secrets(token: &str) {
    let parts: Vec<&str> = token.split('.').collect();
    let tag = parts.get(tag_field(token)).filter(|t| t.len() >= 8);
    let tag = tag.unwrap_or(&token);
    let payload = parts
        .get(PAYLOAD)
        .filter(|p| p.len() >= 16)
        .unwrap_or(&token);
    let key_bytes = format!("{:?}", &KEY[..8]).trim_end_matches(']').to_owned();
    let key = [URL_SAFE_NO_PAD.encode(KEY), STANDARD.encode(KEY)];
    let key = key.into_iter().chain(["07".repeat(16), key_bytes]);
    let (lines, token) = (log_lines(), [token, tag, payload].map(str::to_owned));
    for needle in token.into_iter().chain(key) {
        let leak = lines.iter().find(|line| line.contains(&needle));
        assert!(leak.is_none(), "a log line leaks {needle:?}: {leak:?}");
    }
}

// ----- Forged and damaged states -----

/// Mints a `deploy staging` state and echoes every forgery `forge` makes of it: each is
/// refused without running a handler and logged once, every one of `reasons` is logged,
/// neither the token nor a long forgery leaks into the log, and the server still serves.
/// In both modes.
async fn assert_forgeries_refused(forge: impl Fn(&str) -> Vec<String>, reasons: &[&str]) {
    for mode in MODES {
        clear_log();
        let h = Harness::new_in(mode);
        let token = h.mint(&staging()).await;
        assert_eq!(is_sealed(&token), mode == Protection::Sealed, "{token}");
        let forged = forge(&token);
        assert!(forged.iter().all(|f| *f != token), "{forged:?}");
        h.refuse("forged", &staging(), &forged).await;
        assert_eq!(refusals().len(), forged.len(), "{:#?}", log_lines());
        let long = forged.iter().map(String::as_str).filter(|f| f.len() >= 16);
        let tokens: Vec<&str> = long.chain([token.as_str()]).collect();
        h.finish(reasons, &tokens).await;
    }
}

/// The payload of a `deploy staging` token of [`KEY`], signed or sealed.
fn opened(token: &str) -> String {
    let verifier = RequestStateSigner::new(KEY).unwrap().clock(Arc::new(|| T0));
    let arguments = json!({"target": "staging"});
    let request = BindingRequest {
        subject: ANN,
        method: "tools/call",
        target: "deploy",
        arguments: &arguments,
    };
    let payload = verifier.verify(token, Some(&Binding::derive(&request)));
    String::from_utf8(payload.unwrap()).unwrap()
}

/// `token` with its payload changed by `change`. A signed payload is decoded, changed and
/// encoded again. A sealed one is changed as an attacker who knows the plaintext would: the
/// ciphertext XORed with the old and the new plaintext (a stream cipher's keystream cancels
/// out), the tag kept.
fn with_payload(token: &str, change: fn(&str) -> String) -> String {
    let body = URL_SAFE_NO_PAD.decode(&fields(token)[PAYLOAD]).unwrap();
    if !is_sealed(token) {
        let changed = change(&String::from_utf8(body).unwrap());
        return with_field(token, PAYLOAD, URL_SAFE_NO_PAD.encode(changed));
    }
    let plain = opened(token).into_bytes();
    let changed = change(&String::from_utf8(plain.clone()).unwrap()).into_bytes();
    let (cipher, tag) = body.split_at(body.len() - 16);
    let byte = |bytes: &[u8], i: usize| bytes.get(i).copied().unwrap_or(0);
    let flipped = (0..changed.len()).map(|i| changed[i] ^ byte(&plain, i) ^ byte(cipher, i));
    let forged: Vec<u8> = flipped.chain(tag.iter().copied()).collect();
    with_field(token, PAYLOAD, URL_SAFE_NO_PAD.encode(forged))
}

#[tokio::test]
async fn a_tampered_payload_is_refused() {
    // Reset the round counter, swap the state's text, add a byte: all break the signature.
    let reset = |text: &str| {
        assert!(text.contains("\"r\":1"), "payload: {text}");
        text.replace("\"r\":1", "\"r\":0")
    };
    let swap = |text: &str| text.replace("Confirm deploy staging?", "Confirm deploy anywhere?");
    let grow = |text: &str| format!("{text} ");
    let changes: [fn(&str) -> String; 3] = [reset, swap, grow];
    let forge = |t: &str| changes.map(|change| with_payload(t, change)).to_vec();
    assert_forgeries_refused(forge, &["bad signature"]).await;
}

#[tokio::test]
async fn a_tampered_expiry_is_refused() {
    // The expiry a few seconds earlier (a day later is past the TTL bound).
    let forge = |token: &str| {
        let expiry: u64 = fields(token)[2].parse().unwrap();
        vec![with_field(token, 2, (expiry - 5).to_string())]
    };
    assert_forgeries_refused(forge, &["bad signature"]).await;
}

#[tokio::test]
async fn a_tampered_signature_is_refused() {
    // Sealed: the last field is the ciphertext, its tag at the end.
    let forge = |token: &str| {
        let tag_at = tag_field(token);
        let tag = URL_SAFE_NO_PAD.decode(&fields(token)[tag_at]).unwrap();
        let (mut first, mut last) = (tag.clone(), tag.clone());
        first[0] ^= 0x01;
        *last.last_mut().unwrap() ^= 0x80;
        let tags = [first, last, vec![0u8; tag.len()], Vec::new()];
        let with_tag = |tag| with_field(token, tag_at, URL_SAFE_NO_PAD.encode(tag));
        tags.map(with_tag).to_vec()
    };
    assert_forgeries_refused(forge, &["bad signature"]).await;
}

#[tokio::test]
async fn a_truncated_token_is_refused() {
    let forge = |t: &str| {
        let (dot, len) = (t.rfind('.').unwrap(), t.len());
        let cuts = [&t[..len - 1], &t[..len - 4], &t[..dot], &t[..=dot]];
        let version = &t[..t.find('.').unwrap()];
        let cuts = cuts.into_iter().chain([&t[..len / 2], version, ""]);
        cuts.map(str::to_owned).collect()
    };
    assert_forgeries_refused(forge, &["malformed token", "bad signature"]).await;
}

#[tokio::test]
async fn the_conformance_tampered_suffix_is_refused() {
    assert_forgeries_refused(|token| vec![format!("{token}-TAMPERED")], &[]).await;
}

#[tokio::test]
async fn a_token_from_another_key_is_refused() {
    for mode in MODES {
        clear_log();
        let h = Harness::new_in(mode);
        // Same subject, tool, arguments and key id: only the key differs.
        let other = Harness::build_in(mode, [8u8; 32], |s| s, |b| b);
        let token = other.mint(&staging()).await;
        h.refuse("other key", &staging(), &[&token]).await;
        assert_refusal_logged("bad signature");

        // A key with another key id is refused as unknown.
        let key = SigningKey::new([9u8; 32]).unwrap();
        let signer = RequestStateSigner::from_signer(
            StateSigner::new(key).with_key_id("2").with_protection(mode),
        );
        let renamed = Harness::build(KEY, |_| signer, |b| b);
        let unknown = renamed.mint(&staging()).await;
        h.refuse("other key id", &staging(), &[unknown]).await;
        h.finish(&["signed with an unknown key"], &[&token]).await;
        // And the other server still accepts its own.
        let token = other.mint(&staging()).await;
        let reply = other.answer(&staging(), &token).await;
        assert_eq!(text_of(&reply), "done: deploy staging");
    }
}

#[tokio::test]
async fn an_expired_state_is_refused_after_the_default_or_a_custom_ttl() {
    for mode in MODES {
        // The default ten minutes, and 30 seconds: far inside the default, past the custom TTL.
        for ttl in [None, Some(30)] {
            clear_log();
            let seconds = ttl.unwrap_or(600);
            let h = match ttl {
                Some(ttl) => Harness::build_in(
                    mode,
                    KEY,
                    |s| s.ttl(Duration::from_secs(ttl)).unwrap(),
                    |b| b,
                ),
                None => Harness::new_in(mode),
            };
            let token = h.mint(&staging()).await;
            assert_eq!(fields(&token)[2], (T0 + seconds).to_string(), "{ttl:?}");

            // It verifies at its expiry, and is refused one second later.
            h.clock.fetch_add(seconds, Ordering::SeqCst);
            let reply = h.answer(&staging(), &token).await;
            assert_eq!(text_of(&reply), "done: deploy staging", "{ttl:?}");
            h.clock.fetch_add(1, Ordering::SeqCst);
            let case = format!("ttl {ttl:?}");
            h.refuse(&case, &staging(), &[&token]).await;
            h.finish(&["expired"], &[&token]).await;
        }
    }
}

#[tokio::test]
async fn an_oversized_state_is_refused_before_decoding() {
    for mode in MODES {
        clear_log();
        let h = Harness::new_in(mode);

        // Above the default 16 KiB: garbage that would not even parse.
        let huge = format!("mcp1.{}", "!".repeat(16 * 1024));
        h.refuse("over 16 KiB", &staging(), &[huge]).await;
        assert_refusal_logged("more than the 16384 allowed");

        // A genuine token (same key, same binding) above a smaller cap: refused by size alone.
        let token = h.mint(&staging()).await;
        let cap = token.len() - 1;
        let small = Harness::build_in(mode, KEY, |s| s.max_state_bytes(cap), |b| b);
        small.refuse("over the cap", &staging(), &[&token]).await;
        let length = token.len();
        assert_refusal_logged(&format!("has {length} bytes, more than the {cap} allowed"));
        // The same token verifies where the cap allows it.
        let reply = h.answer(&staging(), &token).await;
        assert_eq!(text_of(&reply), "done: deploy staging");
        h.finish(&[], &[&token]).await;
        let greeting = small.send(&call("hello", json!({})), json!({})).await;
        assert_eq!(text_of(&greeting), "hello");
    }
}

// ----- States replayed elsewhere (the binding) -----

#[tokio::test]
async fn a_state_echoed_by_another_caller_or_to_another_request_is_refused() {
    for mode in MODES {
        clear_log();
        let h = Harness::new_in(mode);
        let rollback_staging = || call("rollback", json!({"target": "staging"}));
        let more = call("deploy", json!({"target": "staging", "extra": true}));
        let (pair_12, pair_21) = (json!({"a": 1, "b": 2}), json!({"b": 1, "a": 2}));
        let (pair_12, pair_21) = (call("pair", pair_12), call("pair", pair_21));
        let approve_tool = || call("approve", json!({}));
        let bob = Some("bob");
        // (case, minted for, echoed to): the prompt "deploy" mints with the same name and
        // arguments as the tool "deploy"; the resource "approve" with the URI of the tool
        // "approve" (no arguments).
        let cases = [
            ("other tool", staging(), rollback_staging()),
            ("other tool", rollback_staging(), staging()),
            ("other caller", staging(), staging().by(bob)),
            ("no caller", staging(), staging().by(None)),
            ("empty caller", staging(), staging().by(Some(""))),
            ("a caller", staging().by(None), staging().by(bob)),
            ("other target", staging(), deploy_to("production")),
            ("padded target", staging(), deploy_to("staging ")),
            ("extra argument", staging(), more),
            ("no argument", staging(), call("deploy", json!({}))),
            ("other values", pair_12, pair_21),
            ("tool, not prompt", prompt_staging(), staging()),
            ("tool, not resource", read_approve(), approve_tool()),
            ("prompt, not tool", staging(), prompt_staging()),
            ("resource, not tool", approve_tool(), read_approve()),
        ];
        let mut tokens = Vec::new();
        for (case, minted_for, echoed_to) in cases {
            let token = h.mint(&minted_for).await;
            h.refuse(case, &echoed_to, &[&token]).await;
            tokens.push(token);
        }
        let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
        h.finish(&["bad signature"], &tokens).await;

        // Each caller resumes its own.
        let anonymous = staging().by(None);
        let reply = h.answer(&anonymous, &h.mint(&anonymous).await).await;
        assert_eq!(text_of(&reply), "done: deploy staging");
    }
}

#[tokio::test]
async fn a_state_sent_to_a_tool_that_never_minted_one_is_refused() {
    for mode in MODES {
        clear_log();
        let h = Harness::new_in(mode);
        let token = h.mint(&staging()).await;
        for state in [token.as_str(), "anything", "mcp1.MQ.1.AA.AA.AA"] {
            let extra = json!({"requestState": state});
            let reply = h.send(&call("hello", json!({})), extra).await;
            assert_refused(&reply, state);
        }
        assert_eq!(h.count("hello"), 0);
        let reasons = ["bad signature", "malformed token"];
        h.finish(&reasons, &[&token]).await;
    }
}

#[tokio::test]
async fn the_default_binding_is_subject_method_target_and_an_argument_digest() {
    for mode in MODES {
        let token = Harness::new_in(mode).mint(&staging()).await;
        let verifier = RequestStateSigner::new(KEY).unwrap().clock(Arc::new(|| T0));
        let derive = |subject, method, target, target_arg: &str| {
            let arguments = &json!({ "target": target_arg });
            let request = BindingRequest {
                subject,
                method,
                target,
                arguments,
            };
            Binding::derive(&request)
        };
        // Exactly this binding verifies...
        let expected = derive(ANN, "tools/call", "deploy", "staging");
        assert!(verifier.verify(&token, Some(&expected)).is_ok());
        // ...and changing any one component does not.
        for other in [
            derive(None, "tools/call", "deploy", "staging"),
            derive(Some("bob"), "tools/call", "deploy", "staging"),
            derive(ANN, "prompts/get", "deploy", "staging"),
            derive(ANN, "tools/call", "rollback", "staging"),
            derive(ANN, "tools/call", "deploy", "production"),
            Binding::none(),
        ] {
            assert!(verifier.verify(&token, Some(&other)).is_err(), "{other:?}");
        }

        // The arguments digest ignores their order (their values matter: see the replay table).
        let h = Harness::new_in(mode);
        let token = h.mint(&call("pair", json!({"a": 1, "b": 2}))).await;
        let extra = json!({"inputResponses": accept(true), "requestState": &token});
        let bytes = encode(&call("pair", json!({"b": 2, "a": 1})), extra);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let in_order = text.contains(r#""arguments":{"b":2,"a":1}"#);
        assert!(in_order, "sent in this order: {text}");
        let reply = serde_json::from_slice(&h.send_bytes(ANN, &bytes).await).unwrap();
        assert_eq!(text_of(&reply), "done: pair 1 2");
        assert_eq!(h.count("pair"), 2);
    }
}

// ----- What a handler hands out -----

#[tokio::test]
async fn an_outgoing_state_under_a_foreign_binding_is_an_internal_error() {
    for mode in MODES {
        clear_log();
        let h = Harness::new_in(mode);
        let request = encode(&call("foreign", json!({})), json!({}));
        let raw_reply = h.send_bytes(ANN, &request).await;
        let reply = serde_json::from_slice(&raw_reply).unwrap();
        assert_error(&reply, -32603, "Internal error", "foreign");
        assert_eq!(h.count("foreign"), 1);

        // Nothing of the state reaches the client.
        let token = h.calls.leaked.lock().unwrap().clone().expect("minted");
        let text = String::from_utf8(raw_reply).unwrap();
        let parts = fields(&token);
        let secrets = [
            &token,
            &parts[PAYLOAD],
            &parts[tag_field(&token)],
            "foreign-payload-marker",
        ];
        let fields = ["requestState", "inputRequests", "mcp3"];
        for leak in secrets.into_iter().chain(fields) {
            assert!(!text.contains(leak), "the reply leaks {leak:?}: {text}");
        }
        let logged = log_lines().into_iter().any(|l| {
            l.starts_with("ERROR ")
                && l.contains("does not verify under this request's binding")
                && l.contains("bad signature")
        });
        assert!(logged, "{:#?}", log_lines());
        h.finish(&[], &[&token]).await;
    }
}

// ----- inputResponses -----

#[tokio::test]
async fn input_responses_must_be_an_object_and_a_missing_or_bad_answer_asks_again() {
    let h = Harness::new();
    let first = h.send(&staging(), json!({})).await;
    let token = state_of(&first);
    // Not an object: refused (on a prompt and a resource too).
    let message = "Invalid params: inputResponses must be an object";
    for bad in [Value::Null, json!(5), json!("yes"), json!([accept(true)])] {
        for extra in [
            json!({"inputResponses": bad}),
            json!({"inputResponses": bad, "requestState": token}),
        ] {
            let reply = h.send(&staging(), extra.clone()).await;
            assert_error(&reply, -32602, message, &extra.to_string());
        }
    }
    // The same check on a prompt and a resource.
    for (req, bad) in [(prompt_staging(), Value::Null), (read_approve(), json!(5))] {
        let reply = h.send(&req, json!({"inputResponses": bad})).await;
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
    }
    let counts = ["deploy", "prompt", "resource"].map(|name| h.count(name));
    assert_eq!(counts, [1, 0, 0], "deploy, prompt, resource");

    // A missing or malformed answer, and unknown keys.
    let answers = [
        json!({}),
        json!({"other": {"action": "accept", "content": {"ok": true}}}),
        json!({"confirm": 12345}),
        json!({"confirm": {"action": "accept", "content": {"ok": "yes"}}}),
        json!({"confirm": {"action": "accept", "content": {}}}),
        json!({"confirm": {"action": "maybe"}}),
        json!({"confirm": null}),
    ];
    let extras = answers.map(|a| json!({"inputResponses": a, "requestState": token}));
    // Without inputResponses at all, too.
    for extra in extras.into_iter().chain([json!({"requestState": token})]) {
        // The first round's questions again, with the same state, and the handler not run.
        let reply = h.send(&staging(), extra.clone()).await;
        assert_eq!(state_of(&reply), token, "{extra}: {reply}");
        // The same question, its message followed by why it is asked again.
        let asked = &reply["result"]["inputRequests"]["confirm"];
        let before = &first["result"]["inputRequests"]["confirm"];
        assert_eq!(asked["method"], before["method"], "{extra}");
        assert_eq!(
            asked["params"]["requestedSchema"], before["params"]["requestedSchema"],
            "{extra}"
        );
        let message = asked["params"]["message"].as_str().unwrap_or_default();
        let original = before["params"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(original) && message.len() > original.len(),
            "{extra}: {message}"
        );
        assert_eq!(h.count("deploy"), 1, "the handler ran: {extra}");
    }

    // The answer with unknown extra keys completes.
    let mut answers = accept(true);
    answers["unrelated"] = json!({"action": "accept", "content": {"x": 1}});
    answers["also"] = json!(12);
    let extra = json!({"inputResponses": answers, "requestState": token});
    let reply = h.send(&staging(), extra).await;
    assert_eq!(text_of(&reply), "done: deploy staging");
    assert_eq!(h.count("deploy"), 2);
    h.assert_still_serves().await;
}

// ----- Rounds -----

/// Runs `nag` on `h`, answering its questions (checked) until it has asked `rounds` times,
/// and returns the reply to the last answer.
async fn nag_rounds(h: &Harness, rounds: u32) -> Value {
    let nag_call = call("nag", json!({}));
    let mut reply = h.send(&nag_call, json!({})).await;
    for round in 1..=rounds {
        let question = &reply["result"]["inputRequests"]["confirm"]["params"]["message"];
        assert_eq!(question, &json!(format!("Question {round}?")), "{reply}");
        reply = h.answer(&nag_call, &state_of(&reply)).await;
    }
    reply
}

#[tokio::test]
async fn the_round_cap_stops_a_flow_that_asks_too_often() {
    // The third question would be a third round.
    let h = Harness::build(KEY, |s| s, |b| b.max_rounds(2));
    let reply = nag_rounds(&h, 2).await;
    assert_error(&reply, -32600, "Too many rounds for one request", "cap 2");
    assert_eq!(h.count("nag"), 3);
    h.assert_still_serves().await;

    // The default cap lets the same flow finish.
    let reply = nag_rounds(&Harness::new(), 3).await;
    assert_eq!(text_of(&reply), "answered 3");
}

#[tokio::test]
async fn the_happy_path_over_two_rounds_on_a_tool_a_prompt_and_a_resource() {
    let h = Harness::new();
    // (request, what it confirms, where the result holds its text)
    let cases = [
        (staging(), "deploy staging", "/content/0"),
        (prompt_staging(), "prompt staging", "/messages/0/content"),
        (read_approve(), "resource", "/contents/0"),
    ];
    for (req, what, text_at) in cases {
        let reply = h.send(&req, json!({})).await;
        let confirm = &reply["result"]["inputRequests"]["confirm"];
        assert_eq!(confirm["method"], "elicitation/create", "{what}: {reply}");
        let question = format!("Confirm {what}?");
        assert_eq!(confirm["params"]["message"], question, "{what}: {reply}");
        let reply = h.answer(&req, &state_of(&reply)).await;
        let result = &reply["result"];
        assert_eq!(result["resultType"], "complete", "{what}: {reply}");
        let content = result.pointer(text_at).unwrap_or(&Value::Null);
        assert_eq!(content["text"], format!("done: {what}"), "{what}: {reply}");
        if what == "resource" {
            assert_eq!(content["uri"], "approve", "{reply}");
        }
        let handler = what.split(' ').next().unwrap();
        assert_eq!(h.count(handler), 2, "{what}");
    }

    // A declined confirmation is the handler's to answer.
    let token = h.mint(&staging()).await;
    let extra = json!({"inputResponses": accept(false), "requestState": token});
    let reply = h.send(&staging(), extra).await;
    assert_eq!(text_of(&reply), "cancelled: deploy staging");
}

// ----- The RequestState extractor -----

#[tokio::test]
async fn the_request_state_extractor_sees_the_raw_state_only_without_a_signer() {
    let calls = Calls::default();
    let server = Server::builder().state(calls.clone()).tool(raw);
    let server = server.without_request_state_signer().build().unwrap();
    let clock = Arc::default();
    let unsigned = Harness {
        server,
        calls,
        clock,
    };
    let signed = Harness::new();
    let raw_call = call("raw", json!({}));
    // Without a signer, whatever is echoed reaches the handler as is; there is nothing to
    // verify with, nor to sign with.
    let forged = "mcp1.forged.0.AA.AA.AA-TAMPERED";
    for state in [Some("anything-goes"), Some(forged), None] {
        let extra = state.map_or(json!({}), |state| json!({"requestState": state}));
        let reply = unsigned.send(&raw_call, extra).await;
        let seen = json!({"raw": state, "payload, sign, signer are none": [true, true, true]});
        assert_eq!(raw_seen(&reply), seen, "{state:?}");
    }
    assert_eq!(unsigned.count("raw"), 3);
    // With one, a forged state never reaches the extractor, and a first round has a signer.
    signed.refuse("forged", &raw_call, &["anything-goes"]).await;
    let reply = signed.send(&raw_call, json!({})).await;
    let seen = json!({"raw": null, "payload, sign, signer are none": [true, false, false]});
    assert_eq!(raw_seen(&reply), seen);

    // Round<S> refuses to work without a signer: the server does not build.
    let server = Server::builder().state(Calls::default()).tool(deploy);
    let err = server.without_request_state_signer().build().unwrap_err();
    let missing = matches!(err, typemcp_server::BuildError::MissingSigner { .. });
    assert!(missing, "{err:?}");
}

// ----- A handler that takes no part in rounds -----

/// Returns a question with a state it made up, without any state parameter.
#[tool]
async fn smuggler(calls: State<Calls>) -> Outcome<CallToolResult> {
    calls.0.bump("smuggler");
    let question = form_request::<Confirm>("Confirm?".to_owned());
    let result = InputRequiredResult::new().with_request("confirm", question);
    Outcome::InputRequired(
        result.with_state("mcp3.k.9999999999.bm9uY2U.cGF5bG9hZA.dGFn".to_owned()),
    )
}

#[tokio::test]
async fn a_state_from_a_handler_without_state_parameters_is_refused() {
    // No binding is derived for a handler without `Round`, `RequestState` or
    // `InputResponses` on a request that carries no state; a state it returns anyway cannot
    // be its own, and is refused like any state that does not verify.
    capture_logs();
    clear_log();
    let calls = Calls::default();
    let server = Server::builder()
        .state(calls.clone())
        .tool(smuggler)
        .tool(hello)
        .request_state_signer(signer_in(Protection::Signed, [7u8; 32]))
        .build()
        .unwrap();
    let message = encode(&call("smuggler", json!({})), json!({}));
    let reply = server
        .handle_message(&message, TransportInfo::in_process())
        .await
        .unwrap();
    let reply: Value = serde_json::from_slice(&reply).unwrap();
    assert_error(&reply, -32603, "Internal error", "smuggled state");
    assert!(!reply.to_string().contains("mcp3."), "{reply}");
    assert_eq!(calls.counts.lock().unwrap().get("smuggler"), Some(&1));
    assert!(
        log_lines()
            .iter()
            .any(|l| l.contains("returned a requestState") && !l.contains("mcp3.")),
        "{:?}",
        log_lines()
    );
    // A plain handler on the same server is served as before.
    let message = encode(&call("hello", json!({})), json!({}));
    let reply = server
        .handle_message(&message, TransportInfo::in_process())
        .await
        .unwrap();
    let reply: Value = serde_json::from_slice(&reply).unwrap();
    assert!(reply.get("result").is_some(), "{reply}");
}
