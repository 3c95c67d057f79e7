//! What the targets share: a fixed clock, one runtime, the forms and handlers of a small
//! server with multi-round tools, and the signers of that server.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use typemcp_core::state::{Binding, Clock};
use typemcp_server::typemcp_core::form::form_request;
use typemcp_server::typemcp_core::protocol::{
    CallToolResult, InputRequiredResult, NumberSchema, NumberType, Outcome,
    PrimitiveSchemaDefinition, RequestedSchema, StringSchema,
};
use typemcp_server::state::{
    Continuation, DynamicForm, InputResponses, OneOf, Reply, RequestStateSigner, Round, Step,
    UrlVisit,
};
use typemcp_server::{
    Answer, ElicitForm, Email, FormChoice, McpError, PromptRoute, ResourceRoute,
    ResourceTemplateRoute, Server, TransportInfo, UriParams, tool,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

/// The fixed "now" of every signer here (Unix seconds), so tokens in seeds stay valid.
pub const NOW: u64 = 1_800_000_000;

/// The signing key of the servers.
pub const SERVER_KEY: [u8; 32] = [3u8; 32];

/// The protocol version every request declares.
pub const VERSION: &str = "2026-07-28";

/// A clock standing at [`NOW`].
pub fn clock() -> Clock {
    Arc::new(|| NOW)
}

/// The runtime every async target runs on (one thread: the fuzzer is single-threaded).
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap_or_else(|e| panic!("no runtime: {e}"))
    })
}

/// A colour, one of three.
#[derive(FormChoice, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Red.
    Red,
    /// Green.
    Green,
    /// Blue.
    Blue,
}

/// A region, with titles.
#[derive(FormChoice, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    /// Frankfurt.
    #[choice(title = "Europe (Frankfurt)")]
    EuCentral,
    /// Virginia.
    UsEast,
}

/// Confirm.
#[derive(ElicitForm, Debug)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}

/// Every kind of form field at once.
#[derive(ElicitForm, Debug)]
pub struct Profile {
    /// The name.
    #[form(min_length = 2, max_length = 8)]
    pub name: String,
    /// Where to write.
    pub contact: Email,
    /// A homepage.
    #[form(format = "uri")]
    pub homepage: Option<String>,
    /// A date.
    #[form(format = "date")]
    pub birthday: Option<String>,
    /// A time.
    #[form(format = "date-time")]
    pub meeting: Option<String>,
    /// How many.
    #[form(minimum = 1, maximum = 12)]
    pub replicas: u8,
    /// A ratio.
    #[form(minimum = -1.5, maximum = 99.5)]
    pub ratio: Option<f64>,
    /// An offset.
    pub offset: Option<i64>,
    /// Subscribe?
    #[form(default = true)]
    pub subscribe: bool,
    /// One colour.
    pub color: Color,
    /// Some regions.
    #[form(min_items = 1, max_items = 2)]
    pub regions: BTreeSet<Region>,
    /// Some colours.
    pub colors: Option<Vec<Color>>,
}

/// The hand-written form the `kinds` tool asks with `DynamicForm`.
pub fn dynamic_schema(max: u8) -> RequestedSchema {
    let mut count = NumberSchema::new(NumberType::Integer);
    count.maximum = Some(max.into());
    let mut name = StringSchema::new();
    name.max_length = Some(5);
    let properties = [
        ("name".to_owned(), PrimitiveSchemaDefinition::String(name)),
        ("count".to_owned(), PrimitiveSchemaDefinition::Number(count)),
    ];
    RequestedSchema::new(properties.into_iter().collect(), vec!["name".into()])
}

/// Where the `kinds` flow stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
pub enum Kinds {
    /// Waiting for a URL visit.
    #[awaits(approval: UrlVisit)]
    Approving,
    /// Waiting for two choices.
    #[awaits(replicas: OneOf<u8>, region: OneOf<String>)]
    Sizing,
    /// Waiting for a form built at run time.
    #[awaits(custom: DynamicForm)]
    Custom,
    /// Waiting for the derived forms.
    #[awaits(confirm: Confirm, profile: Profile)]
    Confirming {
        /// Rounds so far.
        count: u32,
    },
}

/// Echoes its text.
#[tool(read_only)]
async fn echo(
    /// What to echo.
    text: String,
    /// How many times.
    times: Option<u8>,
) -> String {
    text.repeat(usize::from(times.unwrap_or(1).min(4)))
}

/// Asks for a profile without a state enum, then greets.
#[tool]
async fn greet(answers: InputResponses) -> Result<Outcome<CallToolResult>, McpError> {
    match answers.answer::<Profile>("profile") {
        Answer::Accepted(profile) => Ok(Outcome::Complete(CallToolResult::text(format!(
            "hello {} ({} replicas)",
            profile.name, profile.replicas
        )))),
        Answer::Declined | Answer::Cancelled => Ok(Outcome::Complete(CallToolResult::text("no"))),
        Answer::Missing | Answer::Malformed(_) => answers.ask(
            InputRequiredResult::new().with_request("profile", form_request::<Profile>("Who?")),
        ),
    }
}

/// Asks the question of `kind`, then reports the typed answer.
#[tool]
async fn kinds(
    /// `url`, `choice`, `form` or `confirm`.
    kind: String,
    /// The largest choice.
    max: u8,
    round: Round<Kinds>,
) -> Step<Kinds, String> {
    match round.resume() {
        None => match kind.as_str() {
            "url" => round.ask(KindsAsking::Approving {
                approval: UrlVisit::prompt("Approve it.", "https://changes.example.com/c/1"),
            }),
            "choice" => round.ask(KindsAsking::Sizing {
                replicas: OneOf::prompt("How many?", 1..=max.max(1)),
                region: OneOf::titled(
                    "Where?",
                    [("eu".to_owned(), "Europe"), ("us".to_owned(), "US")],
                ),
            }),
            "form" => round.ask(KindsAsking::Custom {
                custom: DynamicForm::prompt(format!("Up to {max}?"), dynamic_schema(max)),
            }),
            _ => {
                let message = format!("Confirm {kind}?");
                round.ask(KindsAsking::Confirming {
                    count: 0,
                    confirm: (&message).into(),
                    profile: message.into(),
                })
            }
        },
        Some(KindsAnswered::Approving { approval }) => Step::done(format!("{approval:?}")),
        Some(KindsAnswered::Sizing { replicas, region }) => match (replicas, region) {
            (Reply::Accepted(OneOf(n)), Reply::Accepted(OneOf(region))) => {
                let n: u8 = n;
                Step::done(format!("{n} in {region}"))
            }
            _ => Step::done("no size".to_owned()),
        },
        Some(KindsAnswered::Custom { custom }) => match custom {
            Reply::Accepted(DynamicForm(values)) => Step::done(Value::Object(values).to_string()),
            Reply::Declined | Reply::Cancelled => Step::done("no form".to_owned()),
        },
        Some(KindsAnswered::Confirming {
            count,
            confirm,
            profile,
        }) => match (confirm, profile) {
            (Reply::Accepted(Confirm { ok: true }), Reply::Accepted(p)) if count < 2 => {
                let message = format!("Again, {}?", p.name);
                round.ask(KindsAsking::Confirming {
                    count: count + 1,
                    confirm: (&message).into(),
                    profile: message.into(),
                })
            }
            (confirm, _) => Step::done(format!("{count}: {confirm:?}")),
        },
    }
}

/// A server with plain, multi-round and form tools, a prompt, a resource and a template,
/// whose signer (of [`SERVER_KEY`], its clock at [`NOW`]) is adjusted by `signer`.
pub fn server(signer: impl FnOnce(RequestStateSigner) -> RequestStateSigner) -> Server {
    let base = RequestStateSigner::new(SERVER_KEY)
        .unwrap_or_else(|e| panic!("{e}"))
        .clock(clock());
    Server::builder()
        .name("fuzz")
        .version("0.0.0")
        .tool(echo)
        .tool(greet)
        .tool(kinds)
        .prompt(PromptRoute::new("hello", || async { "hello" }).description("Says hello."))
        .resource(ResourceRoute::new("notes://index", "index", || async {
            "1, 2"
        }))
        .resource(ResourceTemplateRoute::new(
            "notes://{owner}/{id}.txt",
            "note",
            |UriParams(params): UriParams<BTreeMap<String, String>>| async move {
                format!("{params:?}")
            },
        ))
        .request_state_signer(signer(base))
        .build()
        .unwrap_or_else(|e| panic!("the fuzz server does not build: {e}"))
}

/// A binding fixed for every request, so a state pasted into any fuzzed request resumes.
pub fn fixed_binding() -> Binding {
    Binding::from_parts(["fuzz"])
}

/// A `tools/call` request as a client declaring forms and URLs sends it; `extra` members are
/// added to `params`.
pub fn call(tool: &str, arguments: Value, extra: Value) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    if let (Some(params), Some(extra)) = (message["params"].as_object_mut(), extra.as_object()) {
        for (key, value) in extra {
            params.insert(key.clone(), value.clone());
        }
    }
    message["params"]["_meta"] = meta();
    message
}

/// The `_meta` of a 2026-07-28 request from a client that answers forms and URLs.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
    })
}

/// Sends `message` to `server` in process; the reply, if any.
pub fn send(server: &Server, message: &[u8]) -> Option<Vec<u8>> {
    runtime()
        .block_on(server.handle_message(message, TransportInfo::in_process()))
        .map(|b| b.to_vec())
}

/// The `requestState` of the reply to `message` (the first round of a flow).
pub fn first_state(server: &Server, message: &Value) -> String {
    let bytes = serde_json::to_vec(message).unwrap_or_default();
    let reply: Value = send(server, &bytes)
        .and_then(|r| serde_json::from_slice(&r).ok())
        .unwrap_or_default();
    match reply["result"]["requestState"].as_str() {
        Some(state) => state.to_owned(),
        None => panic!("no requestState in {reply}"),
    }
}

/// Checks that `reply` is one JSON-RPC response as the 2026-07-28 schema has it: valid JSON,
/// `jsonrpc: "2.0"`, exactly one of `result` and `error` (an error with an integer code and
/// a message), and an `id` (a string or an integer) unless it is an error whose request's id
/// could not be read (the schema's `JSONRPCErrorResponse` makes it optional, never null).
pub fn assert_response(reply: &[u8]) -> Value {
    let value: Value = match serde_json::from_slice(reply) {
        Ok(value) => value,
        Err(e) => panic!(
            "reply is not JSON ({e}): {}",
            String::from_utf8_lossy(reply)
        ),
    };
    assert_eq!(value["jsonrpc"], "2.0", "{value}");
    match value.get("id") {
        None => assert!(
            value.get("error").is_some(),
            "a result without an id: {value}"
        ),
        Some(id) => assert!(id.is_string() || id.is_i64() || id.is_u64(), "{value}"),
    }
    match (value.get("result"), value.get("error")) {
        (Some(result), None) => assert!(result.is_object(), "{value}"),
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{value}");
            assert!(error["message"].is_string(), "{value}");
        }
        _ => panic!("not exactly one of result and error: {value}"),
    }
    value
}
