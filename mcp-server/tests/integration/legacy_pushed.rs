//! Pushed fulfilment: the same multi-round handlers serve a client of a 2025-11-25 session,
//! which cannot retry with `inputResponses`. The server pushes each input request to it as a
//! real request (`elicitation/create`, spelled for the session's revision), the test's client
//! side answers, and the handler runs again with the answers and its state, verified every
//! round (single use included). Driven over stdio (`serve_io` on in-memory pipes) and over
//! Streamable HTTP (the endpoint as a tower `Service`, the POST's SSE stream read as it comes).
//!
//! Also: prompts, URL questions (`elicitationId`, `notifications/elicitation/complete`), the
//! deprecated kinds (`roots/list`, `sampling/createMessage`), the 2025-06-18 spelling of forms,
//! decline and cancel reaching the handler, the round limit, the answer timeout, a client
//! without the elicitation capability, a state offered by the client, cancellation of the
//! original request, stray responses, a JSON-only HTTP client, and `ping` from the server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::stdio_pipe::StdioPipe as Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::confirm::Confirm;
use axum::Router;
use axum::body::Body;
use futures_util::future::BoxFuture;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt;
use typemcp_server::state::single_use::{
    Consumption, MemoryStore, SingleUseStore, StateDigest, StoreError,
};
use typemcp_server::state::{
    Continuation, OneOf, RawInputResponses, Reply, RequestState, RequestStateSigner, Round, Step,
    UrlVisit,
};
use typemcp_server::typemcp_core::protocol::{
    CallToolResult, CreateMessageParams, InputRequest, InputRequiredResult, Outcome,
    SamplingMessage,
};
use typemcp_server::{RequestContext, Server, State, prompt, tool};

// ----- Handlers -----

/// How many times each handler ran.
#[derive(Clone, Default)]
struct Calls(Arc<Mutex<Vec<&'static str>>>);

impl Calls {
    fn bump(&self, name: &'static str) {
        self.0.lock().unwrap().push(name);
    }

    fn of(&self, name: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|n| **n == name)
            .count()
    }
}

/// Two questions, one per round.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(region: OneOf<String>)]
    Placing,
}

/// Deploys after a confirmation and a region: the two-question flow.
#[tool]
async fn deploy(target: String, round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.bump("deploy");
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: format!("Deploy {target}?").into(),
        }),
        Some(FlowAnswered::Confirming { confirm }) => match confirm {
            Reply::Accepted(Confirm { ok: true }) => round.ask(FlowAsking::Placing {
                region: OneOf::titled(
                    "Where?",
                    [("eu".to_owned(), "Europe"), ("us".to_owned(), "US")],
                ),
            }),
            Reply::Accepted(Confirm { ok: false }) => Step::done("not confirmed".to_owned()),
            Reply::Declined => Step::done("declined".to_owned()),
            Reply::Cancelled => Step::done("cancelled".to_owned()),
        },
        Some(FlowAnswered::Placing {
            region: Reply::Accepted(OneOf(region)),
        }) => Step::done(format!("deployed {target} to {region}")),
        Some(FlowAnswered::Placing { .. }) => Step::done("no region".to_owned()),
    }
}

/// Never satisfied: asks again whatever the answer.
#[tool]
async fn endless(round: Round<Flow>, calls: State<Calls>) -> Step<Flow, String> {
    calls.0.bump("endless");
    round.ask(FlowAsking::Confirming {
        confirm: format!("Round {}?", round.round() + 1).into(),
    })
}

/// A hand-written flow that (wrongly) hands back the state it was resumed with.
#[tool]
async fn echo_state(state: RequestState, calls: State<Calls>) -> Outcome<CallToolResult> {
    calls.0.bump("echo_state");
    let token = match state.raw() {
        Some(raw) => raw.to_owned(),
        None => state.sign(b"first").unwrap_or_default(),
    };
    Outcome::InputRequired(InputRequiredResult::new().with_state(token))
}

/// One URL visit.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Visit {
    #[awaits(approval: UrlVisit)]
    Approving,
}

/// Sends the user to approve a change.
#[tool]
async fn approve(round: Round<Visit>) -> Step<Visit, String> {
    match round.resume() {
        None => round.ask(VisitAsking::Approving {
            approval: UrlVisit::prompt("Approve it.", "https://changes.example.com/c/1"),
        }),
        Some(VisitAnswered::Approving {
            approval: Reply::Accepted(UrlVisit),
        }) => Step::done("approved".to_owned()),
        Some(_) => Step::done("not approved".to_owned()),
    }
}

/// The deploy's first question, as a prompt.
#[prompt(name = "plan")]
async fn plan(round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Plan it?".into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok }),
        }) => Step::done(format!("Planned: {ok}.")),
        Some(_) => Step::done("Not planned.".to_owned()),
    }
}

/// Asks for the client's roots and a sample of its model (the deprecated kinds), by hand.
#[tool]
async fn context(raw: RawInputResponses) -> Outcome<CallToolResult> {
    let given = raw.unverified();
    if given.is_empty() {
        let question = SamplingMessage::user_text("Capital of France?");
        let sample = InputRequest::Sampling(CreateMessageParams::new(vec![question], 50));
        return Outcome::InputRequired(
            InputRequiredResult::new()
                .with_request("roots", InputRequest::list_roots())
                .with_request("sample", sample),
        );
    }
    Outcome::Complete(CallToolResult::text(format!(
        "{} / {}",
        given["roots"]["roots"][0]["uri"].as_str().unwrap_or("?"),
        given["sample"]["content"]["text"].as_str().unwrap_or("?"),
    )))
}

/// Pings the client from the server side.
#[tool]
async fn pinger(ctx: RequestContext) -> String {
    match ctx.ping_client().await {
        Ok(()) => "the client answered".to_owned(),
        Err(error) => format!("error {}: {}", error.code, error.message),
    }
}

// ----- Harness -----

/// A single-use store that counts what it consumed (in memory, or in front of Redis).
struct Counting {
    consumed: AtomicUsize,
    inner: Arc<dyn SingleUseStore>,
}

impl Default for Counting {
    fn default() -> Self {
        Self::over(Arc::new(MemoryStore::default()))
    }
}

impl Counting {
    fn over(inner: Arc<dyn SingleUseStore>) -> Self {
        Self {
            consumed: AtomicUsize::new(0),
            inner,
        }
    }
}

impl SingleUseStore for Counting {
    fn consume(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        self.consumed.fetch_add(1, Ordering::SeqCst);
        self.inner.consume(key, minted_at, until)
    }
}

struct App {
    server: Server,
    calls: Calls,
    store: Arc<Counting>,
}

fn app_with(
    configure: impl FnOnce(typemcp_server::ServerBuilder) -> typemcp_server::ServerBuilder,
) -> App {
    app_over(Counting::default(), configure)
}

fn app_over(
    store: Counting,
    configure: impl FnOnce(typemcp_server::ServerBuilder) -> typemcp_server::ServerBuilder,
) -> App {
    let calls = Calls::default();
    let store = Arc::new(store);
    let signer = RequestStateSigner::new([5u8; 32])
        .unwrap()
        .single_use_arc(Arc::clone(&store) as Arc<dyn SingleUseStore>);
    let builder = Server::builder()
        .name("pushed-test")
        .version("1.0.0")
        .state(calls.clone())
        .tool(deploy)
        .tool(endless)
        .tool(echo_state)
        .tool(pinger)
        .tool(context)
        .tool(approve)
        .prompt(plan)
        .request_state_signer(signer);
    App {
        server: configure(builder).build().unwrap(),
        calls,
        store,
    }
}

fn app() -> App {
    app_with(|b| b)
}

fn initialize(version: &str, capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": {"name": "old-client", "version": "0.9"}
    }})
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

fn answer(request: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}

/// Asserts `message` is a pushed `elicitation/create` request with a server-minted id.
fn assert_elicitation(message: &Value) {
    assert_eq!(message["method"], "elicitation/create", "{message}");
    assert!(
        message["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("mcp-server-")),
        "{message}"
    );
}

// ----- stdio -----

/// A 2025-11-25 session over stdio pipes: `initialize` at `version` with `capabilities`,
/// then `notifications/initialized`.
async fn open_stdio(server: &Server, version: &str, capabilities: Value) -> Stdio {
    let mut io = Stdio::start(server.clone());
    let opened = io.call(initialize(version, capabilities)).await;
    assert_eq!(opened["result"]["protocolVersion"], version, "{opened}");
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    io
}

#[tokio::test]
async fn a_stdio_budget_of_one_still_serves_three_pushed_flows_at_once() {
    // Each flow's request gives its one place back while it waits for the client's answer,
    // so the reader goes on reading: the other requests and the answers.
    let app = app_with(|b| b.max_in_flight(1));
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    let mut asked = Vec::new();
    for (id, target) in [(1, "alpha"), (2, "beta"), (3, "gamma")] {
        let first = io.call(call(id, "deploy", json!({"target": target}))).await;
        assert_elicitation(&first);
        assert_eq!(first["params"]["message"], format!("Deploy {target}?"));
        asked.push(first);
    }
    // Answered in reverse order; each flow goes on to its second question.
    let mut second = Vec::new();
    for first in asked.iter().rev() {
        let next = io
            .call(answer(
                first,
                json!({"action": "accept", "content": {"ok": true}}),
            ))
            .await;
        assert_elicitation(&next);
        second.push(next);
    }
    let mut done = Vec::new();
    for (next, region) in second.iter().zip(["eu", "us", "eu"]) {
        let reply = io
            .call(answer(
                next,
                json!({"action": "accept", "content": {"region": region}}),
            ))
            .await;
        done.push((reply["id"].clone(), text(&reply).to_owned()));
    }
    done.sort_by_key(|(id, _)| id.as_u64());
    assert_eq!(
        done,
        [
            (json!(1), "deployed alpha to eu".to_owned()),
            (json!(2), "deployed beta to us".to_owned()),
            (json!(3), "deployed gamma to eu".to_owned()),
        ]
    );
}

#[tokio::test]
async fn stdio_completes_the_two_question_flow_through_pushed_elicitation() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    let first = io.call(call(1, "deploy", json!({"target": "prod"}))).await;
    assert_elicitation(&first);
    assert_eq!(first["params"]["message"], "Deploy prod?");
    assert_eq!(first["params"]["mode"], "form");
    assert_eq!(
        first["params"]["requestedSchema"]["properties"]["ok"]["type"],
        "boolean"
    );
    let second = io
        .call(answer(
            &first,
            json!({"action": "accept", "content": {"ok": true}}),
        ))
        .await;
    assert_elicitation(&second);
    assert_ne!(first["id"], second["id"]);
    // 2025-11-25 takes titled choices as `oneOf`.
    assert_eq!(
        second["params"]["requestedSchema"]["properties"]["region"]["oneOf"][0],
        json!({"const": "eu", "title": "Europe"})
    );
    let done = io
        .call(answer(
            &second,
            json!({"action": "accept", "content": {"region": "us"}}),
        ))
        .await;
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(text(&done), "deployed prod to us");
    // Legacy shape, and the state never went to the client.
    assert!(done["result"].get("resultType").is_none(), "{done}");
    for message in [&first, &second, &done] {
        assert!(!message.to_string().contains("requestState"), "{message}");
    }
    assert_eq!(app.calls.of("deploy"), 3);
    // Rounds 2 and 3 each verified and consumed the state of the round before.
    assert_eq!(app.store.consumed.load(Ordering::SeqCst), 2);
}

/// The same three-round flow with the single-use states in Redis: each round after the
/// first makes one single-use check (the state of the round before, handed over in memory),
/// and Redis holds one consumed key per check.
#[cfg(feature = "redis")]
#[tokio::test]
async fn over_redis_a_three_round_pushed_flow_makes_one_single_use_check_per_round() {
    use typemcp_server::state::single_use::RedisStore;
    let Some(redis) = crate::support::redis::RedisServer::start() else {
        return;
    };
    let prefix = "pushed-count:";
    let store = RedisStore::connect(&redis.url())
        .await
        .unwrap()
        .with_key_prefix(prefix)
        .await
        .unwrap();
    let app = app_over(Counting::over(Arc::new(store)), |b| b);
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    let first = io.call(call(1, "deploy", json!({"target": "prod"}))).await;
    let second = io
        .call(answer(
            &first,
            json!({"action": "accept", "content": {"ok": true}}),
        ))
        .await;
    let done = io
        .call(answer(
            &second,
            json!({"action": "accept", "content": {"region": "us"}}),
        ))
        .await;
    assert_eq!(text(&done), "deployed prod to us", "{done}");
    assert_eq!(app.calls.of("deploy"), 3);
    assert_eq!(app.store.consumed.load(Ordering::SeqCst), 2);
    let mut raw = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut raw)
        .await
        .unwrap();
    let consumed = keys
        .iter()
        .filter(|k| !k.ends_with(RedisStore::EPOCH_KEY_SUFFIX))
        .count();
    assert_eq!(consumed, 2, "{keys:?}");
}

#[tokio::test]
async fn stdio_spells_forms_for_a_2025_06_18_session() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-06-18", json!({"elicitation": {}})).await;
    let first = io.call(call(1, "deploy", json!({"target": "qa"}))).await;
    assert_elicitation(&first);
    assert!(first["params"].get("mode").is_none(), "{first}");
    let second = io
        .call(answer(
            &first,
            json!({"action": "accept", "content": {"ok": true}}),
        ))
        .await;
    assert_eq!(second["params"]["message"], "Where?");
    assert_eq!(
        second["params"]["requestedSchema"]["properties"]["region"],
        json!({"type": "string", "enum": ["eu", "us"], "enumNames": ["Europe", "US"]})
    );
    let done = io
        .call(answer(
            &second,
            json!({"action": "accept", "content": {"region": "eu"}}),
        ))
        .await;
    assert_eq!(text(&done), "deployed qa to eu");
}

#[tokio::test]
async fn prompts_and_the_deprecated_kinds_are_pushed_too() {
    let app = app();
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let mut io = open_stdio(&app.server, "2025-11-25", caps).await;
    let asked = io
        .call(json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                     "params": {"name": "plan"}}))
        .await;
    assert_elicitation(&asked);
    assert_eq!(asked["params"]["message"], "Plan it?");
    let done = io
        .call(answer(
            &asked,
            json!({"action": "accept", "content": {"ok": true}}),
        ))
        .await;
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(
        done["result"]["messages"][0]["content"]["text"],
        "Planned: true."
    );
    assert!(done["result"].get("resultType").is_none(), "{done}");

    let roots = io.call(call(2, "context", json!({}))).await;
    assert_eq!(roots["method"], "roots/list", "{roots}");
    assert_eq!(roots["params"], json!({}), "{roots}");
    let sample = io
        .call(answer(
            &roots,
            json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
        ))
        .await;
    assert_eq!(sample["method"], "sampling/createMessage", "{sample}");
    assert_eq!(sample["params"]["maxTokens"], 50, "{sample}");
    let done = io
        .call(answer(
            &sample,
            json!({"role": "assistant", "model": "m",
                                      "content": {"type": "text", "text": "Paris"}}),
        ))
        .await;
    assert_eq!(text(&done), "file:///work / Paris");
}

#[tokio::test]
async fn url_questions_carry_an_elicitation_id_and_are_reported_complete() {
    let app = app();
    let caps = json!({"elicitation": {"url": {}}});
    let mut io = open_stdio(&app.server, "2025-11-25", caps).await;
    let asked = io.call(call(1, "approve", json!({}))).await;
    assert_elicitation(&asked);
    assert_eq!(asked["params"]["mode"], "url", "{asked}");
    assert_eq!(asked["params"]["url"], "https://changes.example.com/c/1");
    let elicitation_id = asked["params"]["elicitationId"].clone();
    assert!(elicitation_id.is_string(), "{asked}");
    let complete = io.call(answer(&asked, json!({"action": "accept"}))).await;
    assert_eq!(
        complete,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
               "params": {"elicitationId": elicitation_id}})
    );
    let done = io.next().await;
    assert_eq!(text(&done), "approved");
}

#[tokio::test]
async fn decline_and_cancel_reach_the_handler() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    for (id, action) in [(1, "decline"), (2, "cancel")] {
        let asked = io.call(call(id, "deploy", json!({"target": "prod"}))).await;
        assert_elicitation(&asked);
        let done = io.call(answer(&asked, json!({"action": action}))).await;
        assert_eq!(done["id"], id, "{done}");
        let expected = if action == "decline" {
            "declined"
        } else {
            "cancelled"
        };
        assert_eq!(text(&done), expected);
    }
    assert_eq!(app.calls.of("deploy"), 4);
}

#[tokio::test]
async fn the_round_limit_stops_a_handler_that_never_finishes() {
    let app = app_with(|b| b.pushed_rounds(3));
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    io.send(&call(1, "endless", json!({}))).await;
    for _ in 0..2 {
        let asked = io.next().await;
        assert_elicitation(&asked);
        io.send(&answer(
            &asked,
            json!({"action": "accept", "content": {"ok": true}}),
        ))
        .await;
    }
    let stopped = io.next().await;
    assert_eq!(stopped["id"], 1, "{stopped}");
    assert_eq!(stopped["error"]["code"], -32603, "{stopped}");
    let message = stopped["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("after 3 rounds"), "{message}");
    assert_eq!(app.calls.of("endless"), 3);
}

#[tokio::test]
async fn an_unanswered_pushed_request_times_out() {
    let app = app_with(|b| b.pushed_answer_timeout(Duration::from_millis(100)));
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    let asked = io.call(call(1, "deploy", json!({"target": "prod"}))).await;
    assert_elicitation(&asked);
    let failed = io.next().await;
    assert_eq!(failed["id"], 1, "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("did not answer") && message.contains("elicitation/create"),
        "{message}"
    );
    // The late answer is dropped, and the server keeps serving.
    io.send(&answer(
        &asked,
        json!({"action": "accept", "content": {"ok": true}}),
    ))
    .await;
    io.silent().await;
    assert_eq!(app.calls.of("deploy"), 1);
    let pong = io
        .call(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[tokio::test]
async fn a_client_without_elicitation_gets_the_capability_error() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"sampling": {}})).await;
    let refused = io.call(call(1, "deploy", json!({"target": "prod"}))).await;
    assert_eq!(refused["id"], 1, "{refused}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}}),
        "{refused}"
    );
}

#[tokio::test]
async fn states_are_verified_every_round_even_though_the_client_never_sees_them() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    // A state offered by the client itself is verified like any other, and refused.
    let mut forged = call(1, "deploy", json!({"target": "prod"}));
    forged["params"]["requestState"] = json!("forged-state");
    let refused = io.call(forged).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(app.calls.of("deploy"), 0);
    // A flow handing back the state it was resumed with is stopped by the check of the
    // outgoing state on its second round, as on the 2026 wire.
    let stopped = io.call(call(2, "echo_state", json!({}))).await;
    assert_eq!(stopped["id"], 2, "{stopped}");
    assert_eq!(stopped["error"]["code"], -32603, "{stopped}");
    assert_eq!(app.calls.of("echo_state"), 2);
    // The state-only round in between verified (and consumed) the first state.
    assert_eq!(app.store.consumed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn cancelling_the_original_request_abandons_the_pushed_ones() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    let asked = io.call(call(7, "deploy", json!({"target": "prod"}))).await;
    assert_elicitation(&asked);
    io.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": 7, "reason": "user gave up"}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    // Answering now reaches nobody; nothing more is written for request 7.
    io.send(&answer(
        &asked,
        json!({"action": "accept", "content": {"ok": true}}),
    ))
    .await;
    io.silent().await;
    assert_eq!(app.calls.of("deploy"), 1);
    let pong = io
        .call(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}))
        .await;
    assert_eq!(pong["id"], 8, "{pong}");
}

#[tokio::test]
async fn end_of_input_ends_the_waits_for_answers() {
    let app = app();
    let (mut input, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, output) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(app.server.clone().serve_io(server_in, server_out));
    let mut output = BufReader::new(output).lines();
    let mut send = async |message: Value| {
        let mut line = message.to_string();
        line.push('\n');
        input.write_all(line.as_bytes()).await.unwrap();
    };
    send(initialize("2025-11-25", json!({"elicitation": {}}))).await;
    send(call(1, "deploy", json!({"target": "prod"}))).await;
    let opened = output.next_line().await.unwrap().unwrap_or_default();
    assert!(opened.contains("protocolVersion"), "{opened}");
    let asked = output.next_line().await.unwrap().unwrap_or_default();
    assert!(asked.contains("elicitation/create"), "{asked}");
    drop(input);
    let ended = tokio::time::timeout(Duration::from_secs(2), serving).await;
    assert!(
        ended.is_ok(),
        "serve_io still waits for an answer after end of input"
    );
    let failed = output.next_line().await.unwrap().unwrap_or_default();
    assert!(failed.contains("session ended"), "{failed}");
}

#[tokio::test]
async fn stray_responses_are_dropped_and_the_server_keeps_serving() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({"elicitation": {}})).await;
    io.send(&json!({"jsonrpc": "2.0", "id": "mcp-server-999", "result": {}}))
        .await;
    io.send(&json!({"jsonrpc": "2.0", "id": 42, "error": {"code": -1, "message": "?"}}))
        .await;
    io.silent().await;
    let asked = io.call(call(1, "deploy", json!({"target": "prod"}))).await;
    assert_elicitation(&asked);
    let done = io.call(answer(&asked, json!({"action": "decline"}))).await;
    assert_eq!(text(&done), "declined");
}

#[tokio::test]
async fn stdio_the_server_pings_the_client() {
    let app = app();
    let mut io = open_stdio(&app.server, "2025-11-25", json!({})).await;
    let ping = io.call(call(1, "pinger", json!({}))).await;
    assert_eq!(ping["method"], "ping", "{ping}");
    let done = io.call(answer(&ping, json!({}))).await;
    assert_eq!(text(&done), "the client answered");
    // A modern request has no session to ping on.
    let modern = io
        .call(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "pinger", "_meta": crate::support::wire::meta(json!({}))}}),
        )
        .await;
    assert!(text(&modern).starts_with("error -32600"), "{modern}");
}

// ----- HTTP -----

fn post(session: Option<&str>, accept: &str, body: &Value) -> Request<Body> {
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("http://localhost/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", accept);
    if let Some(session) = session {
        builder = builder
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    builder.body(Body::from(body.to_string())).unwrap()
}

const BOTH: &str = "application/json, text/event-stream";

/// The events of one SSE response, read as they come.
struct Events {
    body: Body,
    buffer: String,
}

impl Events {
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                // No data (a keep-alive comment), or empty data (the priming event).
                if data.concat().is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&data.join("\n")).unwrap());
            }
            let frame = tokio::time::timeout(Duration::from_secs(5), self.body.frame())
                .await
                .expect("no event within 5 s")?
                .unwrap();
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }
}

struct Http {
    app: Router,
    session: String,
}

impl Http {
    async fn start(server: &Server, capabilities: Value) -> Self {
        let app = server.http_service();
        let opened = app
            .clone()
            .oneshot(post(None, BOTH, &initialize("2025-11-25", capabilities)))
            .await
            .unwrap();
        assert_eq!(opened.status(), StatusCode::OK);
        let session = opened
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_owned();
        let http = Self { app, session };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(http.post(&initialized).await.0, StatusCode::ACCEPTED);
        http
    }

    /// POSTs on the session; the status and the whole body.
    async fn post(&self, body: &Value) -> (StatusCode, String) {
        let response = self
            .app
            .clone()
            .oneshot(post(Some(&self.session), BOTH, body))
            .await
            .unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// POSTs a request on the session whose answer is an SSE stream.
    async fn stream(&self, body: &Value) -> Events {
        let response = self
            .app
            .clone()
            .oneshot(post(Some(&self.session), BOTH, body))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Events {
            body: response.into_body(),
            buffer: String::new(),
        }
    }
}

#[tokio::test]
async fn http_completes_the_two_question_flow_on_the_posts_stream() {
    let app = app();
    let http = Http::start(&app.server, json!({"elicitation": {}})).await;
    let mut events = http
        .stream(&call(1, "deploy", json!({"target": "prod"})))
        .await;
    let first = events.next().await.expect("a pushed request");
    assert_elicitation(&first);
    let (status, body) = http
        .post(&answer(
            &first,
            json!({"action": "accept", "content": {"ok": true}}),
        ))
        .await;
    assert_eq!((status, body.as_str()), (StatusCode::ACCEPTED, ""));
    let second = events.next().await.expect("a second pushed request");
    assert_elicitation(&second);
    // A stray answer on the session is accepted and dropped.
    let stray = json!({"jsonrpc": "2.0", "id": "mcp-server-999", "result": {}});
    assert_eq!(http.post(&stray).await.0, StatusCode::ACCEPTED);
    http.post(&answer(
        &second,
        json!({"action": "accept", "content": {"region": "eu"}}),
    ))
    .await;
    let done = events.next().await.expect("the response");
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(text(&done), "deployed prod to eu");
    assert!(done["result"].get("resultType").is_none(), "{done}");
    assert!(
        events.next().await.is_none(),
        "the stream ends after the response"
    );
    assert_eq!(app.calls.of("deploy"), 3);
}

#[tokio::test]
async fn http_cancelling_the_original_request_stops_the_loop() {
    let app = app();
    let http = Http::start(&app.server, json!({"elicitation": {}})).await;
    let mut events = http
        .stream(&call(5, "deploy", json!({"target": "prod"})))
        .await;
    let asked = events.next().await.expect("a pushed request");
    assert_elicitation(&asked);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 5}});
    assert_eq!(http.post(&cancel).await.0, StatusCode::ACCEPTED);
    // The stream ends without a response; the handler is not run again.
    assert_eq!(events.next().await, None);
    http.post(&answer(
        &asked,
        json!({"action": "accept", "content": {"ok": true}}),
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(app.calls.of("deploy"), 1);
}

#[tokio::test]
async fn http_a_json_only_client_cannot_be_asked() {
    let app = app();
    let http = Http::start(&app.server, json!({"elicitation": {}})).await;
    let response = http
        .app
        .clone()
        .oneshot(post(
            Some(&http.session),
            "application/json",
            &call(1, "deploy", json!({"target": "prod"})),
        ))
        .await
        .unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("text/event-stream")),
        "{body}"
    );
}

#[tokio::test]
async fn http_the_server_pings_the_client() {
    let app = app();
    let http = Http::start(&app.server, json!({})).await;
    let mut events = http.stream(&call(1, "pinger", json!({}))).await;
    let ping = events.next().await.expect("a ping");
    assert_eq!(ping["method"], "ping", "{ping}");
    http.post(&answer(&ping, json!({}))).await;
    let done = events.next().await.expect("the response");
    assert_eq!(text(&done), "the client answered");
}
