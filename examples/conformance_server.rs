//! The fixture server for the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, `--requirements 2026-07-28` and
//! `--requirements 2025-11-25`), written the idiomatic way: plain async functions with
//! `#[tool]`, `#[prompt]` and `#[resource]`.
//!
//! Tools that need input from the client are written once, as multi-round handlers
//! (`Round` / `input_required`): a 2026-07-28 client fulfils their rounds itself, and on a
//! 2025-11-25 session the server pushes each question to the client as a real
//! `elicitation/create` or `sampling/createMessage` request and runs the handler again with
//! the answers.
//!
//! Serves every tool, prompt and resource the suite expects on
//! `http://127.0.0.1:<port>/mcp` (`--port`, default 3000), or over stdio with `--stdio`
//! (the integration tests drive both). With `--redis URL`, its 2025-11-25 sessions are kept
//! in that Redis, so that several instances behind a load balancer serve them.
//!
//! ```text
//! cargo run --example conformance_server -- --port 3000
//! cargo run --example conformance_server -- --port 3001 --redis redis://127.0.0.1:6379/
//! cargo run --example conformance_server -- --stdio
//! ```

// The suite still exercises sampling and roots, deprecated by SEP-2577.
#![allow(deprecated)]

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_server::state::{Continuation, RawInputResponses, Reply, Roots, Round, Sampled, Step};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::transport::http::session_store::RedisSessionStore;
use typemcp_server::typemcp_core::form::form_request;
use typemcp_server::typemcp_core::protocol::{
    CallToolResult, ContentBlock, GetPromptResult, InputRequiredResult, LoggingLevel, Outcome,
    PromptMessage, ResourceContents, Role,
};
use typemcp_server::{
    Answer, CompletionRequest, ElicitForm, FormChoice, McpError, RequestContext, Server, ToolRoute,
    prompt, resource, tool,
};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A tiny WAV file (RIFF header with one silent sample).
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

/// Returns a simple text response.
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[tool]
async fn test_image_content() -> ContentBlock {
    ContentBlock::image(PNG, "image/png")
}

/// Returns audio.
#[tool]
async fn test_audio_content() -> ContentBlock {
    ContentBlock::audio(WAV, "audio/wav")
}

/// Returns an embedded resource.
#[tool]
async fn test_embedded_resource() -> ContentBlock {
    ContentBlock::resource(ResourceContents::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and an embedded resource.
#[tool]
async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG, "image/png"),
        ContentBlock::resource(ResourceContents::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )),
    ]
}

/// Reports progress 0, 50 and 100 of 100.
#[tool]
async fn test_tool_with_progress(ctx: RequestContext) -> &'static str {
    for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.report_progress(progress, Some(100.0), None).await;
    }
    "Progress complete."
}

/// Always fails with a tool execution error.
#[tool]
async fn test_error_handling() -> CallToolResult {
    CallToolResult::error("This tool intentionally returns an error for testing")
}

/// Needs the client's sampling capability.
#[tool]
async fn test_missing_capability(ctx: RequestContext) -> Result<&'static str, McpError> {
    if !ctx.client_capabilities().supports_sampling() {
        return Err(McpError::missing_client_capability(
            json!({ "sampling": {} }),
        ));
    }
    Ok("The client declared sampling.")
}

/// Streams a notification, then asks for input.
#[tool]
async fn test_streaming_elicitation(
    ctx: RequestContext,
    answers: RawInputResponses,
) -> Outcome<CallToolResult> {
    ctx.report_progress(0.0, Some(1.0), Some("asking".into()))
        .await;
    match answers.answer::<NameForm>("user_name") {
        Answer::Accepted(form) => {
            Outcome::Complete(CallToolResult::text(format!("Hello, {}!", form.name)))
        }
        Answer::Declined | Answer::Cancelled => {
            Outcome::Complete(CallToolResult::text("No name given."))
        }
        Answer::Missing | Answer::Malformed(_) => Outcome::InputRequired(
            InputRequiredResult::new()
                .with_request("user_name", form_request::<NameForm>("What is your name?")),
        ),
    }
}

/// The user's name.
#[derive(ElicitForm)]
struct NameForm {
    /// Your name.
    name: String,
}

/// Logs three messages when the request asks for logs.
#[tool]
async fn test_logging_tool(ctx: RequestContext) -> &'static str {
    for step in ["starting", "working", "done"] {
        ctx.log(
            LoggingLevel::Info,
            Some("conformance"),
            json!({ "step": step }),
        )
        .await;
    }
    "Logged three messages."
}

/// Logs three messages at info level, 50 ms apart (the 2025-11-25 suite's logging tool: the
/// client chose its level with `logging/setLevel`).
#[tool]
async fn test_tool_with_logging(ctx: RequestContext) -> &'static str {
    let steps = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, step) in steps.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.log(LoggingLevel::Info, Some("conformance"), json!(step))
            .await;
    }
    "Logging complete."
}

/// Notifies listeners that the tool list changed.
#[tool]
async fn test_trigger_tool_change(ctx: RequestContext) -> &'static str {
    ctx.server().notify_tools_list_changed();
    "Tool list change notified."
}

/// Notifies listeners that the prompt list changed.
#[tool]
async fn test_trigger_prompt_change(ctx: RequestContext) -> &'static str {
    ctx.server().notify_prompts_list_changed();
    "Prompt list change notified."
}

/// A tool whose input schema is written by hand, to show every JSON Schema 2020-12 keyword
/// survives listing.
fn json_schema_2020_12_tool() -> ToolRoute {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"}, "email": {"type": "string"}},
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else {
        unreachable!("a JSON object literal")
    };
    ToolRoute::new("json_schema_2020_12_tool", || async { "ok" })
        .description("Tool with JSON Schema 2020-12 features")
        .input_schema(schema)
}

// ----- The tasks extension (SEP-2663) -----
//
// A task tool runs as a task for a client that declared `io.modelcontextprotocol/tasks`, as
// soon as its handler waits; what it asks before waiting is an ordinary multi-round request.

/// Greets by name (never a task).
#[tool]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Sleeps `seconds`, then reports; settles as cancelled when cancelled.
#[tool(task)]
async fn slow_compute(
    ctx: RequestContext,
    seconds: f64,
    label: Option<String>,
) -> Result<String, String> {
    let label = label.unwrap_or_else(|| "compute".to_owned());
    ctx.report_status(format!("{label}: working")).await;
    let sleep = tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0)));
    tokio::select! {
        () = sleep => Ok(format!("{label}: computed after {seconds} s")),
        () = ctx.cancellation().cancelled() => Err(format!("{label}: cancelled")),
    }
}

/// Fails as a tool (`isError`) after about a second; only ever runs as a task.
#[tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed: the input data is invalid".to_owned())
}

/// Fails with a JSON-RPC error (a protocol error) after a moment.
#[tool(task)]
async fn protocol_error_job() -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Err(McpError::internal("The job's worker crashed"))
}

/// Confirm the deletion.
#[derive(ElicitForm)]
struct DeleteForm {
    /// Delete it?
    confirm: bool,
}

/// Where a deletion stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum DeleteFlow {
    #[awaits(confirm: DeleteForm)]
    Confirming { filename: String },
}

/// Looks the file up, then asks before deleting it.
#[tool(task)]
async fn confirm_delete(filename: String, round: Round<DeleteFlow>) -> Step<DeleteFlow, String> {
    match round.resume() {
        None => {
            tokio::time::sleep(Duration::from_millis(50)).await;
            round.ask(DeleteFlowAsking::Confirming {
                confirm: format!("Delete {filename}?").into(),
                filename,
            })
        }
        Some(DeleteFlowAnswered::Confirming {
            confirm: Reply::Accepted(DeleteForm { confirm: true }),
            filename,
        }) => Step::done(format!("Deleted {filename}.")),
        Some(DeleteFlowAnswered::Confirming { filename, .. }) => {
            Step::done(format!("Kept {filename}."))
        }
    }
}

/// One of two details.
#[derive(ElicitForm)]
struct DetailForm {
    /// A name.
    name: String,
    /// Confirm?
    confirm: bool,
}

/// Two questions at once.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum TwoQuestions {
    #[awaits(first: DetailForm, second: DetailForm)]
    Asking,
}

/// Asks two questions at once, after a moment's work.
#[tool(task)]
async fn multi_input(round: Round<TwoQuestions>) -> Step<TwoQuestions, String> {
    match round.resume() {
        None => {
            tokio::time::sleep(Duration::from_millis(50)).await;
            round.ask(TwoQuestionsAsking::Asking {
                first: "Two details, please".into(),
                second: "Two details, please".into(),
            })
        }
        Some(TwoQuestionsAnswered::Asking {
            first: Reply::Accepted(first),
            second: Reply::Accepted(second),
        }) => Step::done(format!(
            "Got {} ({}) and {} ({}).",
            first.name, first.confirm, second.name, second.confirm
        )),
        Some(TwoQuestionsAnswered::Asking { .. }) => Step::done("Not both answered."),
    }
}

/// Who to work for.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum NamedJob {
    #[awaits(user_name: NameForm)]
    Naming,
}

/// Asks for a name as a multi-round request, then goes on as a task.
#[tool(task = "required")]
async fn test_tool_with_task(round: Round<NamedJob>) -> Step<NamedJob, String> {
    match round.resume() {
        None => round.ask(NamedJobAsking::Naming {
            user_name: "What is your name?".into(),
        }),
        Some(NamedJobAnswered::Naming {
            user_name: Reply::Accepted(NameForm { name }),
        }) => {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Step::done(format!("Finished the job for {name}."))
        }
        Some(NamedJobAnswered::Naming { .. }) => Step::done("No name given."),
    }
}

// ----- Multi-round requests (SEP-2322) -----

/// Please confirm.
#[derive(ElicitForm)]
struct ConfirmForm {
    /// Confirm?
    ok: bool,
}

/// A favourite colour.
#[derive(ElicitForm)]
struct ColorForm {
    /// Your favourite colour.
    color: String,
}

/// The context a prompt should use.
#[derive(ElicitForm)]
struct ContextForm {
    /// Context for the prompt.
    context: String,
}

/// Asks for a name; completes from `inputResponses` alone (no state needed).
#[tool]
async fn test_input_required_result_elicitation(
    answers: RawInputResponses,
) -> Outcome<CallToolResult> {
    match answers.answer::<NameForm>("user_name") {
        Answer::Accepted(form) => {
            Outcome::Complete(CallToolResult::text(format!("Hello, {}!", form.name)))
        }
        Answer::Declined | Answer::Cancelled => {
            Outcome::Complete(CallToolResult::text("No name given."))
        }
        Answer::Missing | Answer::Malformed(_) => Outcome::InputRequired(
            InputRequiredResult::new()
                .with_request("user_name", form_request::<NameForm>("What is your name?")),
        ),
    }
}

/// Asks the client's model a question (sampling, deprecated).
#[tool]
async fn test_input_required_result_sampling(
    answers: RawInputResponses,
) -> Outcome<CallToolResult> {
    match answers.answer::<Sampled>("sample_request") {
        Answer::Accepted(reply) => Outcome::Complete(CallToolResult::text(format!(
            "Sampling result: {}",
            reply.text()
        ))),
        _ => Outcome::InputRequired(InputRequiredResult::new().with_request(
            "sample_request",
            Sampled::request("What is the capital of France?"),
        )),
    }
}

/// Asks for the client's roots (deprecated).
#[tool]
async fn test_input_required_result_list_roots(
    answers: RawInputResponses,
) -> Outcome<CallToolResult> {
    match answers.answer::<Roots>("roots_request") {
        Answer::Accepted(Roots(list)) => {
            let uris: Vec<&str> = list.roots.iter().map(|r| r.uri.as_str()).collect();
            Outcome::Complete(CallToolResult::text(format!("Roots: {}", uris.join(", "))))
        }
        _ => Outcome::InputRequired(
            InputRequiredResult::new().with_request("roots_request", Roots::request()),
        ),
    }
}

/// A single confirmation carried in a signed state.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum ConfirmFlow {
    #[awaits(confirm: ConfirmForm)]
    Confirming,
}

/// Asks for confirmation with a signed `requestState`.
#[tool]
async fn test_input_required_result_request_state(
    round: Round<ConfirmFlow>,
) -> Step<ConfirmFlow, String> {
    confirm(round)
}

/// Like `test_input_required_result_request_state`: a tampered state is refused before it runs.
#[tool]
async fn test_input_required_result_tampered_state(
    round: Round<ConfirmFlow>,
) -> Step<ConfirmFlow, String> {
    confirm(round)
}

fn confirm(round: Round<ConfirmFlow>) -> Step<ConfirmFlow, String> {
    match round.resume() {
        None => round.ask(ConfirmFlowAsking::Confirming {
            confirm: "Please confirm".into(),
        }),
        Some(ConfirmFlowAnswered::Confirming {
            confirm: Reply::Accepted(ConfirmForm { ok: true }),
        }) => Step::done("state-ok: confirmed"),
        Some(ConfirmFlowAnswered::Confirming { .. }) => Step::done("state-ok: not confirmed"),
    }
}

/// Three kinds of question in one round.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum GatherFlow {
    #[awaits(user_name: NameForm, greeting: Sampled, client_roots: Roots)]
    Gathering,
}

/// Asks for a name, a greeting and the roots at once.
#[tool]
async fn test_input_required_result_multiple_inputs(
    round: Round<GatherFlow>,
) -> Step<GatherFlow, String> {
    match round.resume() {
        None => round.ask(GatherFlowAsking::Gathering {
            user_name: "What is your name?".into(),
            greeting: "Generate a greeting".into(),
            client_roots: "".into(),
        }),
        Some(GatherFlowAnswered::Gathering {
            user_name,
            greeting,
            client_roots,
        }) => {
            let name = user_name
                .accepted()
                .map_or_else(|| "someone".to_owned(), |n| n.name);
            let greeting = greeting
                .accepted()
                .map(|g| g.text().to_owned())
                .unwrap_or_default();
            let roots = client_roots.accepted().map_or(0, |r| r.0.roots.len());
            Step::done(format!("{greeting} {name} ({roots} roots)"))
        }
    }
}

/// Two questions, one after the other; the name travels in the state.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum TwoSteps {
    #[awaits(step1: NameForm)]
    AskingName,
    #[awaits(step2: ColorForm)]
    AskingColor { name: String },
}

/// Asks for a name, then a colour.
#[tool]
async fn test_input_required_result_multi_round(round: Round<TwoSteps>) -> Step<TwoSteps, String> {
    match round.resume() {
        None => round.ask(TwoStepsAsking::AskingName {
            step1: "Step 1: What is your name?".into(),
        }),
        Some(TwoStepsAnswered::AskingName {
            step1: Reply::Accepted(NameForm { name }),
        }) => round.ask(TwoStepsAsking::AskingColor {
            name,
            step2: "Step 2: What is your favorite color?".into(),
        }),
        Some(TwoStepsAnswered::AskingColor {
            name,
            step2: Reply::Accepted(ColorForm { color }),
        }) => Step::done(format!("Multi-round complete for {name} who likes {color}")),
        Some(_) => Step::done("Multi-round cancelled."),
    }
}

/// Asks only for what this request's client can answer.
#[tool]
async fn test_input_required_result_capabilities(
    ctx: RequestContext,
    answers: RawInputResponses,
) -> Result<Outcome<CallToolResult>, McpError> {
    if let Answer::Accepted(reply) = answers.answer::<Sampled>("sample_input") {
        return Ok(Outcome::Complete(CallToolResult::text(format!(
            "Sampled: {}",
            reply.text()
        ))));
    }
    if let Answer::Accepted(form) = answers.answer::<NameForm>("user_name") {
        return Ok(Outcome::Complete(CallToolResult::text(format!(
            "Hello, {}!",
            form.name
        ))));
    }
    let caps = ctx.client_capabilities();
    let ask = if caps.supports_elicitation_form() {
        InputRequiredResult::new()
            .with_request("user_name", form_request::<NameForm>("What is your name?"))
    } else if caps.supports_sampling() {
        InputRequiredResult::new().with_request("sample_input", Sampled::request("Say hello."))
    } else {
        return Err(McpError::missing_client_capability(
            json!({ "elicitation": {} }),
        ));
    };
    Ok(Outcome::InputRequired(ask))
}

/// A prompt that asks for its context first.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum PromptFlow {
    #[awaits(user_context: ContextForm)]
    AskingContext,
}

/// A prompt built from context the user gives in a second round.
#[prompt]
async fn test_input_required_result_prompt(
    round: Round<PromptFlow>,
) -> Step<PromptFlow, Vec<PromptMessage>> {
    match round.resume() {
        None => round.ask(PromptFlowAsking::AskingContext {
            user_context: "What context should the prompt use?".into(),
        }),
        Some(PromptFlowAnswered::AskingContext {
            user_context: Reply::Accepted(ContextForm { context }),
        }) => Step::done(vec![PromptMessage::user(format!(
            "Use this context: {context}"
        ))]),
        Some(_) => Step::done(vec![PromptMessage::user("No context given.")]),
    }
}

/// The same flow on a resource: read it, confirm, get the contents.
#[resource(
    uri = "test://input-required/secret",
    name = "confirmed-secret",
    mime_type = "text/plain"
)]
async fn confirmed_secret(round: Round<ConfirmFlow>) -> Step<ConfirmFlow, String> {
    match round.resume() {
        None => round.ask(ConfirmFlowAsking::Confirming {
            confirm: "Reveal the resource?".into(),
        }),
        Some(ConfirmFlowAnswered::Confirming {
            confirm: Reply::Accepted(ConfirmForm { ok: true }),
        }) => Step::done("The resource, after confirmation."),
        Some(_) => Step::fail(McpError::invalid_request(
            "Reading the resource was not confirmed",
        )),
    }
}

// ----- The 2025-11-25 suite's tools that ask the client (sampling, elicitation, SEP-1034
// defaults, SEP-1330 enums), written as multi-round handlers like every other -----

/// Waiting for the client's model.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum SamplingFlow {
    #[awaits(reply: Sampled)]
    Sampling,
}

/// Asks the client's model to answer `prompt` (sampling, deprecated); a client without the
/// sampling capability gets an error.
#[tool]
async fn test_sampling(
    /// The prompt to send to the model.
    prompt: String,
    round: Round<SamplingFlow>,
) -> Step<SamplingFlow, String> {
    match round.resume() {
        None => round.ask(SamplingFlowAsking::Sampling {
            reply: prompt.into(),
        }),
        Some(SamplingFlowAnswered::Sampling {
            reply: Reply::Accepted(reply),
        }) => Step::done(format!("LLM response: {}", reply.text())),
        Some(SamplingFlowAnswered::Sampling { .. }) => Step::done("LLM response: none"),
    }
}

/// Who the user is.
#[derive(ElicitForm)]
struct UserForm {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Waiting for the user's details.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum UserFlow {
    #[awaits(user: UserForm)]
    Asking,
}

/// `action=…, content=…`: how an elicitation ended, as the 2025-11-25 suite's tools report it.
fn elicitation_outcome<T>(reply: Reply<T>, content: impl FnOnce(T) -> Value) -> String {
    match reply {
        Reply::Accepted(form) => format!("action=accept, content={}", content(form)),
        Reply::Declined => "action=decline, content={}".to_owned(),
        Reply::Cancelled => "action=cancel, content={}".to_owned(),
    }
}

/// Asks the user for a name and an email address with `message`; a client without the
/// elicitation capability gets an error.
#[tool]
async fn test_elicitation(
    /// The message to show the user.
    message: String,
    round: Round<UserFlow>,
) -> Step<UserFlow, String> {
    match round.resume() {
        None => round.ask(UserFlowAsking::Asking {
            user: message.into(),
        }),
        Some(UserFlowAnswered::Asking { user }) => {
            let outcome = elicitation_outcome(
                user,
                |u: UserForm| json!({"username": u.username, "email": u.email}),
            );
            Step::done(format!("User response: {outcome}"))
        }
    }
}

#[derive(FormChoice)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034).
#[derive(ElicitForm)]
struct DefaultsForm {
    /// Your name.
    #[form(default = "John Doe")]
    name: String,
    /// Your age.
    #[form(minimum = 0, maximum = 150, default = 30)]
    age: u8,
    /// Your score.
    #[form(minimum = 0.0, maximum = 100.0, default = 95.5)]
    score: f64,
    /// Account status.
    #[form(default = Status::Active)]
    status: Status,
    /// Verified?
    #[form(default = true)]
    verified: bool,
}

/// Waiting for the reviewed details.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum DefaultsFlow {
    #[awaits(defaults: DefaultsForm)]
    Reviewing,
}

/// Asks a form whose fields all have defaults.
#[tool]
async fn test_elicitation_sep1034_defaults(
    round: Round<DefaultsFlow>,
) -> Step<DefaultsFlow, String> {
    match round.resume() {
        None => round.ask(DefaultsFlowAsking::Reviewing {
            defaults: "Please review your details".into(),
        }),
        Some(DefaultsFlowAnswered::Reviewing { defaults }) => {
            let outcome = elicitation_outcome(defaults, |f: DefaultsForm| {
                json!({"name": f.name, "age": f.age, "score": f.score,
                    "status": f.status.value(), "verified": f.verified})
            });
            Step::done(format!("Elicitation completed: {outcome}"))
        }
    }
}

#[derive(FormChoice, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(FormChoice, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum Titled {
    #[choice(title = "First Option")]
    Value1,
    #[choice(title = "Second Option")]
    Value2,
    #[choice(title = "Third Option")]
    Value3,
}

/// The deprecated `enumNames` spelling's options.
#[derive(FormChoice)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    #[choice(title = "Option One")]
    Opt1,
    #[choice(title = "Option Two")]
    Opt2,
    #[choice(title = "Option Three")]
    Opt3,
}

#[derive(FormChoice, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    #[choice(title = "First Choice")]
    Value1,
    #[choice(title = "Second Choice")]
    Value2,
    #[choice(title = "Third Choice")]
    Value3,
}

/// Every way of offering choices (SEP-1330).
#[derive(ElicitForm)]
#[allow(non_snake_case)]
struct EnumsForm {
    /// Choose an option.
    untitledSingle: Option<Untitled>,
    /// Choose a titled option.
    titledSingle: Option<Titled>,
    /// Choose a legacy option.
    #[form(legacy_enum_names)]
    legacyEnum: Option<Legacy>,
    /// Choose options.
    untitledMulti: Option<Vec<Untitled>>,
    /// Choose titled options.
    titledMulti: Option<std::collections::BTreeSet<TitledChoice>>,
}

/// Waiting for the choices.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum EnumsFlow {
    #[awaits(choices: EnumsForm)]
    Choosing,
}

/// Asks a form with every kind of choice.
#[tool]
async fn test_elicitation_sep1330_enums(round: Round<EnumsFlow>) -> Step<EnumsFlow, String> {
    match round.resume() {
        None => round.ask(EnumsFlowAsking::Choosing {
            choices: "Choose your options".into(),
        }),
        Some(EnumsFlowAnswered::Choosing { choices }) => {
            let outcome = elicitation_outcome(choices, |f: EnumsForm| {
                json!({
                    "untitledSingle": f.untitledSingle.map(|c| c.value()),
                    "titledSingle": f.titledSingle.map(|c| c.value()),
                    "legacyEnum": f.legacyEnum.map(|c| c.value()),
                    "untitledMulti": f.untitledMulti
                        .map(|v| v.iter().map(FormChoice::value).collect::<Vec<_>>()),
                    "titledMulti": f.titledMulti
                        .map(|v| v.iter().map(FormChoice::value).collect::<Vec<_>>()),
                })
            });
            Step::done(format!("Elicitation completed: {outcome}"))
        }
    }
}

// ----- SEP-2243: arguments mirrored into `Mcp-Param-*` headers -----
// `http-custom-header-server-validation` calls the first tool that has an `x-mcp-header`
// string property, with that argument (plain, base64-encoded, missing its header) and a
// default for every other required argument.

/// Runs a query in a region; the region (and the optional shard and dry-run flag) travel as
/// `Mcp-Param-*` headers too, so that a proxy can route on them.
#[tool(read_only)]
async fn test_param_headers(
    /// The region to run in, mirrored as `Mcp-Param-Region`.
    #[arg(header = "Region")]
    region: String,
    /// The query.
    query: Option<String>,
    /// The shard, mirrored as `Mcp-Param-Shard`.
    #[arg(header = "Shard")]
    shard: Option<u32>,
    /// Whether to only plan the query, mirrored as `Mcp-Param-Dry-Run`.
    #[arg(header = "Dry-Run")]
    dry_run: Option<bool>,
) -> String {
    let query = query.unwrap_or_default();
    let shard = shard.map_or_else(|| "any".to_owned(), |s| s.to_string());
    let dry_run = dry_run.unwrap_or(false);
    format!("region={region} shard={shard} dry_run={dry_run} query={query}")
}

// ----- end of SEP-2243 -----

// ----- SSE polling (SEP-1699): 2025-11-25 sessions only -----

/// Tests SSE stream disconnection and client reconnection (SEP-1699): closes the stream
/// mid-call, and answers once the client reconnected with `Last-Event-ID`.
#[tool]
async fn test_reconnection(ctx: RequestContext) -> &'static str {
    // A no-op over stdio and on the 2026-07-28 wire: the call then simply answers.
    ctx.close_sse_stream().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully. If you received this, the client properly \
     reconnected after stream closure."
}

/// How long a client waits before reconnecting to a stream the server closed.
const SSE_RETRY: Duration = Duration::from_millis(500);

// ----- end of SSE polling -----

/// A simple prompt without arguments.
#[prompt]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

async fn complete_arg1(request: CompletionRequest) -> Vec<String> {
    ["paris", "park", "party", "test", "testing"]
        .iter()
        .filter(|v| v.starts_with(&request.value))
        .map(|v| (*v).to_owned())
        .collect()
}

/// A prompt with two required arguments.
#[prompt(complete(arg1 = complete_arg1))]
async fn test_prompt_with_arguments(
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource.
#[prompt]
#[allow(non_snake_case)]
async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed.
    resourceUri: String,
) -> GetPromptResult {
    GetPromptResult::new(vec![
        PromptMessage::new(
            Role::User,
            ContentBlock::resource(ResourceContents::text(
                resourceUri,
                "text/plain",
                "Embedded resource content for testing.",
            )),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ])
}

/// A prompt with an image.
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// A static text resource.
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
async fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource.
#[resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
async fn static_binary() -> ResourceContents {
    ResourceContents::blob("test://static-binary", "image/png", PNG)
}

/// A resource clients can subscribe to.
#[resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
async fn watched_resource() -> &'static str {
    "Watched resource content."
}

/// A resource template with an id.
#[resource(
    template = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
async fn template_data(id: String) -> ResourceContents {
    let body = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
    ResourceContents::text(
        format!("test://template/{id}/data"),
        "application/json",
        body.to_string(),
    )
}

/// Every registration of the fixture; `pub(crate)` so that `tests/end_to_end/http.rs` and `tests/end_to_end/stdio.rs`
/// can include this file as a module and build the same server in-process.
pub(crate) fn server() -> Result<Server, typemcp_server::BuildError> {
    Server::builder()
        .name("mcp-rust-conformance-server")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Fixture server for the MCP conformance suite.")
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_tool_with_progress)
        .tool(test_error_handling)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_logging_tool)
        .tool(test_tool_with_logging)
        .tool(test_trigger_tool_change)
        .tool(test_trigger_prompt_change)
        .tool(json_schema_2020_12_tool())
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_capabilities)
        .tool(test_sampling)
        .tool(test_elicitation)
        .tool(test_elicitation_sep1034_defaults)
        .tool(test_elicitation_sep1330_enums)
        // The tasks extension (SEP-2663).
        .tool(greet)
        .tool(slow_compute)
        .tool(failing_job)
        .tool(protocol_error_job)
        .tool(confirm_delete)
        .tool(multi_input)
        .tool(test_tool_with_task)
        // SEP-2243 (`Mcp-Param-*` headers).
        .tool(test_param_headers)
        // SSE polling (SEP-1699).
        .tool(test_reconnection)
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .prompt(test_input_required_result_prompt)
        .resource(static_text)
        .resource(static_binary)
        .resource(watched_resource)
        .resource(template_data)
        .resource(confirmed_secret)
        // The skills extension's scenarios (sep-2640-*): the skills example's folder.
        .skills_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills"))
        .build()
}

/// Where to serve.
enum Mode {
    /// HTTP on this port, sessions in the Redis at this URL if any.
    Http(u16, Option<String>),
    Stdio,
}

fn mode() -> Result<Mode, String> {
    let mut args = std::env::args().skip(1);
    let mut mode = Mode::Http(3000, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                let port = value
                    .parse()
                    .map_err(|_| format!("invalid port {value:?}"))?;
                let redis = match mode {
                    Mode::Http(_, redis) => redis,
                    Mode::Stdio => None,
                };
                mode = Mode::Http(port, redis);
            }
            "--redis" => {
                let url = args.next().ok_or("--redis needs a URL")?;
                let port = match mode {
                    Mode::Http(port, _) => port,
                    Mode::Stdio => return Err("--redis serves HTTP, not --stdio".to_owned()),
                };
                mode = Mode::Http(port, Some(url));
            }
            "--stdio" => mode = Mode::Stdio,
            other => {
                return Err(format!(
                    "unknown argument {other:?} (expected --port N, --redis URL or --stdio)"
                ));
            }
        }
    }
    Ok(mode)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr (stdout carries the protocol over stdio); `RUST_LOG=typemcp_server=debug`
    // shows every request served.
    typemcp_server::logging::init();
    let mode = mode()?;
    let server = server()?;
    match mode {
        Mode::Http(port, redis) => {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
            let mut config = HttpConfig::default().sse_retry(SSE_RETRY);
            if let Some(url) = redis {
                config = config.session_store(RedisSessionStore::connect(&url).await?);
            }
            server
                .serve_http_on(
                    listener,
                    config,
                    typemcp_server::transport::shutdown_signal(),
                )
                .await?;
        }
        Mode::Stdio => server.serve_stdio().await?,
    }
    Ok(())
}
