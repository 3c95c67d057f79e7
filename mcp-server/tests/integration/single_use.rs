//! Single use, driven in-process through [`Server::handle_message`]: a state consumed once is
//! refused when sent again (the last round's, an earlier round's, two sends at once), a state
//! `Round` hands out when it asks again is fresh, a store that fails refuses the request
//! (fail closed), and [`MemoryStore`] on its own (eviction, capacity, expiry).
//!
//! Handlers count what ran in [`Ran`] (server state). The log is captured per thread
//! ([`capture_logs`]).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::single_use::{
    Consumption, MemoryStore, SingleUseStore, StateDigest, StoreError,
};
use typemcp_server::state::{Continuation, Reply, RequestState, RequestStateSigner, Round, Step};
use typemcp_server::typemcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome};
use typemcp_server::{ElicitForm, Server, State, prompt, tool};

use crate::support::confirm::Confirm;
use crate::support::log_capture::{capture_logs, clear_log, log_lines};
use crate::support::replies::{state_of, text_of};
use crate::support::wire::{forms, reply, request};

// ----- Handlers -----

/// How many times each handler step ran.
#[derive(Clone, Default)]
struct Ran(Arc<Mutex<BTreeMap<String, u32>>>);

impl Ran {
    fn bump(&self, what: &str) {
        *self.0.lock().unwrap().entry(what.to_owned()).or_default() += 1;
    }

    fn count(&self, what: &str) -> u32 {
        self.0.lock().unwrap().get(what).copied().unwrap_or(0)
    }
}

/// How many replicas.
#[derive(ElicitForm)]
struct Size {
    /// Replicas.
    #[form(minimum = 1, maximum = 9)]
    replicas: u8,
}

/// Where a deploy stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
    #[awaits(size: Size)]
    Sizing,
}

/// Deploys in two rounds (confirm, then size), counting each step that ran.
#[tool(destructive)]
async fn deploy(target: String, round: Round<Flow>, ran: State<Ran>) -> Step<Flow, String> {
    match round.resume() {
        None => {
            ran.0.bump("asked");
            round.ask(FlowAsking::Confirming {
                confirm: format!("Deploy to {target}?").into(),
            })
        }
        Some(FlowAnswered::Confirming { confirm }) => {
            ran.0.bump("confirmed");
            match confirm {
                Reply::Accepted(Confirm { ok: true }) => round.ask(FlowAsking::Sizing {
                    size: "How many?".into(),
                }),
                _ => Step::done("Deploy declined.".to_owned()),
            }
        }
        Some(FlowAnswered::Sizing { size }) => match size {
            Reply::Accepted(Size { replicas }) => {
                ran.0.bump("deployed");
                Step::done(format!("Deployed {target} with {replicas} replicas."))
            }
            _ => Step::done("Deploy cancelled.".to_owned()),
        },
    }
}

/// The first round of the flow as a prompt.
#[prompt(name = "plan")]
async fn plan(round: Round<Flow>, ran: State<Ran>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Plan it?".into(),
        }),
        Some(_) => {
            ran.0.bump("planned");
            Step::done("Planned.".to_owned())
        }
    }
}

/// A hand-written flow that (wrongly) hands back the state it was resumed with.
#[tool]
async fn echo_state(state: RequestState, ran: State<Ran>) -> Outcome<CallToolResult> {
    ran.0.bump("echo_state");
    let token = match state.raw() {
        Some(raw) => raw.to_owned(),
        None => state.sign(b"first").unwrap_or_default(),
    };
    Outcome::InputRequired(InputRequiredResult::new().with_state(token))
}

// ----- Stores -----

/// A store that always fails (Redis down, say).
struct Broken;

impl SingleUseStore for Broken {
    fn consume(
        &self,
        _: StateDigest,
        _: u64,
        _: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        Box::pin(async { Err(StoreError::unavailable("connection refused (test store)")) })
    }
}

/// A store that records what it was asked, then defers to a memory store.
#[derive(Default)]
struct Recording {
    asked: Mutex<Vec<(StateDigest, u64)>>,
    inner: MemoryStore,
}

impl SingleUseStore for Recording {
    fn consume(
        &self,
        key: StateDigest,
        minted_at: u64,
        until: u64,
    ) -> BoxFuture<'_, Result<Consumption, StoreError>> {
        self.asked.lock().unwrap().push((key, until));
        self.inner.consume(key, minted_at, until)
    }
}

// ----- Harness -----

/// The signing key of every server here.
const KEY: [u8; 32] = [7u8; 32];

/// The one message every refused state gets.
const INVALID_STATE: &str = "Invalid or expired \"requestState\"";

/// A server with every handler, whose signer is single use with `store`.
fn server_with(store: Arc<dyn SingleUseStore>, ran: &Ran) -> Server {
    capture_logs();
    let signer = RequestStateSigner::new(KEY).unwrap().single_use_arc(store);
    Server::builder()
        .state(ran.clone())
        .tool(deploy)
        .tool(echo_state)
        .prompt(plan)
        .request_state_signer(signer)
        .build()
        .unwrap()
}

/// Sends `method` with `params` (plus the protocol `_meta` of a client that answers forms).
async fn send(server: &Server, method: &str, params: Value) -> Value {
    reply(server, &request(method, params, forms())).await
}

/// `tools/call deploy {target: staging}`, with `answers` and `state` when given.
async fn deploy_call(server: &Server, answers: Option<Value>, state: Option<&str>) -> Value {
    let mut params = json!({"name": "deploy", "arguments": {"target": "staging"}});
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    send(server, "tools/call", params).await
}

/// Asserts `reply` is the refusal every bad state gets.
#[track_caller]
fn assert_refused(reply: &Value) {
    assert_eq!(
        reply["error"],
        json!({"code": -32602, "message": INVALID_STATE}),
        "{reply}"
    );
}

fn confirm_yes() -> Value {
    json!({"confirm": {"action": "accept", "content": {"ok": true}}})
}

fn size(replicas: Value) -> Value {
    json!({"size": {"action": "accept", "content": {"replicas": replicas}}})
}

/// Runs the whole flow: returns the first and second round's states and the final reply.
async fn finish_flow(server: &Server) -> (String, String, Value) {
    let first = state_of(&deploy_call(server, None, None).await);
    let second = state_of(&deploy_call(server, Some(confirm_yes()), Some(&first)).await);
    let done = deploy_call(server, Some(size(json!(3))), Some(&second)).await;
    (first, second, done)
}

/// Whether some log line has every one of `parts`.
fn logged(parts: &[&str]) -> bool {
    log_lines()
        .iter()
        .any(|line| parts.iter().all(|part| line.contains(part)))
}

// ----- Replays -----

#[tokio::test]
async fn replaying_the_last_rounds_state_is_refused_and_the_action_does_not_run_again() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let (_, last, done) = finish_flow(&server).await;
    assert_eq!(text_of(&done), "Deployed staging with 3 replicas.");
    assert_eq!(ran.count("deployed"), 1);
    clear_log();
    // The same request again, byte for byte: refused with the fixed message, not run.
    let replay = deploy_call(&server, Some(size(json!(3))), Some(&last)).await;
    assert_refused(&replay);
    assert_eq!(ran.count("deployed"), 1, "the destructive step ran again");
    // Other answers with the same state: refused all the same.
    let replay = deploy_call(&server, Some(size(json!(5))), Some(&last)).await;
    assert_refused(&replay);
    assert_eq!(ran.count("deployed"), 1);
    assert!(
        logged(&["refused a requestState", "replayed"]),
        "{:#?}",
        log_lines()
    );
    assert!(
        !log_lines().iter().any(|l| l.contains(&last)),
        "the token was logged"
    );
}

#[tokio::test]
async fn replaying_an_earlier_rounds_state_is_refused() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let first = state_of(&deploy_call(&server, None, None).await);
    let _second = state_of(&deploy_call(&server, Some(confirm_yes()), Some(&first)).await);
    assert_eq!(ran.count("confirmed"), 1);
    // Rewinding to round one while the flow is in round two: refused.
    let rewind = deploy_call(&server, Some(confirm_yes()), Some(&first)).await;
    assert_refused(&rewind);
    assert_eq!(ran.count("confirmed"), 1);
    // A finished flow cannot be rewound either.
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let (first, _, done) = finish_flow(&server).await;
    text_of(&done);
    let rewind = deploy_call(&server, Some(confirm_yes()), Some(&first)).await;
    assert_refused(&rewind);
    assert_eq!(ran.count("confirmed"), 1);
    assert!(logged(&["replayed"]), "{:#?}", log_lines());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sends_of_one_state_run_exactly_once() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let first = state_of(&deploy_call(&server, None, None).await);
    let last = state_of(&deploy_call(&server, Some(confirm_yes()), Some(&first)).await);
    let sends = (0..8).map(|_| {
        let (server, last) = (server.clone(), last.clone());
        tokio::spawn(async move { deploy_call(&server, Some(size(json!(2))), Some(&last)).await })
    });
    let mut done = 0;
    let mut refused = 0;
    for send in sends.collect::<Vec<_>>() {
        let reply = send.await.unwrap();
        if reply.get("error").is_some() {
            assert_refused(&reply);
            refused += 1;
        } else {
            assert_eq!(text_of(&reply), "Deployed staging with 2 replicas.");
            done += 1;
        }
    }
    assert_eq!((done, refused), (1, 7));
    assert_eq!(ran.count("deployed"), 1);
}

#[tokio::test]
async fn one_store_shared_by_two_servers_refuses_a_replay_on_either() {
    let store: Arc<dyn SingleUseStore> = Arc::new(MemoryStore::new());
    let ran = Ran::default();
    let (a, b) = (
        server_with(Arc::clone(&store), &ran),
        server_with(store, &ran),
    );
    let first = state_of(&deploy_call(&a, None, None).await);
    // Round two on the other instance: the state verifies there (same key) and is consumed.
    let second = state_of(&deploy_call(&b, Some(confirm_yes()), Some(&first)).await);
    assert_refused(&deploy_call(&a, Some(confirm_yes()), Some(&first)).await);
    assert_refused(&deploy_call(&b, Some(confirm_yes()), Some(&first)).await);
    let done = deploy_call(&a, Some(size(json!(1))), Some(&second)).await;
    assert_eq!(text_of(&done), "Deployed staging with 1 replicas.");
    assert_refused(&deploy_call(&b, Some(size(json!(1))), Some(&second)).await);
    assert_eq!(ran.count("deployed"), 1);
}

#[tokio::test]
async fn a_prompt_state_is_consumed_too() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let first = send(&server, "prompts/get", json!({"name": "plan"})).await;
    let token = state_of(&first);
    let params = json!({"name": "plan", "inputResponses": confirm_yes(), "requestState": token});
    let done = send(&server, "prompts/get", params.clone()).await;
    assert!(done.get("error").is_none(), "{done}");
    assert_refused(&send(&server, "prompts/get", params).await);
    assert_eq!(ran.count("planned"), 1);
}

// ----- Asking again -----

#[tokio::test]
async fn a_round_asking_again_hands_out_a_new_state_that_is_accepted() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let first = state_of(&deploy_call(&server, None, None).await);
    let second = state_of(&deploy_call(&server, Some(confirm_yes()), Some(&first)).await);
    // A malformed answer (out of range): the same question again, under a new state.
    let again = deploy_call(&server, Some(size(json!(42))), Some(&second)).await;
    let renewed = state_of(&again);
    assert_ne!(renewed, second, "the consumed state was handed out again");
    assert!(
        again["result"]["inputRequests"]["size"].is_object(),
        "{again}"
    );
    // The consumed one stays refused; the new one is accepted, once.
    assert_refused(&deploy_call(&server, Some(size(json!(4))), Some(&second)).await);
    let done = deploy_call(&server, Some(size(json!(4))), Some(&renewed)).await;
    assert_eq!(text_of(&done), "Deployed staging with 4 replicas.");
    assert_refused(&deploy_call(&server, Some(size(json!(4))), Some(&renewed)).await);
    assert_eq!(ran.count("deployed"), 1);
}

#[tokio::test]
async fn a_handler_handing_back_the_consumed_state_is_an_internal_error() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::new()), &ran);
    let call = |state: Option<String>| {
        let mut params = json!({"name": "echo_state", "arguments": {}});
        if let Some(state) = state {
            params["requestState"] = json!(state);
        }
        send(&server, "tools/call", params)
    };
    // The first call mints a state: checking it on the way out does not consume it.
    let token = state_of(&call(None).await);
    clear_log();
    let reply = call(Some(token)).await;
    assert_eq!(
        reply["error"],
        json!({"code": -32603, "message": "Internal error"}),
        "{reply}"
    );
    assert_eq!(ran.count("echo_state"), 2);
    assert!(
        logged(&["ERROR", "returned the requestState this request consumed"]),
        "{:#?}",
        log_lines()
    );
}

// ----- Failing stores -----

#[tokio::test]
async fn a_failing_store_fails_closed_and_says_so_in_the_log() {
    let ran = Ran::default();
    let server = server_with(Arc::new(Broken), &ran);
    // A first call has no state to consume: it runs.
    let first = state_of(&deploy_call(&server, None, None).await);
    clear_log();
    let reply = deploy_call(&server, Some(confirm_yes()), Some(&first)).await;
    assert_eq!(
        reply["error"],
        json!({"code": -32603, "message": "Internal error"}),
        "{reply}"
    );
    assert_eq!(ran.count("confirmed"), 0, "the handler ran");
    assert!(
        logged(&[
            "ERROR",
            "single-use store failed",
            "connection refused (test store)"
        ]),
        "{:#?}",
        log_lines()
    );
    assert!(
        !log_lines().iter().any(|l| l.contains(&first)),
        "the token was logged"
    );
}

#[tokio::test]
async fn a_full_memory_store_fails_closed_without_forgetting_live_states() {
    let ran = Ran::default();
    let server = server_with(Arc::new(MemoryStore::with_capacity(1)), &ran);
    let first = state_of(&deploy_call(&server, None, None).await);
    let second = state_of(&deploy_call(&server, Some(confirm_yes()), Some(&first)).await);
    clear_log();
    // The one slot holds `first`, which could still be replayed: `second` cannot be recorded.
    let reply = deploy_call(&server, Some(size(json!(2))), Some(&second)).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    assert_eq!(ran.count("deployed"), 0);
    assert!(logged(&["ERROR", "full"]), "{:#?}", log_lines());
    // And `first` is still remembered.
    assert_refused(&deploy_call(&server, Some(confirm_yes()), Some(&first)).await);
}

#[tokio::test]
async fn a_state_is_remembered_through_its_expiry_plus_the_clock_skew() {
    let ran = Ran::default();
    let store = Arc::new(Recording::default());
    let server = server_with(Arc::clone(&store) as Arc<dyn SingleUseStore>, &ran);
    let before = now();
    let first = state_of(&deploy_call(&server, None, None).await);
    state_of(&deploy_call(&server, Some(confirm_yes()), Some(&first)).await);
    let asked = store.asked.lock().unwrap().clone();
    assert_eq!(
        asked.len(),
        1,
        "only the echoed state is consumed: {asked:?}"
    );
    let (key, until) = asked[0];
    // The digest of the token, never the token.
    assert_eq!(key, sha256(&first));
    // Default TTL ten minutes, default skew five seconds.
    let after = now();
    assert!(
        (before + 600 + 5..=after + 600 + 5).contains(&until),
        "{until} for a state minted at {before}..{after}"
    );
}

// ----- MemoryStore -----

/// A clock the test moves.
fn test_clock(start: u64) -> (Arc<AtomicU64>, MemoryStore) {
    let now = Arc::new(AtomicU64::new(start));
    let clock = Arc::clone(&now);
    let store = MemoryStore::new().with_clock(Arc::new(move || clock.load(Ordering::SeqCst)));
    (now, store)
}

#[tokio::test]
async fn memory_store_remembers_a_key_through_until_and_forgets_it_after() {
    let (now, store) = test_clock(1_000);
    assert_eq!(
        store.consume([1; 32], store.epoch(), 1_010).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([1; 32], store.epoch(), 1_010).await.unwrap(),
        Consumption::AlreadyUsed
    );
    now.store(1_010, Ordering::SeqCst);
    assert_eq!(
        store.consume([1; 32], store.epoch(), 1_500).await.unwrap(),
        Consumption::AlreadyUsed,
        "forgotten during its last second"
    );
    now.store(1_011, Ordering::SeqCst);
    assert_eq!(
        store.consume([1; 32], store.epoch(), 1_500).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([1; 32], store.epoch(), 1_500).await.unwrap(),
        Consumption::AlreadyUsed
    );
}

#[tokio::test]
async fn memory_store_evicts_expired_entries() {
    let (now, store) = test_clock(100);
    for i in 0..1_000u32 {
        let mut key = [0; 32];
        key[..4].copy_from_slice(&i.to_be_bytes());
        // Half expire at 110, half at 200.
        let until = if i % 2 == 0 { 110 } else { 200 };
        assert_eq!(
            store.consume(key, store.epoch(), until).await.unwrap(),
            Consumption::Fresh
        );
    }
    assert_eq!(store.len(), 1_000);
    now.store(111, Ordering::SeqCst);
    assert_eq!(
        store.consume([9; 32], store.epoch(), 300).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(store.len(), 501, "the 500 expired entries are gone");
    now.store(201, Ordering::SeqCst);
    assert_eq!(
        store.consume([8; 32], store.epoch(), 300).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(store.len(), 2);
}

#[tokio::test]
async fn memory_store_full_of_live_entries_fails_closed() {
    let now = Arc::new(AtomicU64::new(100));
    let clock = Arc::clone(&now);
    let store =
        MemoryStore::with_capacity(2).with_clock(Arc::new(move || clock.load(Ordering::SeqCst)));
    assert_eq!(store.capacity(), 2);
    assert_eq!(
        store.consume([1; 32], store.epoch(), 150).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([2; 32], store.epoch(), 120).await.unwrap(),
        Consumption::Fresh
    );
    let full = store
        .consume([3; 32], store.epoch(), 150)
        .await
        .unwrap_err();
    assert!(matches!(full, StoreError::Full { capacity: 2 }), "{full:?}");
    assert!(full.to_string().contains("full"), "{full}");
    // Nothing live was forgotten: both are still refused.
    for key in [[1; 32], [2; 32]] {
        assert_eq!(
            store.consume(key, store.epoch(), 150).await.unwrap(),
            Consumption::AlreadyUsed
        );
    }
    // Once one expires, its slot is free again.
    now.store(121, Ordering::SeqCst);
    assert_eq!(
        store.consume([3; 32], store.epoch(), 150).await.unwrap(),
        Consumption::Fresh
    );
    assert_eq!(
        store.consume([1; 32], store.epoch(), 150).await.unwrap(),
        Consumption::AlreadyUsed
    );
}

#[test]
fn memory_store_is_atomic_across_threads() {
    let store = Arc::new(MemoryStore::new());
    let fresh = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let store = Arc::clone(&store);
                scope.spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .build()
                        .unwrap();
                    (0..200u8)
                        .filter(|i| {
                            let reply =
                                runtime.block_on(store.consume([*i; 32], store.epoch(), u64::MAX));
                            reply.unwrap() == Consumption::Fresh
                        })
                        .count()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum::<usize>()
    });
    assert_eq!(fresh, 200, "each key is fresh exactly once");
}

// ----- Helpers -----

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// SHA-256, independently of the SDK (the test's own copy, from `sha2`).
fn sha256(text: &str) -> StateDigest {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).into()
}
