//! The `deploy` example scaled out, as a deployment runs it: several instances over HTTP,
//! each a child process on its own port, sharing one key ring (`MCP_REQUEST_STATE_KEYS`)
//! and, with `--redis`, one real `redis-server` (started by each test on a free port, see
//! `crate::common::redis`) for single use.
//!
//! - **Across instances**: a flow started on instance A continues on instance B and
//!   completes; replaying any round's state to either instance is refused with the fixed
//!   `-32602`, and the deploy ran once. An instance outside the shared store would have run
//!   it again (the control). A Redis that goes away fails the request closed; one that lost
//!   its data (`FLUSHALL`) refuses a finished deploy's final state on every instance.
//! - **Rotation**: an instance minting with a new key verifies states minted under the old
//!   one; once the old key is dropped or retired, they are refused.
//! - **Sealed** (`--sealed`): no part of a state, base64-decoded, shows its plaintext (a
//!   signed state's does, the control); tampered sealed states are refused.
//! - **Subjects** (`--jwks --issuer --audience`): with real RS256 and ES256 tokens (the
//!   test-only keys of `mcp-server/tests/fixtures/auth`), a state minted for one subject is
//!   refused for another; a missing, expired or wrongly signed token gets 401 with
//!   `WWW-Authenticate`, and the protected-resource metadata is served.
//! - The example's doc comment names exactly the flags it accepts.
//!
//! Without `redis-server` the Redis tests print a loud SKIPPED and pass, except under CI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::common::deploy::{
    APPROVE, CONFIGURE, CONFIRM_PRODUCTION, configured, confirmed, consented, deploy_call,
    expect_round, full_capabilities, is_production_deploy,
};
use crate::common::redis::RedisServer;
use crate::common::{
    ExampleServer, HttpClient, HttpServer, INVALID_STATE, Session, code, tool_text,
};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

// ----- Instances -----

/// A test-only key (32 bytes of `byte`), base64.
fn key(byte: u8) -> String {
    STANDARD.encode([byte; 32])
}

/// A key ring of `(id, key byte)` entries, the first minting.
fn ring(entries: &[(&str, u8)]) -> String {
    let entries: Vec<String> = entries
        .iter()
        .map(|(id, byte)| format!("{id}:{}", key(*byte)))
        .collect();
    entries.join(",")
}

/// A `deploy` instance over HTTP with the key ring `ring` and `args`, its log labelled
/// `label`.
fn instance(label: &str, ring: &str, args: &[&str]) -> HttpServer {
    ExampleServer::named("deploy")
        .with_args(args.iter().copied())
        .with_env("MCP_REQUEST_STATE_KEYS", ring)
        .without_env("MCP_REQUEST_STATE_KEY")
        .labelled(label)
        .http()
}

/// How many deploys `server` ran (the example logs one line per deploy it rolls out).
fn deploys_run(server: &HttpServer) -> usize {
    server.output().matches("rolling out: deploy").count()
}

/// How many change requests `server` opened (one per production flow reaching round 3).
fn changes_opened(server: &HttpServer) -> usize {
    server.output().matches("opened change request").count()
}

/// `tools/call` of `deploy` to production, from a client answering forms and URLs.
fn call(id: u64, answers: Option<(Value, &str)>) -> Value {
    deploy_call(id, "production", &full_capabilities(), answers)
}

/// Asserts `response` is the fixed refusal of a state: `-32602`, the one message.
#[track_caller]
fn assert_refused(response: &Value, context: &str) {
    assert_eq!(
        response["error"]["code"],
        code::INVALID_PARAMS,
        "{context}: {response}"
    );
    assert_eq!(
        response["error"]["message"], INVALID_STATE,
        "{context}: {response}"
    );
    assert!(response.get("result").is_none(), "{context}: {response}");
}

/// The complete result of `response`.
#[track_caller]
fn complete(response: &Value) -> &Value {
    assert!(response.get("error").is_none(), "{response}");
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    &response["result"]
}

/// Runs one production deploy to completion: round 1 on `on[0]`, round 2 on `on[1]`, round
/// 3 on `on[2]`, and the call that completes it on `on[3]`. Returns the states of rounds 1
/// to 3.
fn deploy_across(on: [&HttpServer; 4], first_id: u64) -> [String; 3] {
    let [r1, r2, r3, last] = on.map(|server| HttpClient::new(server.url()));
    let (mut r1, mut r2, mut r3, mut last) = (r1, r2, r3, last);
    let first = r1.send(&call(first_id, None));
    let (_, state1) = expect_round(&first, &CONFIRM_PRODUCTION);
    let second = r2.send(&call(first_id + 1, Some((confirmed(), &state1))));
    let (_, state2) = expect_round(&second, &CONFIGURE);
    let configure = configured("eu-west-1");
    let third = r3.send(&call(first_id + 2, Some((configure, &state2))));
    let (_, state3) = expect_round(&third, &APPROVE);
    let done = last.send(&call(first_id + 3, Some((consented(), &state3))));
    let text = tool_text(complete(&done));
    assert!(is_production_deploy(&text, "eu-west-1"), "{done}");
    [state1, state2, state3]
}

// ----- Across instances -----

#[test]
fn a_flow_split_across_two_instances_runs_once_and_no_state_replays_anywhere() {
    let Some(redis) = RedisServer::start("scale_out_split") else {
        return;
    };
    let ring = ring(&[("k2", 2), ("k1", 1)]);
    let shared = ["--redis", &redis.url()];
    let (a, b) = (
        instance("split-a", &ring, &shared),
        instance("split-b", &ring, &shared),
    );
    // The control below, started before any state is minted: its own store's epoch (its
    // start, in seconds) must not be later than the states it is shown, or it would refuse
    // them as minted before it, on a machine slow enough to cross a second meanwhile.
    let alone = instance("split-alone", &ring, &[]);
    let (mut on_a, mut on_b) = (HttpClient::new(a.url()), HttpClient::new(b.url()));

    // Round 1 on A, round 2 and the rest on B.
    let first = on_a.send(&call(1, None));
    let (_, state1) = expect_round(&first, &CONFIRM_PRODUCTION);
    let second = on_b.send(&call(2, Some((confirmed(), &state1))));
    let (_, state2) = expect_round(&second, &CONFIGURE);
    let third = on_b.send(&call(3, Some((configured("us-east-1"), &state2))));
    let (_, state3) = expect_round(&third, &APPROVE);
    let done = on_b.send(&call(4, Some((consented(), &state3))));
    let text = tool_text(complete(&done));
    assert!(is_production_deploy(&text, "us-east-1"), "{done}");
    assert_eq!((deploys_run(&a), deploys_run(&b)), (0, 1));
    assert_eq!(changes_opened(&a) + changes_opened(&b), 1);
    // The three consumed states and the store's epoch marker, nothing else, are in the
    // shared Redis.
    assert_eq!(
        redis.key_count(),
        4,
        "one key per consumed state, and the marker"
    );

    // Replaying each round's exact request (answers and state) to each instance is refused:
    // the last one would deploy again, the earlier ones would rewind the flow.
    let replays = [
        ("round 1", confirmed(), &state1),
        ("round 2", configured("us-east-1"), &state2),
        ("round 3", consented(), &state3),
    ];
    let mut id = 10;
    for (name, client) in [("A", &mut on_a), ("B", &mut on_b)] {
        for (round, answers, state) in &replays {
            id += 1;
            let refused = client.send(&call(id, Some((answers.clone(), state))));
            assert_refused(&refused, &format!("{round}'s state replayed to {name}"));
        }
    }
    assert_eq!(
        deploys_run(&a) + deploys_run(&b),
        1,
        "the deploy ran once:\nA:\n{}\nB:\n{}",
        a.output(),
        b.output()
    );
    assert_eq!(changes_opened(&a) + changes_opened(&b), 1);
    assert_eq!(redis.key_count(), 4, "a refused replay records nothing");
    // The reason goes to the log only.
    let replayed = |server: &HttpServer| server.output().matches("replayed").count();
    assert_eq!((replayed(&a), replayed(&b)), (3, 3));

    // The control: an instance with the same ring that keeps consumed states in its own
    // memory accepts the finished flow's last state and deploys again. The shared store is
    // what refuses it above.
    let again = HttpClient::new(alone.url()).send(&call(20, Some((consented(), &state3))));
    complete(&again);
    assert_eq!(deploys_run(&alone), 1, "{}", alone.output());
}

#[test]
fn a_redis_that_goes_away_fails_the_request_closed() {
    let Some(redis) = RedisServer::start("scale_out_redis_down") else {
        return;
    };
    let ring = ring(&[("k1", 1)]);
    let server = instance("redis-down", &ring, &["--redis", &redis.url()]);
    let mut client = HttpClient::new(server.url());
    let first = client.send(&call(1, None));
    let (_, state1) = expect_round(&first, &CONFIRM_PRODUCTION);
    let second = client.send(&call(2, Some((confirmed(), &state1))));
    let (_, state2) = expect_round(&second, &CONFIGURE);
    drop(redis);

    // The store cannot say whether the state was consumed: the request is refused as an
    // internal error, and nothing runs.
    let refused = client.send(&call(3, Some((configured("eu-west-1"), &state2))));
    assert_eq!(
        refused["error"]["code"],
        -32603,
        "fails closed: {refused}\nlog:\n{}",
        server.output()
    );
    assert_eq!(changes_opened(&server), 0, "{}", server.output());
    assert_eq!(deploys_run(&server), 0);
}

#[test]
fn a_redis_that_lost_its_data_refuses_a_finished_deploys_final_state_on_every_instance() {
    let Some(redis) = RedisServer::start("scale_out_redis_flushed") else {
        return;
    };
    let ring = ring(&[("k1", 1)]);
    let shared = ["--redis", &redis.url()];
    let (a, b) = (
        instance("flushed-a", &ring, &shared),
        instance("flushed-b", &ring, &shared),
    );
    let [_, _, state3] = deploy_across([&a, &b, &a, &b], 1);
    assert_eq!(deploys_run(&a) + deploys_run(&b), 1);

    // Redis forgets every consumed state (as a restart without persistence does): the final
    // state would deploy again if taken as fresh.
    assert_eq!(redis.command("FLUSHALL").trim(), "+OK");
    for (id, (name, server)) in [("A", &a), ("B", &b)].into_iter().enumerate() {
        let mut client = HttpClient::new(server.url());
        let replay = client.send(&call(10 + id as u64, Some((consented(), &state3))));
        assert_refused(
            &replay,
            &format!("the final state replayed to {name} after the loss"),
        );
    }
    assert_eq!(
        deploys_run(&a) + deploys_run(&b),
        1,
        "no second rollout:\nA:\n{}\nB:\n{}",
        a.output(),
        b.output()
    );
    let logged = |server: &HttpServer| {
        server
            .output()
            .contains("before the single-use store's epoch")
    };
    assert!(logged(&a) || logged(&b), "the reason is in the log");
}

// ----- Rotation -----

/// The key id a state was minted with (its second field, base64url).
fn key_id(token: &str) -> String {
    let kid = token.split('.').nth(1).expect("a key id field");
    String::from_utf8(URL_SAFE_NO_PAD.decode(kid).expect("base64url")).unwrap()
}

#[test]
fn a_rotated_instance_verifies_states_of_the_old_key_until_it_is_dropped_or_retired() {
    let Some(redis) = RedisServer::start("scale_out_rotation") else {
        return;
    };
    let shared = ["--redis", &redis.url()];
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let old = ring(&[("old", 1)]);
    let rotated = ring(&[("new", 2), ("old", 1)]);
    let dropped = ring(&[("new", 2)]);
    let retired = format!("{rotated}:{}", now - 60);
    let a = instance("rotation-old", &old, &shared);
    let c = instance("rotation-new-old", &rotated, &shared);
    let d = instance("rotation-new", &dropped, &shared);
    let r = instance("rotation-retired", &retired, &shared);
    let [mut on_a, mut on_c, mut on_d, mut on_r] =
        [&a, &c, &d, &r].map(|server| HttpClient::new(server.url()));

    // A state minted under the old key continues on the rotated instance, which mints the
    // next one with the new key; the flow completes there.
    let states = deploy_across([&a, &c, &c, &c], 1);
    assert_eq!(key_id(&states[0]), "old");
    assert_eq!(key_id(&states[1]), "new");
    assert_eq!(deploys_run(&c), 1);

    // Once the old key is dropped, or retired (its retire time passed), its states are
    // refused; the refusals consume nothing, so the rotated instance still takes it.
    let first = on_a.send(&call(10, None));
    let (_, minted_old) = expect_round(&first, &CONFIRM_PRODUCTION);
    assert_eq!(key_id(&minted_old), "old");
    let resume = |id| call(id, Some((confirmed(), &minted_old)));
    assert_refused(&on_d.send(&resume(11)), "old key dropped");
    assert_refused(&on_r.send(&resume(12)), "old key retired");
    expect_round(&on_c.send(&resume(13)), &CONFIGURE);
}

// ----- Sealed states -----

/// Text every production flow's states hold: the state names and fields of the example's
/// `DeployFlow`, the plan and the change id.
const PLAINTEXT: [&str; 7] = [
    "Confirming",
    "Configuring",
    "Approving",
    "approved_at",
    "CHG-",
    "eu-west-1",
    "all at once",
];

/// What of `needles` shows in `token`: in its text, or in any of its dot-separated fields
/// decoded as base64url.
fn readable_in(token: &str, needles: &[&str]) -> Vec<String> {
    let mut texts = vec![token.to_owned()];
    for field in token.split('.') {
        if let Ok(bytes) = URL_SAFE_NO_PAD.decode(field) {
            texts.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    let found = needles
        .iter()
        .filter(|n| texts.iter().any(|t| t.contains(**n)));
    found.map(|n| (*n).to_owned()).collect()
}

#[test]
fn sealed_states_hide_their_payload_across_instances_and_refuse_tampering() {
    let Some(redis) = RedisServer::start("scale_out_sealed") else {
        return;
    };
    let ring = ring(&[("k1", 1)]);
    let sealed = ["--redis", &redis.url(), "--sealed"];
    let a = instance("sealed-a", &ring, &sealed);
    let b = instance("sealed-b", &ring, &sealed);
    let signed = instance("sealed-control", &ring, &[]);
    let (mut on_a, mut on_b) = (HttpClient::new(a.url()), HttpClient::new(b.url()));

    let states = deploy_across([&a, &b, &a, &b], 1);
    for (round, state) in (1..).zip(&states) {
        assert!(state.starts_with("mcp3s."), "round {round}: {state}");
        let shown = readable_in(state, &PLAINTEXT);
        assert!(shown.is_empty(), "round {round}'s state shows {shown:?}");
    }
    assert_eq!(deploys_run(&a) + deploys_run(&b), 1);

    // The control: the same flow, signed, shows its payload in the decoded token.
    let clear = deploy_across([&signed; 4], 10);
    assert!(clear[2].starts_with("mcp3."), "{}", clear[2]);
    let shown = readable_in(&clear[2], &PLAINTEXT);
    assert!(
        ["Approving", "CHG-", "eu-west-1"]
            .iter()
            .all(|n| shown.iter().any(|s| s == n)),
        "a signed state is readable: {shown:?}"
    );

    // Tampered sealed states are refused (before anything is consumed).
    let first = on_a.send(&call(20, None));
    let (_, state) = expect_round(&first, &CONFIRM_PRODUCTION);
    let fields: Vec<&str> = state.split('.').collect();
    assert_eq!(
        fields.len(),
        5,
        "mcp3s.<kid>.<expiry>.<nonce>.<ciphertext>: {state}"
    );
    let with_field = |index: usize, value: String| {
        let mut changed: Vec<String> = fields.iter().map(|f| (*f).to_owned()).collect();
        changed[index] = value;
        changed.join(".")
    };
    let flip = |field: &str| {
        let mut bytes = URL_SAFE_NO_PAD.decode(field).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        URL_SAFE_NO_PAD.encode(bytes)
    };
    let expiry: u64 = fields[2].parse().unwrap();
    let tampered = [
        ("ciphertext", with_field(4, flip(fields[4]))),
        ("nonce", with_field(3, flip(fields[3]))),
        ("expiry", with_field(2, (expiry + 60).to_string())),
        ("key id", with_field(1, URL_SAFE_NO_PAD.encode("k2"))),
        ("mode", with_field(0, "mcp3".to_owned())),
        ("truncated", fields[..4].join(".")),
    ];
    for (id, (what, token)) in (21..).zip(&tampered) {
        let refused = on_b.send(&call(id, Some((confirmed(), token))));
        assert_refused(&refused, &format!("tampered {what}"));
    }
    // The genuine state still works: the refusals consumed nothing.
    expect_round(
        &on_b.send(&call(30, Some((confirmed(), &state)))),
        &CONFIGURE,
    );
}

// ----- Subjects: bearer JWTs -----

const ISSUER: &str = "https://auth.example.test";
const AUDIENCE: &str = "https://deploy.example.test/mcp";
/// Where the protected-resource metadata of [`AUDIENCE`] is served (on the instance).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

const RSA_PRIVATE: &str = include_str!("../../mcp-server/tests/fixtures/auth/rsa-private.pem");
const RSA_OTHER_PRIVATE: &str =
    include_str!("../../mcp-server/tests/fixtures/auth/rsa-other-private.pem");
const EC_PRIVATE: &str = include_str!("../../mcp-server/tests/fixtures/auth/ec-private.pem");

/// The DER bytes of a PEM document.
fn der(pem: &str) -> Vec<u8> {
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    STANDARD.decode(body).unwrap()
}

/// The test-only keys of `mcp-server/tests/fixtures/auth`.
#[derive(Clone, Copy)]
enum TokenKey {
    /// RS256, `kid` `rsa-1` of the JWKS.
    Rsa,
    /// ES256, `kid` `ec-1` of the JWKS.
    Ec,
    /// An RSA key the JWKS does not hold, claiming `rsa-1`: wrongly signed.
    RsaImpostor,
}

/// A bearer JWT for `sub`, expiring `expires_in` seconds from now (negative: expired).
fn token(key: TokenKey, sub: &str, expires_in: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": sub,
        "iat": now,
        "exp": now.saturating_add_signed(expires_in),
        "scope": "deploy",
    });
    let (alg, kid, key) = match key {
        TokenKey::Rsa => (
            Algorithm::RS256,
            "rsa-1",
            EncodingKey::from_rsa_der(&der(RSA_PRIVATE)),
        ),
        TokenKey::Ec => (
            Algorithm::ES256,
            "ec-1",
            EncodingKey::from_ec_der(&der(EC_PRIVATE)),
        ),
        TokenKey::RsaImpostor => (
            Algorithm::RS256,
            "rsa-1",
            EncodingKey::from_rsa_der(&der(RSA_OTHER_PRIVATE)),
        ),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, &claims, &key).unwrap()
}

/// A `deploy` instance accepting bearer JWTs of the fixtures' JWKS.
fn authenticated(label: &str) -> HttpServer {
    let jwks = crate::common::root_dir().join("mcp-server/tests/fixtures/auth/jwks.json");
    let jwks = jwks.to_str().unwrap().to_owned();
    let args = ["--jwks", &jwks, "--issuer", ISSUER, "--audience", AUDIENCE];
    instance(label, &ring(&[("k1", 1)]), &args)
}

#[test]
fn a_state_minted_for_one_subject_is_refused_for_another() {
    let server = authenticated("jwt-subjects");
    let mut alice = HttpClient::new(server.url()).with_bearer(token(TokenKey::Rsa, "alice", 600));
    let mut bob = HttpClient::new(server.url()).with_bearer(token(TokenKey::Ec, "bob", 600));

    let first = alice.send(&call(1, None));
    let (_, alices) = expect_round(&first, &CONFIRM_PRODUCTION);
    // Same tool, same arguments, same answers: only the subject differs.
    let refused = bob.send(&call(2, Some((confirmed(), &alices))));
    assert_refused(&refused, "alice's state resumed by bob");
    // Bob's attempt consumed nothing: alice continues her flow.
    let second = alice.send(&call(3, Some((confirmed(), &alices))));
    let (_, alices) = expect_round(&second, &CONFIGURE);
    let refused = bob.send(&call(4, Some((configured("eu-west-1"), &alices))));
    assert_refused(&refused, "alice's round-2 state resumed by bob");

    // Bob's own flow works, and alice cannot resume it either.
    let first = bob.send(&call(5, None));
    let (_, bobs) = expect_round(&first, &CONFIRM_PRODUCTION);
    let refused = alice.send(&call(6, Some((confirmed(), &bobs))));
    assert_refused(&refused, "bob's state resumed by alice");
    expect_round(&bob.send(&call(7, Some((confirmed(), &bobs)))), &CONFIGURE);
    assert_eq!(changes_opened(&server), 0);
}

#[test]
fn missing_expired_or_wrongly_signed_tokens_get_401_with_the_challenge() {
    let server = authenticated("jwt-401");
    let metadata_url = "https://deploy.example.test/.well-known/oauth-protected-resource/mcp";
    let missing = format!("Bearer resource_metadata=\"{metadata_url}\"");
    let invalid = format!("Bearer error=\"invalid_token\", resource_metadata=\"{metadata_url}\"");
    let cases = [
        ("no token", None, &missing),
        (
            "expired",
            Some(token(TokenKey::Rsa, "alice", -600)),
            &invalid,
        ),
        (
            "wrongly signed",
            Some(token(TokenKey::RsaImpostor, "alice", 600)),
            &invalid,
        ),
        ("not a JWT", Some("not-a-jwt".to_owned()), &invalid),
    ];
    for (case, bearer, challenge) in cases {
        let client = HttpClient::new(server.url());
        let client = match bearer {
            Some(token) => client.with_bearer(token),
            None => client,
        };
        let response = client.post_raw(&call(1, None));
        assert_eq!(response.status().as_u16(), 401, "{case}");
        let header = response.headers().get("www-authenticate");
        let header = header.and_then(|v| v.to_str().ok()).unwrap_or_default();
        assert_eq!(header, challenge.as_str(), "{case}");
    }
    // A valid token gets through.
    let valid = HttpClient::new(server.url()).with_bearer(token(TokenKey::Ec, "carol", 600));
    let (status, _) = valid.post(&call(2, None));
    assert_eq!(status, 200);
    assert_eq!(changes_opened(&server), 0);

    // The protected-resource metadata the challenge names, served without a token.
    let url = format!("http://127.0.0.1:{}{METADATA_PATH}", server.port);
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .build()
        .unwrap();
    let response = client.get(url).send().unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let document: Value = response.json().unwrap();
    assert_eq!(document["resource"], AUDIENCE, "{document}");
    assert_eq!(
        document["authorization_servers"],
        json!([ISSUER]),
        "{document}"
    );
}

// ----- The doc comment -----

/// The `--flags` in `text`.
fn flags(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_deploy_doc_comment_names_exactly_the_flags_it_accepts() {
    let source =
        std::fs::read_to_string(crate::common::root_dir().join("examples/deploy.rs")).unwrap();
    let doc: String = source
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    // An unknown flag lists the accepted ones.
    let output = Command::new(crate::common::example_binary("deploy"))
        .arg("--no-such-flag")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut accepted = flags(&stderr);
    assert!(accepted.remove("--no-such-flag"), "{stderr}");
    assert!(accepted.len() >= 7, "{stderr}");
    let mut documented = flags(&doc);
    documented.remove("--example");
    assert_eq!(
        documented, accepted,
        "the doc comment's flags are the accepted ones"
    );
    // The list of flags describes every one.
    let list = doc
        .split_once("\n Flags:")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let list = list.split_once("\n Keys:").map_or(list, |(list, _)| list);
    assert_eq!(flags(list), accepted, "the flag list describes every flag");
    for variable in ["MCP_REQUEST_STATE_KEYS", "MCP_REQUEST_STATE_KEY"] {
        assert!(doc.contains(variable), "the doc comment names {variable}");
    }
}
