//! Every request is served in one span named with the OpenTelemetry conventions for MCP,
//! recorded here by a subscriber that keeps each span's fields and each event's span: a tool
//! call, an error, and both rounds of a multi-round call. The handler's own events nest in
//! the request's span; no argument, answer, `requestState` or token is ever a field.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::support::confirm::{Confirm, Flow, FlowAnswered, FlowAsking};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use typemcp_server::state::{Reply, Round, Step};
use typemcp_server::{Server, TransportInfo, tool};

/// A span as recorded: its name and its fields, as text.
#[derive(Debug, Clone, Default)]
struct Recorded {
    name: String,
    fields: BTreeMap<String, String>,
    /// The messages of the events inside it.
    events: Vec<String>,
}

/// Keeps every span, in order of creation, and the events of each.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<(Id, Recorded)>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut recorded = Recorded {
            name: attrs.metadata().name().to_owned(),
            ..Recorded::default()
        };
        attrs.record(&mut Fields(&mut recorded.fields));
        self.0.lock().unwrap().push((id.clone(), recorded));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some((_, recorded)) = spans.iter_mut().rev().find(|(i, _)| i == id) {
            values.record(&mut Fields(&mut recorded.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let message = fields.get("message").cloned().unwrap_or_default();
        // The innermost request span the event is in.
        let Some(scope) = ctx.event_scope(event) else {
            return;
        };
        for span in scope {
            if span.name() == "mcp.request" {
                let id = span.id();
                let mut spans = self.0.lock().unwrap();
                if let Some((_, recorded)) = spans.iter_mut().rev().find(|(i, _)| *i == id) {
                    let detail: Vec<String> =
                        fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    recorded
                        .events
                        .push(format!("{message} {}", detail.join(" ")));
                }
                return;
            }
        }
    }
}

impl Recorder {
    /// The request spans recorded so far.
    fn requests(&self) -> Vec<Recorded> {
        let spans = self.0.lock().unwrap();
        spans
            .iter()
            .filter(|(_, s)| s.name == "mcp.request")
            .map(|(_, s)| s.clone())
            .collect()
    }
}

/// Add two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    tracing::info!("adding inside the handler");
    a + b
}

/// Asks for a confirmation.
#[tool]
async fn confirm(secret: String, round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: "Go ahead?".into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Reply::Accepted(Confirm { ok }),
        }) => Step::done(format!("{} {ok}", secret.len())),
        Some(FlowAnswered::Confirming { .. }) => Step::done("no".to_owned()),
    }
}

fn server() -> Server {
    Server::builder()
        .name("span-test")
        .version("1.0.0")
        .tool(add)
        .tool(confirm)
        .build()
        .expect("builds")
}

fn call(id: u64, name: &str, params: Value) -> Vec<u8> {
    let mut params = params.as_object().cloned().unwrap_or_default();
    params.insert("name".into(), json!(name));
    let meta = crate::support::wire::meta(crate::support::wire::forms());
    params.insert("_meta".into(), meta);
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    request.to_string().into_bytes()
}

/// Serves each message in process on `server`, under a fresh recorder; the recorder and the
/// replies.
fn served(server: &Server, messages: Vec<Vec<u8>>) -> (Recorder, Vec<Value>) {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let replies = tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut replies = Vec::new();
            for message in messages {
                let reply = server
                    .handle_message(&message, TransportInfo::in_process())
                    .await
                    .expect("a reply");
                replies.push(serde_json::from_slice(&reply).unwrap());
            }
            replies
        })
    });
    (recorder, replies)
}

fn field<'a>(span: &'a Recorded, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

#[test]
fn a_tool_call_is_one_span_with_the_conventions_names_and_the_handler_inside() {
    let messages = vec![call(7, "add", json!({"arguments": {"a": 40_123, "b": 2}}))];
    let (recorder, replies) = served(&server(), messages);
    assert_eq!(replies[0]["result"]["content"][0]["text"], "40125");
    let spans = recorder.requests();
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    assert_eq!(field(span, "otel.name"), Some("tools/call add"));
    assert_eq!(field(span, "otel.kind"), Some("server"));
    assert_eq!(field(span, "mcp.method.name"), Some("tools/call"));
    assert_eq!(field(span, "mcp.protocol.version"), Some("2026-07-28"));
    assert_eq!(field(span, "jsonrpc.request.id"), Some("7"));
    assert_eq!(field(span, "jsonrpc.protocol.version"), Some("2.0"));
    assert_eq!(field(span, "gen_ai.tool.name"), Some("add"));
    assert_eq!(field(span, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field(span, "error.type"), None);
    assert_eq!(
        field(span, "network.transport"),
        None,
        "in process: no network"
    );
    // The handler's event, then the closing one, both in the request's span.
    assert_eq!(span.events.len(), 2, "{:?}", span.events);
    assert!(span.events[0].starts_with("adding inside the handler"));
    assert!(span.events[1].starts_with("served a request"));
    assert!(span.events[1].contains("outcome=ok") && span.events[1].contains("duration="));
    let everything = format!("{spans:?}");
    assert!(
        !everything.contains("40123"),
        "an argument was recorded: {everything}"
    );
}

#[test]
fn an_error_records_its_code_as_the_error_type() {
    let messages = vec![call(1, "no_such_tool", json!({"arguments": {}}))];
    let (recorder, replies) = served(&server(), messages);
    let code = replies[0]["error"]["code"].as_i64().expect("an error");
    let spans = recorder.requests();
    assert_eq!(spans.len(), 1);
    let code = code.to_string();
    assert_eq!(field(&spans[0], "error.type"), Some(code.as_str()));
    assert_eq!(
        field(&spans[0], "rpc.response.status_code"),
        Some(code.as_str())
    );
    assert!(
        spans[0].events[0].contains(&format!("outcome=error {code}")),
        "{:?}",
        spans[0].events
    );
}

#[test]
fn each_round_of_a_multi_round_call_is_a_span_without_its_state_or_answers() {
    let secret = "hunter2-argument";
    // The first round, served alone, gives the state the second echoes.
    let server = server();
    let first_round = call(1, "confirm", json!({"arguments": {"secret": secret}}));
    let (_, first) = served(&server, vec![first_round.clone()]);
    let state = first[0]["result"]["requestState"]
        .as_str()
        .expect("an input_required result with a state")
        .to_owned();
    let second = call(
        2,
        "confirm",
        json!({
            "arguments": {"secret": secret},
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
            "requestState": state,
        }),
    );
    let (recorder, replies) = served(&server, vec![first_round, second]);
    assert_eq!(
        replies[1]["result"]["content"][0]["text"], "16 true",
        "{}",
        replies[1]
    );
    let spans = recorder.requests();
    assert_eq!(spans.len(), 2, "one span per round: {spans:?}");
    for (span, id) in spans.iter().zip(["1", "2"]) {
        assert_eq!(field(span, "otel.name"), Some("tools/call confirm"));
        assert_eq!(field(span, "jsonrpc.request.id"), Some(id));
        assert_eq!(
            field(span, "error.type"),
            None,
            "an input_required round is no error"
        );
        assert!(span.events.last().is_some_and(|e| e.contains("outcome=ok")));
    }
    let everything = format!("{spans:?}");
    assert!(!everything.contains(secret), "an argument was recorded");
    assert!(
        !everything.contains(&state[..24]),
        "the request state was recorded"
    );
    assert!(
        !everything.contains("Go ahead"),
        "the question was recorded"
    );
}
