//! The multi-round API as a handler author meets it, driven in-process through
//! [`Server::handle_message`]: which answers reach a handler (only those its signed state
//! asked for), every kind of question through `Round` (forms, URL visits, choices and forms
//! built at run time), what a handler matches on (accepted, declined, cancelled), what it can
//! check before acting (`can_ask`), failures found when asking rather than after the
//! handler, versioned states, and the guard rails (per-handler round cap, size cap, messages
//! kept or not, the process-key warning on HTTP).
//!
//! Handlers record what they saw in [`Seen`] (server state). The log is captured per thread
//! ([`capture_logs`]). The cases where a state or its answers are forged or outdated run
//! under both modes of the signer ([`MODES`]): signed and sealed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{
    Answers, AskError, Continuation, DynamicForm, InputResponses, Message, OneOf, Question,
    QuestionPrompt, RawInputResponses, Reply, RequestStateSigner, Round, Step, UrlVisit,
};
use typemcp_server::typemcp_core::form::form_request;
use typemcp_server::typemcp_core::protocol::{
    CallToolResult, InputRequiredResult, NumberSchema, NumberType, Outcome,
    PrimitiveSchemaDefinition, RequestedSchema, StringSchema,
};
use typemcp_server::typemcp_core::state::{Binding, BindingRequest, Protection};
use typemcp_server::{Answer, McpError, Server, ServerBuilder, State, tool};

use crate::support::confirm::Confirm;
use crate::support::log_capture::{capture_logs, clear_log, log_lines};
use crate::support::replies::{state_of, text_of};
use crate::support::wire;

// ----- Handlers -----

/// What the handlers saw, by handler.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(&'static str, Value)>>>);

impl Seen {
    fn record(&self, handler: &'static str, what: Value) {
        self.0.lock().unwrap().push((handler, what));
    }

    /// What `handler` recorded, in order.
    fn of(&self, handler: &str) -> Vec<Value> {
        let seen = self.0.lock().unwrap();
        seen.iter()
            .filter(|(h, _)| *h == handler)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

/// Reports which answers the untyped extractors hand over, then asks for `user_name`.
#[tool]
async fn greet(
    answers: InputResponses,
    raw: RawInputResponses,
    seen: State<Seen>,
) -> Result<Outcome<CallToolResult>, McpError> {
    let verified: Vec<&str> = answers.awaited().collect();
    let given: Vec<&String> = raw.unverified().keys().collect();
    let visible: Vec<&str> = ["user_name", "other", "confirm"]
        .into_iter()
        .filter(|k| answers.get(k).is_some())
        .collect();
    let report = json!({"awaited": verified, "visible": visible, "raw": given});
    seen.0.record("greet", report);
    match answers.answer::<Confirm>("user_name") {
        Answer::Accepted(Confirm { ok }) => Ok(Outcome::Complete(CallToolResult::text(format!(
            "confirmed: {ok}"
        )))),
        Answer::Declined | Answer::Cancelled => Ok(Outcome::Complete(CallToolResult::text("no"))),
        Answer::Missing | Answer::Malformed(_) => answers.ask(
            InputRequiredResult::new().with_request("user_name", form_request::<Confirm>("Sure?")),
        ),
    }
}

/// Every kind of question `Round` asks.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Kinds {
    #[awaits(approval: UrlVisit)]
    Approving,
    #[awaits(replicas: OneOf<u8>, region: OneOf<String>)]
    Sizing,
    #[awaits(custom: DynamicForm)]
    Custom,
    #[awaits(confirm: Confirm)]
    Confirming,
}

/// Asks the question of `kind` (an argument), with options computed from `max`, and reports
/// the typed answer.
#[tool]
async fn kinds(
    kind: String,
    max: u8,
    round: Round<Kinds>,
    seen: State<Seen>,
) -> Step<Kinds, String> {
    let reply = |r: &str| Step::done(r.to_owned());
    match round.resume() {
        None => match kind.as_str() {
            "url" => round.ask(KindsAsking::Approving {
                approval: UrlVisit::prompt("Approve it.", "https://changes.example.com/c/1"),
            }),
            "url-empty" => round.ask(KindsAsking::Approving {
                approval: UrlVisit::prompt("Approve it.", ""),
            }),
            "choice" => round.ask(KindsAsking::Sizing {
                replicas: OneOf::prompt("How many?", 1..=max),
                region: OneOf::titled(
                    "Where?",
                    [("eu".to_owned(), "Europe"), ("us".to_owned(), "US")],
                ),
            }),
            "choice-offered-twice" => round.ask(KindsAsking::Sizing {
                replicas: OneOf::prompt("How many?", [1, 2, 1]),
                region: OneOf::prompt("Where?", ["eu".to_owned()]),
            }),
            "form" => {
                let mut count = NumberSchema::new(NumberType::Integer);
                count.maximum = Some(max.into());
                let properties = [
                    (
                        "name".to_owned(),
                        PrimitiveSchemaDefinition::String(StringSchema::new()),
                    ),
                    ("count".to_owned(), PrimitiveSchemaDefinition::Number(count)),
                ];
                let schema =
                    RequestedSchema::new(properties.into_iter().collect(), vec!["name".into()]);
                round.ask(KindsAsking::Custom {
                    custom: DynamicForm::prompt(format!("Up to {max}?"), schema),
                })
            }
            _ => round.ask(KindsAsking::Confirming {
                confirm: format!("Confirm {kind}?").into(),
            }),
        },
        Some(KindsAnswered::Approving { approval }) => {
            seen.0.record("kinds", json!(format!("{approval:?}")));
            reply(match approval {
                Reply::Accepted(UrlVisit) => "consented",
                Reply::Declined => "declined",
                Reply::Cancelled => "cancelled",
            })
        }
        Some(KindsAnswered::Sizing { replicas, region }) => match (replicas, region) {
            (Reply::Accepted(OneOf(n)), Reply::Accepted(OneOf(region))) => {
                let n: u8 = n;
                Step::done(format!("{n} in {region}"))
            }
            _ => reply("no size"),
        },
        Some(KindsAnswered::Custom { custom }) => match custom {
            Reply::Accepted(DynamicForm(values)) => Step::done(Value::Object(values).to_string()),
            Reply::Declined | Reply::Cancelled => reply("no form"),
        },
        // No catch-all: the three replies are all a handler can see.
        Some(KindsAnswered::Confirming { confirm }) => match confirm {
            Reply::Accepted(Confirm { ok }) => Step::done(format!("ok: {ok}")),
            Reply::Declined => reply("declined"),
            Reply::Cancelled => reply("cancelled"),
        },
    }
}

/// Checks what the client can answer before acting, then asks for a URL visit.
#[tool]
async fn preflight(round: Round<Kinds>, seen: State<Seen>) -> Step<Kinds, String> {
    if round.resume().is_some() {
        return Step::done("approved".to_owned());
    }
    let can = json!({
        "form": round.can_ask_form(),
        "url": round.can_ask_url(),
        "confirm": round.can_ask::<Confirm>(),
        "visit": round.can_ask::<UrlVisit>(),
        "choice": round.can_ask::<OneOf<u8>>(),
    });
    seen.0.record("preflight", can);
    // Asking what the client cannot answer fails here, before the handler returns.
    let approval = UrlVisit::prompt("Approve it.", "https://changes.example.com/c/2");
    match round.try_ask(KindsAsking::Approving { approval }) {
        Ok(step) => step,
        Err(err) => {
            seen.0.record("preflight", json!(err.to_string()));
            Step::fail(err.into_error())
        }
    }
}

/// Asks again and again, with its own cap of two rounds.
#[tool]
async fn capped(round: Round<Kinds>) -> Step<Kinds, String> {
    let round = round.with_max_rounds(2);
    round.ask(KindsAsking::Confirming {
        confirm: format!("Round {}?", round.round() + 1).into(),
    })
}

/// Asks with a message of `size` characters (the state grows with it).
#[tool]
async fn wordy(size: usize, round: Round<Kinds>, seen: State<Seen>) -> Step<Kinds, String> {
    if round.resume().is_some() {
        return Step::done("answered".to_owned());
    }
    match round.try_ask::<String>(KindsAsking::Confirming {
        confirm: "x".repeat(size).into(),
    }) {
        Err(err @ AskError::StateTooLarge { .. }) => {
            seen.0.record("wordy", json!(err.to_string()));
            Step::fail(err.into_error())
        }
        other => other.unwrap(),
    }
}

/// A hand-written state, the path the derive does not check: its `split` hands over the
/// prompts it is given, right or wrong.
#[derive(Serialize, Deserialize, Clone)]
struct ByHand;

impl Continuation for ByHand {
    type Answered = Reply<OneOf<u8>>;
    type Asking = Vec<QuestionPrompt>;

    const VERSION: &'static str = "by-hand";

    fn questions(&self) -> Vec<Question> {
        vec![Question::of::<OneOf<u8>>("replicas")]
    }

    fn split(prompts: Vec<QuestionPrompt>) -> (Self, Vec<QuestionPrompt>) {
        (Self, prompts)
    }

    fn answered(self, answers: &Answers<'_>) -> Option<Self::Answered> {
        answers.read::<OneOf<u8>>("replicas")
    }
}

/// Asks its one question with the prompts `kind` names.
#[tool]
async fn by_hand(kind: String, round: Round<ByHand>) -> Step<ByHand, String> {
    if let Some(reply) = round.resume() {
        return Step::done(format!("{reply:?}"));
    }
    let prompts: Vec<QuestionPrompt> = match kind.as_str() {
        "options" => vec![OneOf::prompt("How many?", [1u8, 2]).into()],
        "message" => vec![Message::from("How many?").into()],
        "options-of-the-wrong-type" => vec![OneOf::prompt("How many?", [1u16, 2]).into()],
        _ => Vec::new(),
    };
    round.ask(prompts)
}

// ----- Harness -----

/// The signing key of every server here.
const KEY: [u8; 32] = [3u8; 32];
/// Both ways a signer protects its states.
const MODES: [Protection; 2] = [Protection::Signed, Protection::Sealed];

/// The signer of [`KEY`], minting in `mode`.
fn signer_in(mode: Protection) -> RequestStateSigner {
    let signer = RequestStateSigner::new(KEY).unwrap();
    if mode == Protection::Sealed {
        signer.sealed()
    } else {
        signer
    }
}

/// Form and URL elicitation.
fn forms_and_urls() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

/// A server under test.
struct Harness {
    server: Server,
    seen: Seen,
}

impl Harness {
    /// Every handler, the signer of [`KEY`] as adjusted by `signer`, and `builder`.
    fn build(
        signer: impl FnOnce(RequestStateSigner) -> RequestStateSigner,
        builder: impl FnOnce(ServerBuilder) -> ServerBuilder,
    ) -> Self {
        Self::build_in(Protection::Signed, signer, builder)
    }

    /// [`build`](Self::build), the signer minting in `mode`.
    fn build_in(
        mode: Protection,
        signer: impl FnOnce(RequestStateSigner) -> RequestStateSigner,
        builder: impl FnOnce(ServerBuilder) -> ServerBuilder,
    ) -> Self {
        capture_logs();
        let seen = Seen::default();
        let server = Server::builder()
            .state(seen.clone())
            .tool(greet)
            .tool(kinds)
            .tool(preflight)
            .tool(capped)
            .tool(wordy)
            .tool(by_hand)
            .request_state_signer(signer(signer_in(mode)));
        let server = builder(server).build().unwrap();
        Self { server, seen }
    }

    fn new() -> Self {
        Self::build(|s| s, |b| b)
    }

    /// The default server, its signer minting in `mode`.
    fn new_in(mode: Protection) -> Self {
        Self::build_in(mode, |s| s, |b| b)
    }

    /// Calls `tool` with `arguments` and `extra` params, from a client declaring `caps`.
    async fn call_as(&self, caps: Value, tool: &str, arguments: Value, extra: Value) -> Value {
        wire::reply(&self.server, &wire::tool_call(tool, arguments, extra, caps)).await
    }

    /// Calls `tool` from a client declaring forms and URLs.
    async fn call(&self, tool: &str, arguments: Value, extra: Value) -> Value {
        self.call_as(forms_and_urls(), tool, arguments, extra).await
    }

    /// Calls `tool`, then answers its first round with `answers`.
    async fn answer(&self, tool: &str, arguments: Value, answers: Value) -> (Value, Value) {
        let first = self.call(tool, arguments.clone(), json!({})).await;
        let extra = json!({"inputResponses": answers, "requestState": state_of(&first)});
        let second = self.call(tool, arguments, extra).await;
        (first, second)
    }
}

/// An accepted form answer with `content`.
fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The payload of a token `tool` minted for `arguments` (no caller): decoded if signed (it
/// travels in the clear), decrypted with [`KEY`] if sealed.
fn payload_of(token: &str, tool: &str, arguments: Value) -> Value {
    use base64::Engine;
    let bytes = if token.starts_with("mcp3.") {
        let payload = token.split('.').nth(4).unwrap();
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap()
    } else {
        assert!(token.starts_with("mcp3s."), "{token}");
        let request = BindingRequest {
            subject: None,
            method: "tools/call",
            target: tool,
            arguments: &arguments,
        };
        let binding = Binding::derive(&request);
        RequestStateSigner::new(KEY)
            .unwrap()
            .verify(token, Some(&binding))
            .unwrap()
    };
    serde_json::from_slice(&bytes).unwrap()
}

// ----- 5. Answers only where asked -----

#[tokio::test]
async fn input_responses_hands_over_only_the_answers_the_verified_state_awaits() {
    for mode in MODES {
        let h = Harness::new_in(mode);
        let forged = json!({"user_name": accept(json!({"ok": true})), "other": accept(json!({}))});
        // A first call carrying answers nobody asked for: the handler sees none of them, and asks.
        let first = h
            .call("greet", json!({}), json!({"inputResponses": forged}))
            .await;
        let token = state_of(&first);
        assert_eq!(
            first["result"]["inputRequests"]["user_name"]["params"]["message"],
            "Sure?"
        );
        // The retry answers the question and more: only the awaited key gets through.
        let mut answers = forged.clone();
        answers["confirm"] = accept(json!({"ok": true}));
        let extra = json!({"inputResponses": answers, "requestState": token});
        let done = h.call("greet", json!({}), extra).await;
        assert_eq!(text_of(&done), "confirmed: true");
        let seen = h.seen.of("greet");
        assert_eq!(
            seen,
            [
                json!({"awaited": [], "visible": [], "raw": ["user_name", "other"]}),
                json!({"awaited": ["user_name"], "visible": ["user_name"], "raw": ["user_name", "other", "confirm"]}),
            ],
            "the raw escape hatch sees everything, the verified extractor only what was asked"
        );
        // Without a signer, `InputResponses` cannot work: the server does not build.
        let unsigned = Server::builder().state(Seen::default()).tool(greet);
        let err = unsigned.without_request_state_signer().build().unwrap_err();
        assert!(err.to_string().contains("InputResponses"), "{err}");
    }
}

// ----- 6. Every question kind through `Round` -----

#[tokio::test]
async fn a_url_question_is_sent_in_url_mode_and_read_as_consent() {
    let h = Harness::new();
    let args = json!({"kind": "url", "max": 1});
    let first = h.call("kinds", args.clone(), json!({})).await;
    let request = &first["result"]["inputRequests"]["approval"];
    assert_eq!(
        request,
        &json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": "Approve it.", "url": "https://changes.example.com/c/1"}}),
        "a URL question, never a form: {first}"
    );
    for (action, text) in [
        ("accept", "consented"),
        ("decline", "declined"),
        ("cancel", "cancelled"),
    ] {
        let answers = json!({"approval": {"action": action}});
        let extra = json!({"inputResponses": answers, "requestState": state_of(&first)});
        let reply = h.call("kinds", args.clone(), extra).await;
        assert_eq!(text_of(&reply), text, "{action}");
    }
    // A URL question asked with an empty URL fails at `ask`, with the reason in the log (one
    // asked with a message alone does not compile).
    let args = json!({"kind": "url-empty", "max": 1});
    let reply = h.call("kinds", args, json!({})).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    let logged = log_lines().into_iter().any(|l| {
        l.contains("could not ask") && l.contains("question `approval`: the URL is empty")
    });
    assert!(logged, "{:#?}", log_lines());
}

#[tokio::test]
async fn a_hand_written_continuation_asking_the_wrong_way_fails_at_ask_with_the_reason_logged() {
    let h = Harness::new();
    let first = h
        .call("by_hand", json!({"kind": "options"}), json!({}))
        .await;
    assert_eq!(
        first["result"]["inputRequests"]["replicas"]["params"]["requestedSchema"]["properties"]["replicas"]
            ["enum"],
        json!(["1", "2"]),
        "{first}"
    );
    let answers = json!({"replicas": accept(json!({"replicas": "2"}))});
    let extra = json!({"inputResponses": answers, "requestState": state_of(&first)});
    let done = h.call("by_hand", json!({"kind": "options"}), extra).await;
    assert_eq!(text_of(&done), "Accepted(OneOf(2))");
    for (kind, why) in [
        (
            "message",
            "question `replicas`: it is asked with options (`OneOf::prompt`), not a message",
        ),
        (
            "options-of-the-wrong-type",
            "it awaits `OneOf<u8>`, but the options are `u16`",
        ),
        (
            "none",
            "question `replicas`: 0 prompts were given for 1 questions",
        ),
    ] {
        clear_log();
        let reply = h.call("by_hand", json!({"kind": kind}), json!({})).await;
        assert_eq!(reply["error"]["code"], -32603, "{kind}: {reply}");
        assert_eq!(reply["error"]["message"], "Internal error", "{kind}");
        let logged = log_lines()
            .iter()
            .any(|l| l.contains("could not ask") && l.contains(why));
        assert!(logged, "{kind}: {:#?}", log_lines());
    }
}

#[tokio::test]
async fn options_built_at_run_time_are_offered_checked_and_read_typed() {
    let h = Harness::new();
    let args = json!({"kind": "choice", "max": 3});
    let first = h.call("kinds", args.clone(), json!({})).await;
    let requests = &first["result"]["inputRequests"];
    assert_eq!(
        requests["replicas"]["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"replicas": {"type": "string", "enum": ["1", "2", "3"]}},
               "required": ["replicas"]}),
        "{first}"
    );
    assert_eq!(
        requests["region"]["params"]["requestedSchema"]["properties"]["region"]["oneOf"],
        json!([{"const": "eu", "title": "Europe"}, {"const": "us", "title": "US"}])
    );
    let token = state_of(&first);
    let answer = |n: &str, region: &str| json!({"replicas": accept(json!({"replicas": n})), "region": accept(json!({"region": region}))});
    let extra = json!({"inputResponses": answer("2", "us"), "requestState": token});
    assert_eq!(
        text_of(&h.call("kinds", args.clone(), extra).await),
        "2 in us"
    );
    // A value that was not offered is asked again: the same questions, the same state, the
    // one answered wrong saying why after its own message.
    for (n, region, wrong, why) in [
        (
            "4",
            "us",
            "replicas",
            r#"`replicas`: "4" is not one of "1", "2", "3""#,
        ),
        ("2", "mars", "region", r#"`region`: "mars" is not one of"#),
        (
            "two",
            "us",
            "replicas",
            r#"`replicas`: "two" is not one of"#,
        ),
    ] {
        let extra = json!({"inputResponses": answer(n, region), "requestState": token});
        let again = h.call("kinds", args.clone(), extra).await;
        assert_eq!(state_of(&again), token, "{n} {region}");
        let mut expected = first["result"]["inputRequests"].clone();
        let message = &mut expected[wrong]["params"]["message"];
        let asked = again["result"]["inputRequests"][wrong]["params"]["message"].clone();
        let prefix = format!(
            "{}\n\nThe previous answer was not valid ({why}",
            message.as_str().unwrap()
        );
        assert!(asked.as_str().unwrap().starts_with(&prefix), "{asked}");
        *message = asked;
        assert_eq!(again["result"]["inputRequests"], expected);
    }
    // Options that cannot be offered fail at `ask` (options of another type than the awaited
    // `OneOf<u8>` do not compile); so does a choice without options.
    for (args, why) in [
        (
            json!({"kind": "choice-offered-twice", "max": 3}),
            r#"question `replicas`: the option "1" is offered twice"#,
        ),
        (
            json!({"kind": "choice", "max": 0}),
            "question `replicas`: no options to choose from",
        ),
    ] {
        let reply = h.call("kinds", args, json!({})).await;
        assert_eq!(reply["error"]["code"], -32603, "{reply}");
        let logged = log_lines().iter().any(|l| l.contains(why));
        assert!(logged, "{why}: {:#?}", log_lines());
    }
}

#[tokio::test]
async fn a_form_built_at_run_time_is_checked_against_its_own_schema() {
    let h = Harness::new();
    let args = json!({"kind": "form", "max": 5});
    let first = h.call("kinds", args.clone(), json!({})).await;
    let params = &first["result"]["inputRequests"]["custom"]["params"];
    assert_eq!(params["message"], "Up to 5?");
    assert_eq!(
        params["requestedSchema"]["properties"]["count"]["maximum"],
        5
    );
    let token = state_of(&first);
    let send = |content: Value| {
        let extra = json!({"inputResponses": {"custom": accept(content)}, "requestState": token});
        h.call("kinds", args.clone(), extra)
    };
    let done = send(json!({"name": "Ann", "count": 4})).await;
    assert_eq!(text_of(&done), r#"{"name":"Ann","count":4}"#);
    for bad in [
        json!({"name": "Ann", "count": 6}),
        json!({"count": 1}),
        json!({"name": 7}),
    ] {
        let again = send(bad.clone()).await;
        assert_eq!(state_of(&again), token, "{bad}: asked again");
    }
}

// ----- 7. Precise answers -----

#[tokio::test]
async fn declined_and_cancelled_reach_the_handler_apart_and_nothing_else_does() {
    let h = Harness::new();
    let args = json!({"kind": "deploy", "max": 1});
    for (answer, text) in [
        (accept(json!({"ok": true})), "ok: true"),
        (json!({"action": "decline"}), "declined"),
        (json!({"action": "cancel"}), "cancelled"),
    ] {
        let (_, reply) = h
            .answer("kinds", args.clone(), json!({"confirm": answer}))
            .await;
        assert_eq!(text_of(&reply), text);
    }
}

// ----- 8. Capability preflight -----

#[tokio::test]
async fn a_handler_can_check_what_the_client_can_answer_and_asking_beyond_it_fails_at_ask() {
    let h = Harness::new();
    let cases = [
        (
            forms_and_urls(),
            json!({"form": true, "url": true, "confirm": true, "visit": true, "choice": true}),
        ),
        (
            json!({"elicitation": {}}),
            json!({"form": true, "url": false, "confirm": true, "visit": false, "choice": true}),
        ),
        (
            json!({"elicitation": {"url": {}}}),
            json!({"form": false, "url": true, "confirm": false, "visit": true, "choice": false}),
        ),
        (
            json!({}),
            json!({"form": false, "url": false, "confirm": false, "visit": false, "choice": false}),
        ),
    ];
    for (caps, expected) in cases {
        let reply = h
            .call_as(caps.clone(), "preflight", json!({}), json!({}))
            .await;
        let seen = h.seen.of("preflight");
        let seen_caps = &seen[seen.len() - if expected["url"] == true { 1 } else { 2 }];
        assert_eq!(seen_caps, &expected, "{caps}");
        if expected["url"] == true {
            assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
        } else {
            // The handler saw the refusal (naming the capability) before returning...
            let err = seen.last().unwrap().as_str().unwrap();
            assert!(
                err.contains("cannot answer `approval`")
                    && err.contains(r#"{"elicitation":{"url":{}}}"#),
                "{err}"
            );
            // ...and the client gets -32021 naming it too.
            assert_eq!(reply["error"]["code"], -32021, "{reply}");
            let required = &reply["error"]["data"]["requiredCapabilities"];
            assert_eq!(required, &json!({"elicitation": {"url": {}}}), "{reply}");
        }
    }
}

// ----- 9. Versioned state -----

mod v1 {
    use super::*;

    /// The first version of a flow.
    #[derive(Serialize, Deserialize, Clone, Continuation)]
    pub(super) enum Flow {
        #[awaits(confirm: Confirm)]
        Confirming { target: String },
    }

    /// Deploys after one confirmation.
    #[tool]
    pub(super) async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
        match round.resume() {
            None => round.ask(FlowAsking::Confirming {
                target: "staging".into(),
                confirm: "Sure?".into(),
            }),
            Some(FlowAnswered::Confirming { target, confirm }) => {
                Step::done(format!("v1 {target} {}", confirm.is_accepted()))
            }
        }
    }
}

mod v2 {
    use super::*;

    /// The same flow, its field renamed: a v1 state no longer reads as this.
    #[derive(Serialize, Deserialize, Clone, Continuation)]
    pub(super) enum Flow {
        #[awaits(confirm: Confirm)]
        Confirming { environment: String },
    }

    /// Deploys after one confirmation.
    #[tool]
    pub(super) async fn deploy(round: Round<Flow>) -> Step<Flow, String> {
        match round.resume() {
            None => round.ask(FlowAsking::Confirming {
                environment: "staging".into(),
                confirm: "Sure?".into(),
            }),
            Some(FlowAnswered::Confirming {
                environment,
                confirm,
            }) => Step::done(format!("v2 {environment} {}", confirm.is_accepted())),
        }
    }
}

#[tokio::test]
async fn a_state_minted_for_another_version_of_the_state_type_is_refused_with_its_reason_logged() {
    assert_ne!(v1::Flow::VERSION, v2::Flow::VERSION);
    assert_eq!(v1::Flow::VERSION.len(), 16);
    capture_logs();
    fn server(mode: Protection, tool: impl typemcp_server::IntoToolRoute) -> Harness {
        let signer = signer_in(mode);
        let server = Server::builder().tool(tool).request_state_signer(signer);
        let seen = Seen::default();
        Harness {
            server: server.build().unwrap(),
            seen,
        }
    }
    for mode in MODES {
        clear_log();
        let (old, new) = (server(mode, v1::deploy), server(mode, v2::deploy));
        let first = old.call("deploy", json!({}), json!({})).await;
        let token = state_of(&first);
        let payload = payload_of(&token, "deploy", json!({}));
        assert_eq!(payload["v"], v1::Flow::VERSION);
        assert_eq!(token.starts_with("mcp3s."), mode == Protection::Sealed);
        let answers = json!({"confirm": accept(json!({"ok": true}))});
        let extra = json!({"inputResponses": answers, "requestState": token});
        assert_eq!(
            text_of(&old.call("deploy", json!({}), extra.clone()).await),
            "v1 staging true"
        );
        // The new build refuses it with the fixed message; the log says why.
        let reply = new.call("deploy", json!({}), extra).await;
        let error = json!({"code": -32602, "message": "Invalid or expired \"requestState\""});
        assert_eq!(reply["error"], error, "{reply}");
        let logged = log_lines().into_iter().any(|l| {
            l.starts_with(" WARN ")
                && l.contains("refused a requestState")
                && l.contains("minted for another version of integration::multi_round::v2::Flow")
                && l.contains(v1::Flow::VERSION)
        });
        assert!(logged, "{:#?}", log_lines());
    }
}

// ----- 10. Guard rails -----

#[tokio::test]
async fn a_handler_caps_its_own_rounds() {
    // The server allows 16 rounds; the handler allows 2.
    let h = Harness::new();
    let mut reply = h.call("capped", json!({}), json!({})).await;
    for round in 1..=2 {
        let message = &reply["result"]["inputRequests"]["confirm"]["params"]["message"];
        assert_eq!(message, &json!(format!("Round {round}?")), "{reply}");
        let extra = json!({"inputResponses": {"confirm": accept(json!({"ok": true}))},
            "requestState": state_of(&reply)});
        reply = h.call("capped", json!({}), extra).await;
    }
    let error = json!({"code": -32600, "message": "Too many rounds for one request"});
    assert_eq!(reply["error"], error, "{reply}");
}

#[tokio::test]
async fn a_state_that_outgrows_the_cap_fails_at_ask_naming_the_cap() {
    let h = Harness::build(|s| s.max_state_bytes(1024), |b| b);
    let fits = h.call("wordy", json!({"size": 100}), json!({})).await;
    assert!(state_of(&fits).len() <= 1024);
    let reply = h.call("wordy", json!({"size": 2000}), json!({})).await;
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("1024 allowed"), "{message}");
    let seen = h.seen.of("wordy");
    let err = seen[0].as_str().unwrap();
    assert!(
        err.contains("more than the 1024 allowed (RequestStateSigner::max_state_bytes)"),
        "{err}"
    );
}

#[tokio::test]
async fn question_messages_travel_in_the_state_only_when_the_signer_keeps_them() {
    let args = json!({"kind": "choice", "max": 2});
    let bad = json!({"replicas": accept(json!({"replicas": "9"})), "region": accept(json!({"region": "eu"}))});
    for mode in MODES {
        for keep in [true, false] {
            let h = Harness::build_in(mode, |s| s.messages_in_state(keep), |b| b);
            let first = h.call("kinds", args.clone(), json!({})).await;
            let token = state_of(&first);
            let payload = payload_of(&token, "kinds", args.clone()).to_string();
            assert_eq!(payload.contains("How many?"), keep, "{payload}");
            // The options always travel: the answer is checked against them.
            assert!(payload.contains(r#""enum":["1","2"]"#), "{payload}");
            let extra = json!({"inputResponses": bad, "requestState": token});
            let again = h.call("kinds", args.clone(), extra).await;
            let message = &again["result"]["inputRequests"]["replicas"]["params"]["message"];
            // The reason is given either way; the question's own message only when kept.
            let why = r#"The previous answer was not valid (`replicas`: "9" is not one of "1", "2"). Please answer again."#;
            let expected = if keep {
                format!("How many?\n\n{why}")
            } else {
                why.to_owned()
            };
            assert_eq!(message, &json!(expected), "keep: {keep}");
            let options =
                &again["result"]["inputRequests"]["replicas"]["params"]["requestedSchema"];
            assert_eq!(options["properties"]["replicas"]["enum"], json!(["1", "2"]));
        }
    }
}

#[tokio::test]
async fn serving_http_with_a_process_key_warns_once_at_start_up() {
    capture_logs();
    let warning = |lines: &[String]| {
        lines
            .iter()
            .filter(|l| {
                l.starts_with(" WARN ")
                    && l.contains("request-state key drawn for this process only")
                    && l.contains("behind a load balancer")
                    && l.contains("MCP_REQUEST_STATE_KEY")
            })
            .count()
    };
    // A configured key: no warning.
    let configured = Harness::new().server;
    let _ = configured.http_service();
    assert_eq!(warning(&log_lines()), 0);
    // The default, generated key: one warning, however many routers are made.
    let generated = Server::builder().tool(capped).build().unwrap();
    let _ = generated.http_service();
    let _ = generated.http_service();
    assert_eq!(warning(&log_lines()), 1, "{:#?}", log_lines());
    // Serving stdio with it does not warn.
    assert!(RequestStateSigner::generate().unwrap().is_process_key());
    assert!(!RequestStateSigner::new(KEY).unwrap().is_process_key());
}

#[test]
fn a_ttl_below_one_second_is_refused_when_configured() {
    let signer = RequestStateSigner::new(KEY).unwrap();
    let short = signer.clone().ttl(std::time::Duration::from_millis(500));
    assert!(short.is_err());
    assert!(signer.ttl(std::time::Duration::from_secs(1)).is_ok());
}
