//! Server-level security properties of multi-round requests (`requestState`), driven
//! in-process through [`Server::handle_message`].
//!
//! Every refused state must be answered with JSON-RPC `-32602` and exactly the message
//! `Invalid or expired "requestState"`, the handler must never run, the reason must go to the
//! log (never the token, never the key), and the server must keep serving afterwards.
//!
//! The test server has:
//! - `deploy(target)` and `rollback(target)`: the same one-question flow ([`Flow`]);
//! - `approve()`: the same flow without arguments, whose name is also a resource URI;
//! - `pair(a, b)`: the same flow with two arguments (argument key order);
//! - `nag()`: a flow that asks three times (round cap);
//! - `hello()`: never mints a state;
//! - `foreign()`: mints a state under a foreign binding (must be refused on the way out);
//! - the prompt `deploy(target)` and the resource `approve`, both using [`Flow`].
//!
//! Invocations are counted per handler in a [`Calls`] registered as server state, so each
//! test (and each server) has its own counters.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_server::mcp_core::form::form_request;
use mcp_server::mcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
use mcp_server::mcp_core::state::{Binding, BindingRequest};
use mcp_server::state::{Continuation, RequestState, RequestStateSigner, Round, Step};
use mcp_server::{
    Answer, AuthIdentity, ElicitForm, Server, ServerBuilder, State, TransportInfo, prompt,
    resource, tool,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// =============================================================================================
// The server under test
// =============================================================================================

/// The one message every refused state gets.
const INVALID_STATE: &str = "Invalid or expired \"requestState\"";

/// The signing key of the server under test.
const KEY: [u8; 32] = [7u8; 32];

/// A fixed starting time for the injected clock (Unix seconds).
const T0: u64 = 1_800_000_000;

/// How many times each handler's body ran, plus the token the foreign-binding tool minted.
#[derive(Default)]
struct Counters {
    deploy: AtomicUsize,
    rollback: AtomicUsize,
    approve: AtomicUsize,
    pair: AtomicUsize,
    nag: AtomicUsize,
    hello: AtomicUsize,
    foreign: AtomicUsize,
    raw: AtomicUsize,
    prompt: AtomicUsize,
    resource: AtomicUsize,
    leaked: Mutex<Option<String>>,
}

/// The counters, as server state.
#[derive(Clone, Default)]
struct Calls(Arc<Counters>);

impl Calls {
    fn bump(counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

/// Confirm the deploy.
#[derive(ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// One confirmation.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
}

/// A flow that asks again and again (three times in all).
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Again {
    #[awaits(confirm: Confirm)]
    Asking { n: u32 },
}

fn confirm_step(round: &Round<Flow>, what: &str) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(Flow::Confirming, format!("Confirm {what}?")),
        Some(FlowAnswered::Confirming {
            confirm: Answer::Accepted(Confirm { ok: true }),
        }) => Step::done(format!("done: {what}")),
        Some(FlowAnswered::Confirming { .. }) => Step::done(format!("cancelled: {what}")),
    }
}

/// Deploy the service.
#[tool]
async fn deploy(
    /// Where to.
    target: String,
    round: Round<Flow>,
    calls: State<Calls>,
) -> Step<Flow, String> {
    Calls::bump(&calls.0.0.deploy);
    confirm_step(&round, &format!("deploy {target}"))
}

/// Roll the service back.
#[tool]
async fn rollback(
    /// Where to.
    target: String,
    round: Round<Flow>,
    calls: State<Calls>,
) -> Step<Flow, String> {
    Calls::bump(&calls.0.0.rollback);
    confirm_step(&round, &format!("rollback {target}"))
}

/// Approve something (no arguments; also the URI of a resource).
#[tool]
async fn approve(round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    Calls::bump(&calls.0.0.approve);
    confirm_step(&round, "approve")
}

/// Two arguments, for argument key order.
#[tool]
async fn pair(
    /// First.
    a: i64,
    /// Second.
    b: i64,
    round: Round<Flow>,
    calls: State<Calls>,
) -> Step<Flow, String> {
    Calls::bump(&calls.0.0.pair);
    confirm_step(&round, &format!("pair {a} {b}"))
}

/// Asks three times, then finishes.
#[tool]
async fn nag(round: Round<Again>, calls: State<Calls>) -> Step<Again, String> {
    Calls::bump(&calls.0.0.nag);
    match round.resume() {
        None => round.ask(Again::Asking { n: 1 }, "Question 1?"),
        Some(AgainAnswered::Asking { n, confirm }) if n < 3 && confirm.is_settled() => {
            round.ask(Again::Asking { n: n + 1 }, format!("Question {}?", n + 1))
        }
        Some(AgainAnswered::Asking { n, .. }) => Step::done(format!("answered {n}")),
    }
}

/// Never mints a state.
#[tool]
async fn hello(calls: State<Calls>) -> &'static str {
    Calls::bump(&calls.0.0.hello);
    "hello"
}

/// Mints a state under a foreign binding.
#[tool]
async fn foreign(state: RequestState, calls: State<Calls>) -> Outcome<CallToolResult> {
    Calls::bump(&calls.0.0.foreign);
    let signer = state.signer().expect("a signer is configured");
    let token = signer.sign(
        b"foreign-payload-marker",
        Some(&Binding::from_parts(["elsewhere"])),
    );
    *calls.0.0.leaked.lock().unwrap() = Some(token.clone());
    Outcome::InputRequired(
        InputRequiredResult::new()
            .with_request("confirm", form_request::<Confirm>("Confirm?".to_owned()))
            .with_state(token),
    )
}

/// Reports what the `RequestState` extractor saw.
#[tool]
async fn raw(state: RequestState, calls: State<Calls>) -> String {
    Calls::bump(&calls.0.0.raw);
    json!({
        "raw": state.raw(),
        "payload_is_none": state.payload().is_none(),
        "sign_is_none": state.sign(b"x").is_none(),
        "signer_is_none": state.signer().is_none(),
    })
    .to_string()
}

/// The deploy flow as a prompt, under the tool's name.
#[prompt(name = "deploy")]
async fn deploy_prompt(
    /// Where to.
    target: String,
    round: Round<Flow>,
    calls: State<Calls>,
) -> Step<Flow, String> {
    Calls::bump(&calls.0.0.prompt);
    confirm_step(&round, &format!("prompt {target}"))
}

/// The flow as a resource, whose URI is a tool's name.
#[resource(uri = "approve", mime_type = "text/plain")]
async fn approve_resource(round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    Calls::bump(&calls.0.0.resource);
    confirm_step(&round, "resource")
}

/// A server under test: the server, its counters and its clock.
struct Harness {
    server: Server,
    calls: Arc<Counters>,
    clock: Arc<AtomicU64>,
}

impl Harness {
    /// The server with this signer configuration (key, clock) and builder tweaks.
    fn build(
        key: [u8; 32],
        signer: impl FnOnce(RequestStateSigner) -> RequestStateSigner,
        builder: impl FnOnce(ServerBuilder) -> ServerBuilder,
    ) -> Self {
        let clock = Arc::new(AtomicU64::new(T0));
        let now = Arc::clone(&clock);
        let signer = signer(
            RequestStateSigner::new(key)
                .unwrap()
                .clock(Arc::new(move || now.load(Ordering::SeqCst))),
        );
        let calls = Calls::default();
        let counters = Arc::clone(&calls.0);
        let server = builder(
            Server::builder()
                .state(calls)
                .tool(deploy)
                .tool(rollback)
                .tool(approve)
                .tool(pair)
                .tool(nag)
                .tool(hello)
                .tool(foreign)
                .tool(raw)
                .prompt(deploy_prompt)
                .resource(approve_resource)
                .request_state_signer(signer),
        )
        .build()
        .unwrap();
        Self {
            server,
            calls: counters,
            clock,
        }
    }

    fn new() -> Self {
        Self::build(KEY, |s| s, |b| b)
    }

    fn advance(&self, seconds: u64) {
        self.clock.fetch_add(seconds, Ordering::SeqCst);
    }

    fn count(&self, which: fn(&Counters) -> &AtomicUsize) -> usize {
        which(&self.calls).load(Ordering::SeqCst)
    }

    /// Sends one request as `who` (no identity with `None`) and returns the parsed reply.
    async fn send(&self, who: Option<&str>, method: &str, params: Value) -> Value {
        let bytes = request(method, params);
        self.send_bytes(who, &bytes).await
    }

    async fn send_bytes(&self, who: Option<&str>, bytes: &[u8]) -> Value {
        let transport = match who {
            Some(subject) => TransportInfo::in_process().with_auth(AuthIdentity::new(subject)),
            None => TransportInfo::in_process(),
        };
        let reply = self
            .server
            .handle_message(bytes, transport)
            .await
            .expect("a request gets a reply");
        serde_json::from_slice(&reply).unwrap()
    }

    /// `tools/call` as "ann".
    async fn call(&self, name: &str, arguments: Value, extra: Value) -> Value {
        self.call_as(Some("ann"), name, arguments, extra).await
    }

    async fn call_as(
        &self,
        who: Option<&str>,
        name: &str,
        arguments: Value,
        extra: Value,
    ) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        merge(&mut params, extra);
        self.send(who, "tools/call", params).await
    }

    /// The first round of `deploy {target}` as `who`: its signed state.
    async fn mint_as(&self, who: Option<&str>, target: &str) -> String {
        let reply = self
            .call_as(who, "deploy", json!({"target": target}), json!({}))
            .await;
        state_of(&reply)
    }

    async fn mint(&self, target: &str) -> String {
        self.mint_as(Some("ann"), target).await
    }

    /// A full good round trip on `deploy`: the server still serves.
    async fn assert_still_serves(&self) {
        let state = self.mint("staging").await;
        let reply = self
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": accept(true), "requestState": state}),
            )
            .await;
        assert_eq!(text_of(&reply), "done: deploy staging", "{reply}");
        let reply = self.call("hello", json!({}), json!({})).await;
        assert_eq!(text_of(&reply), "hello", "{reply}");
    }
}

/// A serialized JSON-RPC request with a valid `_meta` declaring form elicitation.
fn request(method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .unwrap()
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(into), Value::Object(from)) = (into, from) {
        into.extend(from);
    }
}

/// An accepted answer to the `confirm` question.
fn accept(ok: bool) -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": ok}}})
}

/// The `requestState` of an input-required reply.
fn state_of(reply: &Value) -> String {
    assert_eq!(
        reply["result"]["resultType"], "input_required",
        "expected input_required: {reply}"
    );
    reply["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState in {reply}"))
        .to_owned()
}

/// The text of a complete tool result.
fn text_of(reply: &Value) -> String {
    assert!(reply.get("error").is_none(), "unexpected error: {reply}");
    assert_ne!(reply["result"]["resultType"], "input_required", "{reply}");
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply}"))
        .to_owned()
}

/// The refusal every bad state gets: `-32602` and the fixed message, nothing else.
fn assert_refused(reply: &Value) {
    assert!(
        reply.get("result").is_none(),
        "a result for a bad state: {reply}"
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["message"], INVALID_STATE, "{reply}");
    assert_eq!(
        reply["error"],
        json!({"code": -32602, "message": INVALID_STATE}),
        "the error carries more than the fixed message: {reply}"
    );
}

/// The six dot-separated fields of a token.
fn fields(token: &str) -> Vec<String> {
    let parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    assert_eq!(parts.len(), 6, "token format changed: {token}");
    assert_eq!(parts[0], "mcp1");
    parts
}

// =============================================================================================
// Log capture: a tiny subscriber recording every event as one line
// =============================================================================================

/// Every event logged on this thread while the guard lives, as `message field=value ...`.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<String>>>);

impl Logs {
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// The reasons of the `refused a requestState` warnings.
    fn refusals(&self) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|l| l.contains("refused a requestState"))
            .collect()
    }

    fn assert_refusal_reason(&self, reason: &str) {
        let refusals = self.refusals();
        assert!(
            refusals.iter().any(|l| l.contains(reason)),
            "no refusal logged with reason {reason:?}; log: {:#?}",
            self.lines()
        );
        assert!(
            refusals.iter().all(|l| l.starts_with("WARN ")),
            "refusals are warnings: {refusals:#?}"
        );
    }

    /// No line holds the token (nor any of its signature or payload), nor the key.
    fn assert_no_secrets(&self, token: &str) {
        let parts: Vec<&str> = token.split('.').collect();
        let mut needles = vec![token.to_owned()];
        // The tag, and the payload when it is long enough to be recognisable.
        if let Some(tag) = parts.get(5).filter(|t| t.len() >= 8) {
            needles.push((*tag).to_owned());
        }
        if let Some(payload) = parts.get(4).filter(|p| p.len() >= 16) {
            needles.push((*payload).to_owned());
        }
        needles.push(URL_SAFE_NO_PAD.encode(KEY));
        needles.push(base64::engine::general_purpose::STANDARD.encode(KEY));
        needles.push("07".repeat(16));
        needles.push(format!("{:?}", &KEY[..8]).trim_end_matches(']').to_owned());
        for line in self.lines() {
            for needle in &needles {
                assert!(
                    !line.contains(needle.as_str()),
                    "a log line leaks {needle:?}: {line}"
                );
            }
        }
    }
}

struct Recorder {
    logs: Logs,
    next_span: AtomicU64,
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, " {value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = Fields(format!("SPAN {}", span.metadata().name()));
        span.record(&mut fields);
        self.logs.0.lock().unwrap().push(fields.0);
        tracing::span::Id::from_u64(self.next_span.fetch_add(1, Ordering::SeqCst))
    }

    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut fields = Fields("SPAN-RECORD".to_owned());
        values.record(&mut fields);
        self.logs.0.lock().unwrap().push(fields.0);
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(event.metadata().level().to_string());
        event.record(&mut fields);
        self.logs.0.lock().unwrap().push(fields.0);
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

/// Captures this thread's events (the tests run on a current-thread runtime).
fn capture() -> (Logs, tracing::subscriber::DefaultGuard) {
    let logs = Logs::default();
    let guard = tracing::subscriber::set_default(Recorder {
        logs: logs.clone(),
        next_span: AtomicU64::new(1),
    });
    (logs, guard)
}

// =============================================================================================
// Forged and damaged states
// =============================================================================================

#[tokio::test]
async fn a_tampered_payload_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    assert_eq!(h.count(|c| &c.deploy), 1);
    let mut parts = fields(&token);
    let payload = URL_SAFE_NO_PAD.decode(&parts[4]).unwrap();
    let text = String::from_utf8(payload).unwrap();
    assert!(text.contains("\"r\":1"), "payload: {text}");

    // Reset the round counter, then swap the state's text: both break the signature.
    let forged_payloads = [
        text.replace("\"r\":1", "\"r\":0"),
        text.replace("Confirm deploy staging?", "Confirm deploy anywhere?"),
        format!("{text} "),
    ];
    for forged in forged_payloads {
        assert_ne!(forged, text);
        parts[4] = URL_SAFE_NO_PAD.encode(forged.as_bytes());
        let tampered = parts.join(".");
        let reply = h
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": accept(true), "requestState": tampered}),
            )
            .await;
        assert_refused(&reply);
        logs.assert_no_secrets(&tampered);
    }
    assert_eq!(
        h.count(|c| &c.deploy),
        1,
        "the handler ran on a tampered state"
    );
    logs.assert_refusal_reason("bad signature");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_tampered_expiry_or_binding_hint_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;

    // Push the expiry a day further.
    let mut parts = fields(&token);
    let expiry: u64 = parts[2].parse().unwrap();
    parts[2] = (expiry + 86_400).to_string();
    let later = parts.join(".");
    // Replace the binding hint with the one of another binding.
    let mut parts = fields(&token);
    parts[3] = URL_SAFE_NO_PAD.encode(Binding::from_parts(["x"]).hint());
    let rebound = parts.join(".");

    for tampered in [later, rebound] {
        let reply = h
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": accept(true), "requestState": tampered}),
            )
            .await;
        assert_refused(&reply);
    }
    assert_eq!(h.count(|c| &c.deploy), 1);
    logs.assert_refusal_reason("bad signature");
    logs.assert_refusal_reason("bound to another request");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_tampered_signature_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    let parts = fields(&token);
    let tag = URL_SAFE_NO_PAD.decode(&parts[5]).unwrap();

    let mut flipped = tag.clone();
    flipped[0] ^= 0x01;
    let mut last = tag.clone();
    *last.last_mut().unwrap() ^= 0x80;
    let zeroed = vec![0u8; tag.len()];
    for forged_tag in [flipped, last, zeroed, Vec::new()] {
        let mut parts = parts.clone();
        parts[5] = URL_SAFE_NO_PAD.encode(&forged_tag);
        let tampered = parts.join(".");
        let reply = h
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": accept(true), "requestState": tampered}),
            )
            .await;
        assert_refused(&reply);
    }
    assert_eq!(h.count(|c| &c.deploy), 1);
    logs.assert_refusal_reason("bad signature");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_truncated_token_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    let last_dot = token.rfind('.').unwrap();
    let truncations = [
        token[..token.len() - 1].to_owned(),
        token[..token.len() - 4].to_owned(),
        token[..last_dot].to_owned(),
        token[..=last_dot].to_owned(),
        token[..token.len() / 2].to_owned(),
        "mcp1".to_owned(),
        String::new(),
    ];
    for truncated in truncations {
        let reply = h
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": accept(true), "requestState": truncated}),
            )
            .await;
        assert_refused(&reply);
    }
    assert_eq!(h.count(|c| &c.deploy), 1);
    logs.assert_refusal_reason("malformed token");
    logs.assert_refusal_reason("bad signature");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn the_conformance_tampered_suffix_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    let tampered = format!("{token}-TAMPERED");
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": tampered}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 1);
    assert_eq!(logs.refusals().len(), 1, "{:#?}", logs.lines());
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_token_from_another_key_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let other = Harness::build([8u8; 32], |s| s, |b| b);
    // Same subject, tool, arguments and key id: only the key differs.
    let token = other.mint("staging").await;
    assert_eq!(other.count(|c| &c.deploy), 1);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 0);
    logs.assert_refusal_reason("bad signature");
    logs.assert_no_secrets(&token);

    // A key with another key id is refused as unknown.
    let renamed = Harness::build(
        KEY,
        |_| {
            RequestStateSigner::from_signer(
                mcp_server::mcp_core::state::StateSigner::new(
                    mcp_server::mcp_core::state::SigningKey::new([9u8; 32]).unwrap(),
                )
                .with_key_id("2"),
            )
        },
        |b| b,
    );
    let token = renamed.mint("staging").await;
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 0);
    logs.assert_refusal_reason("signed with an unknown key");
    h.assert_still_serves().await;
    // And the other server still accepts its own.
    let token = other.mint("staging").await;
    let reply = other
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": token}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");
}

#[tokio::test]
async fn an_expired_state_is_refused_after_the_default_ten_minutes() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    assert_eq!(fields(&token)[2], (T0 + 600).to_string());

    // At the expiry itself the state still verifies.
    h.advance(600);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");
    assert_eq!(h.count(|c| &c.deploy), 2);

    // One second later it does not.
    h.advance(1);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 2);
    logs.assert_refusal_reason("expired");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn an_expired_state_is_refused_after_a_custom_ttl() {
    let (logs, _guard) = capture();
    let h = Harness::build(KEY, |s| s.ttl(Duration::from_secs(30)), |b| b);
    let token = h.mint("staging").await;
    assert_eq!(fields(&token)[2], (T0 + 30).to_string());

    h.advance(30);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");

    // 31 seconds: far inside the default ten minutes, past the custom TTL.
    h.advance(1);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 2);
    logs.assert_refusal_reason("expired");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn an_oversized_state_is_refused_before_decoding() {
    let (logs, _guard) = capture();

    // Above the default 16 KiB: garbage that would not even parse.
    let h = Harness::new();
    let huge = format!("mcp1.{}", "!".repeat(16 * 1024));
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"requestState": huge}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 0);
    logs.assert_refusal_reason("more than the 16384 allowed");

    // A genuine token (same key, same binding) above a smaller cap: refused by size alone.
    let token = h.mint("staging").await;
    let cap = token.len() - 1;
    let small = Harness::build(KEY, |s| s.max_state_bytes(cap), |b| b);
    let reply = small
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(small.count(|c| &c.deploy), 0);
    logs.assert_refusal_reason(&format!(
        "the token has {} bytes, more than the {cap} allowed",
        token.len()
    ));
    // The same token verifies where the cap allows it.
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
    let reply = small.call("hello", json!({}), json!({})).await;
    assert_eq!(text_of(&reply), "hello");
}

// =============================================================================================
// States replayed elsewhere (the binding)
// =============================================================================================

#[tokio::test]
async fn a_state_for_another_tool_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    // Minted by deploy, echoed to rollback with the same arguments and the same flow type.
    let token = h.mint("staging").await;
    let reply = h
        .call(
            "rollback",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.rollback), 0);
    logs.assert_refusal_reason("bound to another request");
    logs.assert_no_secrets(&token);

    // And the other way round.
    let reply = h
        .call("rollback", json!({"target": "staging"}), json!({}))
        .await;
    let token = state_of(&reply);
    assert_eq!(h.count(|c| &c.rollback), 1);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 1);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_state_for_another_caller_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint_as(Some("ann"), "staging").await;
    for who in [Some("bob"), None, Some("")] {
        let reply = h
            .call_as(
                who,
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": accept(true), "requestState": &token}),
            )
            .await;
        assert_refused(&reply);
    }
    assert_eq!(h.count(|c| &c.deploy), 1);

    // Minted with no identity, echoed by an authenticated caller.
    let anonymous = h.mint_as(None, "staging").await;
    let reply = h
        .call_as(
            Some("bob"),
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &anonymous}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 2);
    logs.assert_refusal_reason("bound to another request");
    logs.assert_no_secrets(&token);
    logs.assert_no_secrets(&anonymous);

    // Each caller resumes its own.
    let reply = h
        .call_as(
            None,
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &anonymous}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_state_for_other_arguments_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    for arguments in [
        json!({"target": "production"}),
        json!({"target": "staging "}),
        json!({"target": "staging", "extra": true}),
        json!({}),
    ] {
        let reply = h
            .call(
                "deploy",
                arguments,
                json!({"inputResponses": accept(true), "requestState": &token}),
            )
            .await;
        assert_refused(&reply);
    }
    assert_eq!(h.count(|c| &c.deploy), 1);
    logs.assert_refusal_reason("bound to another request");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_state_for_another_method_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();

    // The prompt "deploy" mints with the same name and arguments as the tool "deploy".
    let reply = h
        .send(
            Some("ann"),
            "prompts/get",
            json!({"name": "deploy", "arguments": {"target": "staging"}}),
        )
        .await;
    let from_prompt = state_of(&reply);
    assert_eq!(h.count(|c| &c.prompt), 1);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &from_prompt}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.deploy), 0);

    // The resource "approve" mints with the URI of the tool "approve" (no arguments).
    let reply = h
        .send(Some("ann"), "resources/read", json!({"uri": "approve"}))
        .await;
    let from_resource = state_of(&reply);
    assert_eq!(h.count(|c| &c.resource), 1);
    let reply = h
        .call(
            "approve",
            json!({}),
            json!({"inputResponses": accept(true), "requestState": &from_resource}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.approve), 0);

    // And a tool's state echoed to the prompt and to the resource.
    let from_tool = h.mint("staging").await;
    let reply = h
        .send(
            Some("ann"),
            "prompts/get",
            json!({"name": "deploy", "arguments": {"target": "staging"},
                   "inputResponses": accept(true), "requestState": &from_tool}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.prompt), 1);
    let reply = h.call("approve", json!({}), json!({})).await;
    let from_approve = state_of(&reply);
    let reply = h
        .send(
            Some("ann"),
            "resources/read",
            json!({"uri": "approve", "inputResponses": accept(true), "requestState": &from_approve}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.resource), 1);

    logs.assert_refusal_reason("bound to another request");
    for token in [&from_prompt, &from_resource, &from_tool, &from_approve] {
        logs.assert_no_secrets(token);
    }
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_state_sent_to_a_tool_that_never_minted_one_is_refused() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let token = h.mint("staging").await;
    for state in [token.as_str(), "anything", "mcp1.MQ.1.AA.AA.AA"] {
        let reply = h
            .call("hello", json!({}), json!({"requestState": state}))
            .await;
        assert_refused(&reply);
    }
    assert_eq!(h.count(|c| &c.hello), 0);
    logs.assert_refusal_reason("bound to another request");
    logs.assert_refusal_reason("malformed token");
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn the_default_binding_is_subject_method_target_and_argument_digest() {
    let h = Harness::new();
    let token = h.mint("staging").await;
    let verifier = RequestStateSigner::new(KEY).unwrap().clock(Arc::new(|| T0));
    let derive = |subject, method, target, arguments: Value| {
        Binding::derive(&BindingRequest {
            subject,
            method,
            target,
            arguments: &arguments,
        })
    };
    // Exactly this binding verifies (arguments in canonical form, whatever their order)...
    let expected = derive(
        Some("ann"),
        "tools/call",
        "deploy",
        json!({"target": "staging"}),
    );
    assert!(verifier.verify(&token, Some(&expected)).is_ok());
    // ...and changing any one component does not.
    for other in [
        derive(None, "tools/call", "deploy", json!({"target": "staging"})),
        derive(
            Some("bob"),
            "tools/call",
            "deploy",
            json!({"target": "staging"}),
        ),
        derive(
            Some("ann"),
            "prompts/get",
            "deploy",
            json!({"target": "staging"}),
        ),
        derive(
            Some("ann"),
            "tools/call",
            "rollback",
            json!({"target": "staging"}),
        ),
        derive(
            Some("ann"),
            "tools/call",
            "deploy",
            json!({"target": "production"}),
        ),
        Binding::none(),
    ] {
        assert!(verifier.verify(&token, Some(&other)).is_err());
    }
}

#[tokio::test]
async fn the_default_binding_ignores_argument_key_order() {
    let h = Harness::new();
    let first = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pair","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}"#;
    let reply = h.send_bytes(Some("ann"), first).await;
    let token = state_of(&reply);
    let second = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"pair","arguments":{{"b":2,"a":1}},"inputResponses":{answers},"requestState":"{token}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{"form":{{}}}}}}}}}}}}"#,
        answers = accept(true),
    );
    let reply = h.send_bytes(Some("ann"), second.as_bytes()).await;
    assert_eq!(text_of(&reply), "done: pair 1 2");
    assert_eq!(h.count(|c| &c.pair), 2);

    // The values, unlike their order, still matter.
    let reply = h
        .call(
            "pair",
            json!({"b": 1, "a": 2}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.pair), 2);
}

// =============================================================================================
// What a handler hands out
// =============================================================================================

#[tokio::test]
async fn an_outgoing_state_under_a_foreign_binding_is_an_internal_error() {
    let (logs, _guard) = capture();
    let h = Harness::new();
    let bytes = request("tools/call", json!({"name": "foreign", "arguments": {}}));
    let transport = TransportInfo::in_process().with_auth(AuthIdentity::new("ann"));
    let raw_reply = h.server.handle_message(&bytes, transport).await.unwrap();
    let reply: Value = serde_json::from_slice(&raw_reply).unwrap();
    assert_eq!(
        reply["error"],
        json!({"code": -32603, "message": "Internal error"}),
        "{reply}"
    );
    assert!(reply.get("result").is_none(), "{reply}");
    assert_eq!(h.count(|c| &c.foreign), 1);

    // Nothing of the state reaches the client.
    let token = h.calls.leaked.lock().unwrap().clone().expect("minted");
    let text = String::from_utf8(raw_reply.to_vec()).unwrap();
    let parts = fields(&token);
    for leak in [
        token.as_str(),
        parts[4].as_str(),
        parts[5].as_str(),
        "foreign-payload-marker",
        "requestState",
        "inputRequests",
        "mcp1.",
    ] {
        assert!(!text.contains(leak), "the reply leaks {leak:?}: {text}");
    }
    assert!(
        logs.lines().iter().any(|l| l.starts_with("ERROR ")
            && l.contains("does not verify under this request's binding")
            && l.contains("bound to another request")),
        "{:#?}",
        logs.lines()
    );
    logs.assert_no_secrets(&token);
    h.assert_still_serves().await;
}

// =============================================================================================
// inputResponses
// =============================================================================================

#[tokio::test]
async fn input_responses_that_are_not_an_object_are_refused() {
    let h = Harness::new();
    let token = h.mint("staging").await;
    for bad in [Value::Null, json!(5), json!("yes"), json!([accept(true)])] {
        for state in [None, Some(token.as_str())] {
            let mut extra = json!({"inputResponses": bad.clone()});
            if let Some(state) = state {
                extra["requestState"] = json!(state);
            }
            let reply = h.call("deploy", json!({"target": "staging"}), extra).await;
            assert!(reply.get("result").is_none(), "{reply}");
            assert_eq!(reply["error"]["code"], -32602, "{bad}: {reply}");
            assert_eq!(
                reply["error"]["message"], "Invalid params: inputResponses must be an object",
                "{reply}"
            );
        }
    }
    // The same check on a prompt and a resource.
    for (method, params) in [
        (
            "prompts/get",
            json!({"name": "deploy", "arguments": {"target": "staging"}, "inputResponses": null}),
        ),
        (
            "resources/read",
            json!({"uri": "approve", "inputResponses": 5}),
        ),
    ] {
        let reply = h.send(Some("ann"), method, params).await;
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
    }
    assert_eq!(h.count(|c| &c.deploy), 1);
    assert_eq!(h.count(|c| &c.prompt), 0);
    assert_eq!(h.count(|c| &c.resource), 0);
    h.assert_still_serves().await;
}

#[tokio::test]
async fn a_missing_answer_asks_again_and_unknown_keys_are_ignored() {
    let h = Harness::new();
    let first = h
        .call("deploy", json!({"target": "staging"}), json!({}))
        .await;
    let token = state_of(&first);
    assert_eq!(h.count(|c| &c.deploy), 1);

    for responses in [
        json!({}),
        json!({"other": {"action": "accept", "content": {"ok": true}}}),
    ] {
        let reply = h
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": responses, "requestState": &token}),
            )
            .await;
        assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
        assert_eq!(
            reply["result"]["inputRequests"], first["result"]["inputRequests"],
            "not the same questions"
        );
        assert_eq!(reply["result"]["requestState"], token.as_str());
    }
    // Without inputResponses at all, too.
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"requestState": &token}),
        )
        .await;
    assert_eq!(
        reply["result"]["inputRequests"],
        first["result"]["inputRequests"]
    );
    assert_eq!(
        h.count(|c| &c.deploy),
        1,
        "the handler ran without its answer"
    );

    // The answer with unknown extra keys completes.
    let mut answers = accept(true);
    answers["unrelated"] = json!({"action": "accept", "content": {"x": 1}});
    answers["also"] = json!(12);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": answers, "requestState": &token}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");
    assert_eq!(h.count(|c| &c.deploy), 2);
}

#[tokio::test]
async fn a_malformed_answer_asks_again() {
    let h = Harness::new();
    let first = h
        .call("deploy", json!({"target": "staging"}), json!({}))
        .await;
    let token = state_of(&first);
    for responses in [
        json!({"confirm": 12345}),
        json!({"confirm": {"action": "accept", "content": {"ok": "yes"}}}),
        json!({"confirm": {"action": "accept", "content": {}}}),
        json!({"confirm": {"action": "maybe"}}),
        json!({"confirm": null}),
    ] {
        let reply = h
            .call(
                "deploy",
                json!({"target": "staging"}),
                json!({"inputResponses": responses.clone(), "requestState": &token}),
            )
            .await;
        assert_eq!(
            reply["result"]["resultType"], "input_required",
            "{responses}: {reply}"
        );
        assert_eq!(
            reply["result"]["inputRequests"],
            first["result"]["inputRequests"]
        );
        assert_eq!(reply["result"]["requestState"], token.as_str());
    }
    assert_eq!(h.count(|c| &c.deploy), 1);
    h.assert_still_serves().await;
}

// =============================================================================================
// Rounds
// =============================================================================================

#[tokio::test]
async fn the_round_cap_stops_a_flow_that_asks_too_often() {
    let h = Harness::build(KEY, |s| s, |b| b.max_rounds(2));
    let mut token: Option<String> = None;
    for round in 1..=2 {
        let mut extra = json!({});
        if let Some(t) = &token {
            extra = json!({"inputResponses": accept(true), "requestState": t});
        }
        let reply = h.call("nag", json!({}), extra).await;
        assert_eq!(
            reply["result"]["inputRequests"]["confirm"]["params"]["message"],
            format!("Question {round}?"),
            "{reply}"
        );
        token = Some(state_of(&reply));
    }
    // The third question would be a third round.
    let reply = h
        .call(
            "nag",
            json!({}),
            json!({"inputResponses": accept(true), "requestState": token.unwrap()}),
        )
        .await;
    assert_eq!(
        reply["error"],
        json!({"code": -32600, "message": "Too many rounds for one request"}),
        "{reply}"
    );
    assert_eq!(h.count(|c| &c.nag), 3);
    h.assert_still_serves().await;

    // The default cap lets the same flow finish.
    let h = Harness::new();
    let mut extra = json!({});
    for _ in 0..3 {
        let reply = h.call("nag", json!({}), extra).await;
        extra = json!({"inputResponses": accept(true), "requestState": state_of(&reply)});
    }
    let reply = h.call("nag", json!({}), extra).await;
    assert_eq!(text_of(&reply), "answered 3");
}

#[tokio::test]
async fn the_happy_path_over_two_rounds_on_a_tool() {
    let h = Harness::new();
    let reply = h
        .call("deploy", json!({"target": "staging"}), json!({}))
        .await;
    assert_eq!(
        reply["result"]["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        reply["result"]["inputRequests"]["confirm"]["params"]["message"],
        "Confirm deploy staging?"
    );
    let token = state_of(&reply);
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(true), "requestState": &token}),
        )
        .await;
    assert_eq!(text_of(&reply), "done: deploy staging");
    assert_eq!(reply["result"]["resultType"], "complete");
    assert_eq!(h.count(|c| &c.deploy), 2);

    // A declined confirmation is the handler's to answer.
    let reply = h
        .call(
            "deploy",
            json!({"target": "staging"}),
            json!({"inputResponses": accept(false), "requestState": &token}),
        )
        .await;
    assert_eq!(text_of(&reply), "cancelled: deploy staging");
}

#[tokio::test]
async fn the_happy_path_over_two_rounds_on_a_prompt() {
    let h = Harness::new();
    let reply = h
        .send(
            Some("ann"),
            "prompts/get",
            json!({"name": "deploy", "arguments": {"target": "staging"}}),
        )
        .await;
    assert_eq!(
        reply["result"]["inputRequests"]["confirm"]["params"]["message"],
        "Confirm prompt staging?"
    );
    let token = state_of(&reply);
    let reply = h
        .send(
            Some("ann"),
            "prompts/get",
            json!({"name": "deploy", "arguments": {"target": "staging"},
                   "inputResponses": accept(true), "requestState": token}),
        )
        .await;
    assert!(reply.get("error").is_none(), "{reply}");
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(
        reply["result"]["messages"][0]["content"]["text"], "done: prompt staging",
        "{reply}"
    );
    assert_eq!(h.count(|c| &c.prompt), 2);
}

#[tokio::test]
async fn the_happy_path_over_two_rounds_on_a_resource() {
    let h = Harness::new();
    let reply = h
        .send(Some("ann"), "resources/read", json!({"uri": "approve"}))
        .await;
    assert_eq!(
        reply["result"]["inputRequests"]["confirm"]["params"]["message"],
        "Confirm resource?"
    );
    let token = state_of(&reply);
    let reply = h
        .send(
            Some("ann"),
            "resources/read",
            json!({"uri": "approve", "inputResponses": accept(true), "requestState": token}),
        )
        .await;
    assert!(reply.get("error").is_none(), "{reply}");
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    assert_eq!(
        reply["result"]["contents"][0]["text"], "done: resource",
        "{reply}"
    );
    assert_eq!(reply["result"]["contents"][0]["uri"], "approve");
    assert_eq!(h.count(|c| &c.resource), 2);
}

// =============================================================================================
// Without a signer
// =============================================================================================

#[tokio::test]
async fn without_a_signer_the_raw_state_reaches_the_handler() {
    let calls = Calls::default();
    let counters = Arc::clone(&calls.0);
    let server = Server::builder()
        .state(calls)
        .tool(raw)
        .tool(deploy)
        .without_request_state_signer()
        .build()
        .unwrap();
    let h = Harness {
        server,
        calls: counters,
        clock: Arc::new(AtomicU64::new(T0)),
    };
    for state in ["anything-goes", "mcp1.forged.0.AA.AA.AA-TAMPERED"] {
        let reply = h
            .call("raw", json!({}), json!({"requestState": state}))
            .await;
        let seen: Value = serde_json::from_str(&text_of(&reply)).unwrap();
        assert_eq!(
            seen,
            json!({"raw": state, "payload_is_none": true, "sign_is_none": true, "signer_is_none": true})
        );
    }
    let reply = h.call("raw", json!({}), json!({})).await;
    let seen: Value = serde_json::from_str(&text_of(&reply)).unwrap();
    assert_eq!(seen["raw"], Value::Null);
    assert_eq!(h.count(|c| &c.raw), 3);

    // Round<S> refuses to work without a signer.
    let reply = h
        .call("deploy", json!({"target": "staging"}), json!({}))
        .await;
    assert_eq!(
        reply["error"],
        json!({"code": -32603, "message": "Internal error"})
    );
    assert_eq!(h.count(|c| &c.deploy), 0);
}

#[tokio::test]
async fn with_a_signer_the_request_state_extractor_sees_the_verified_payload_only() {
    let h = Harness::new();
    // A forged state never reaches the RequestState extractor either.
    let reply = h
        .call("raw", json!({}), json!({"requestState": "anything-goes"}))
        .await;
    assert_refused(&reply);
    assert_eq!(h.count(|c| &c.raw), 0);
    let reply = h.call("raw", json!({}), json!({})).await;
    let seen: Value = serde_json::from_str(&text_of(&reply)).unwrap();
    assert_eq!(
        seen,
        json!({"raw": null, "payload_is_none": true, "sign_is_none": false, "signer_is_none": false})
    );
}
