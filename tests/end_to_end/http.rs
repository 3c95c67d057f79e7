//! Tests of the Streamable HTTP transport, in-process: the `conformance_server` example's
//! registrations (its file included as a module) are built into a server, one per test, and
//! each request goes through [`Server::http_service`] as a tower `Service` (`oneshot`), with
//! the headers a conforming client sends (`Host` included).
//!
//! Covered: what the HTTP wire shows of the happy paths (the calls themselves run through
//! `typemcp-client` on every wire in `tests/end_to_end/client_examples.rs`), progress and log
//! notifications on SSE streams,
//! `subscriptions/listen`, cancellation by dropping a stream, and case by case
//! ([`Refusals`]) the way bad input is refused: HTTP status, JSON-RPC error code, message and
//! id, and a server that keeps serving. One smoke test spawns the example binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::Duration;

use crate::common::code::*;
use crate::common::*;
use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderMap, Method};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use serde_json::{Value, json};
use sse_stream::SseStream;
use tower::ServiceExt;
use typemcp_server::Server;

/// A request or response body.
type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// The fixture server, answering in-process through its HTTP service.
fn app() -> Server {
    crate::fixture::server().expect("the fixture server builds")
}

/// One HTTP request to the MCP endpoint: method, headers and body, adjustable per test.
#[derive(Debug)]
struct Post {
    method: Method,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Post {
    /// A POST of `body` with the headers a conforming client sends.
    fn new(body: &Value) -> Self {
        let mut post = Self::raw(body.to_string());
        for (name, value) in mcp_headers(body) {
            post = post.header(name, value);
        }
        post
    }

    /// A POST of arbitrary bytes with only `Host`, `Content-Type` and `Accept` set.
    fn raw(body: impl Into<Vec<u8>>) -> Self {
        let (method, headers) = (Method::POST, Vec::new());
        let post = Self {
            method,
            headers,
            body: body.into(),
        };
        let post = post.header("Host", "127.0.0.1");
        let post = post.header("Content-Type", "application/json");
        post.header("Accept", "application/json, text/event-stream")
    }

    /// Sets (or replaces) a header.
    fn header(self, name: &str, value: &str) -> Self {
        let mut post = self.without(name);
        post.headers.push((name.to_owned(), value.to_owned()));
        post
    }

    /// Removes a header.
    fn without(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Sends the request with `body` instead of its own; the response once its head is ready.
    async fn open_with(self, server: &Server, body: Body) -> http::Response<Body> {
        let mut request = http::Request::builder().method(self.method).uri("/");
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let answer = server.http_service().oneshot(request.body(body).unwrap());
        let response = tokio::time::timeout(READ_TIMEOUT, answer).await;
        let response = response.expect("the server answered in time").unwrap();
        response.map(|body| body.map_err(std::io::Error::other).boxed_unsync())
    }

    /// Sends the request and returns the response once its head is ready.
    async fn open(self, server: &Server) -> http::Response<Body> {
        let body = Full::new(Bytes::from(self.body.clone()));
        let body = body.map_err(|never| match never {}).boxed_unsync();
        self.open_with(server, body).await
    }

    /// Sends the request and reads the whole response.
    async fn send(self, server: &Server) -> Reply {
        let (parts, body) = self.open(server).await.into_parts();
        let body = tokio::time::timeout(READ_TIMEOUT, body.collect()).await;
        let body = body.expect("the whole body in time").unwrap().to_bytes();
        let body = String::from_utf8(body.to_vec()).expect("a UTF-8 body");
        let (status, headers) = (parts.status.as_u16(), parts.headers);
        let content_type = headers.get("content-type");
        let content_type = content_type.map(|v| v.to_str().unwrap());
        let messages = messages_of(content_type, &body);
        Reply {
            status,
            headers,
            body,
            messages,
        }
    }
}

/// A complete HTTP response and the JSON-RPC messages it carried.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: HeaderMap,
    body: String,
    messages: Vec<Value>,
}

impl Reply {
    /// A header's value.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    /// Whether the response is a plain `application/json` with one message.
    fn is_plain(&self) -> bool {
        let json = self.header("content-type") == Some("application/json");
        json && self.messages.len() == 1
    }

    /// The single JSON message of a plain `application/json` response.
    #[track_caller]
    fn json(&self) -> &Value {
        assert!(self.is_plain(), "one plain JSON message: {self:?}");
        &self.messages[0]
    }

    /// The final response of a 200 and the notifications before it on the stream.
    #[track_caller]
    fn split_ok(&self) -> (&Value, &[Value]) {
        assert_eq!(self.status, 200, "{self:?}");
        self.messages.split_last().expect("a response")
    }
}

/// Posts `body` (with conforming headers) and returns the reply, checked to be a 200.
async fn send_ok(server: &Server, body: &Value) -> Reply {
    let reply = Post::new(body).send(server).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    reply
}

/// Posts `body` (with conforming headers) and returns the successful result.
async fn call_ok(server: &Server, body: &Value) -> Value {
    let reply = send_ok(server, body).await;
    assert_result(reply.split_ok().0, &body["id"]).clone()
}

/// The text of a successful call of `tool` (no arguments) as request `id`.
async fn call_text(server: &Server, id: &str, tool: &str) -> String {
    tool_text(&call_ok(server, &call_tool(id, tool, json!({}))).await)
}

/// The server answers a well-formed request after whatever the test did.
async fn assert_still_serving(server: &Server) {
    let result = call_ok(server, &discover("still-serving")).await;
    assert!(result["supportedVersions"].is_array(), "{result}");
}

/// An open SSE response read event by event.
struct EventStream(SseStream<Body>);

impl EventStream {
    /// Posts `body` and checks the answer is a 200 SSE stream.
    async fn open(server: &Server, body: &Value) -> Self {
        let response = Post::new(body).open(server).await;
        let content_type = response.headers()["content-type"].to_str().unwrap();
        let sse = content_type.starts_with("text/event-stream");
        let ok = sse && response.status() == 200;
        assert!(ok, "not an SSE stream: {response:?}");
        Self(SseStream::new(response.into_body()))
    }

    /// The next message within `timeout`; `None` if none arrived. Panics if the stream ends.
    async fn next_within(&mut self, timeout: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let event = tokio::time::timeout_at(deadline, self.0.next()).await;
            let event = event.ok()?.expect("the SSE stream goes on");
            let event = event.expect("well-formed SSE");
            if let Some(data) = event.data {
                return Some(from_json(&data));
            }
        }
    }

    /// The next message, checked to be `method` tagged with the subscription `id`.
    async fn next_tagged(&mut self, method: &str, id: &Value) -> Value {
        let message = self.next_within(READ_TIMEOUT).await;
        let message = message.expect("an event in time");
        let tag = json!({"_meta": {META_SUBSCRIPTION_ID: id}});
        assert_includes(&message, json!({"method": method, "params": tag}));
        message
    }
}

// ----- The spawned binary -----

#[test]
fn the_spawned_example_answers_over_a_socket() {
    let server = HttpServer::start();
    let client = HttpClient::new(server.url());
    let (status, messages) = client.post(&discover(1));
    assert_eq!(status, 200, "{messages:?}");
    assert_result(&messages[0], &json!(1));
    let body = call_tool_with_meta(2, "test_tool_with_progress", json!({"progressToken": 2}));
    let (status, messages) = client.post(&body);
    assert_eq!(status, 200, "{messages:?}");
    let (response, notifications) = messages.split_last().expect("an SSE stream");
    assert_progress_reports(&progress_messages(notifications), &json!(2));
    let text = tool_text(assert_result(response, &json!(2)));
    assert_eq!(text, "Progress complete.");
}

// ----- Happy paths -----

#[tokio::test]
async fn discovery_and_lists_are_plain_json_and_the_same_every_time() {
    // What they hold (versions, capabilities, cache hints, the tools in registration order
    // with their descriptions and schemas) is pinned by the `conformance_server` snapshot of
    // tests/end_to_end/snapshots.rs, and checked on every wire by tests/end_to_end/client_examples.rs.
    let app = app();
    for method in ["server/discover", "tools/list", "prompts/list"] {
        let first = send_ok(&app, &request(1, method, json!({}))).await;
        let second = send_ok(&app, &request(1, method, json!({}))).await;
        assert_result(first.json(), &json!(1));
        assert_eq!(first.json(), second.json(), "{method}: the same every time");
        let hints = &first.json()["result"];
        let cached = hints["ttlMs"].is_u64() && hints["cacheScope"].is_string();
        assert!(cached, "{method}");
    }
    let discovered = send_ok(&app, &discover(1)).await;
    let result = &discovered.json()["result"];
    let versions = result["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!(PROTOCOL_VERSION)), "{result}");
    let version = &result["_meta"][META_SERVER_INFO]["version"];
    assert!(version.is_string(), "{result}");
    let removed = result.get("serverInfo").is_none();
    assert!(removed, "the top-level serverInfo is gone in 2026-07-28");
}

// ----- Notifications on the request's stream -----

/// `test_tool_with_progress`, asking for progress reports under `token`.
fn progress_call(id: &str, token: impl Into<Value>) -> Value {
    let meta = json!({"progressToken": token.into()});
    call_tool_with_meta(id, "test_tool_with_progress", meta)
}

#[tokio::test]
async fn progress_streams_as_sse_events_before_the_response() {
    let app = app();
    let reply = send_ok(&app, &progress_call("prog", "tok-1")).await;
    let content_type = reply.header("content-type").unwrap_or_default();
    let sse = content_type.starts_with("text/event-stream");
    assert!(sse, "progress needs an SSE stream: {reply:?}");
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let (response, notifications) = reply.split_ok();
    let progress = progress_messages(notifications);
    // Only progress precedes the response: 0, 50 and 100 of 100.
    let counts = (progress.len(), notifications.len());
    assert_eq!(counts, (3, 3), "{notifications:?}");
    assert_progress_reports(&progress, &json!("tok-1"));
    let last = json!({"params": {"progress": 100.0, "total": 100.0}});
    assert_includes(&notifications[2], last);
    let text = tool_text(assert_result(response, &json!("prog")));
    assert_eq!(text, "Progress complete.");

    // A client that accepts only JSON gets the result alone, as plain JSON.
    let post = Post::new(&progress_call("prog-json", 5));
    let reply = post.header("Accept", "application/json").send(&app).await;
    assert_eq!(reply.status, 200);
    let result = assert_result(reply.json(), &json!("prog-json"));
    assert_eq!(tool_text(result), "Progress complete.");
}

#[tokio::test]
async fn logging_streams_the_messages_at_or_above_the_requested_level() {
    let app = app();
    let steps = ["starting", "working", "done"];
    for (id, extra, expected) in [
        ("log-info", json!({META_LOG_LEVEL: "info"}), 3),
        ("log-error", json!({META_LOG_LEVEL: "error"}), 0),
        ("log-none", json!({}), 0),
    ] {
        let body = call_tool_with_meta(id, "test_logging_tool", extra);
        let reply = send_ok(&app, &body).await;
        let (response, notifications) = reply.split_ok();
        let text = tool_text(assert_result(response, &json!(id)));
        assert_eq!(text, "Logged three messages.");
        let logs = log_messages(notifications);
        assert_eq!(logs.len(), expected, "{id}: {logs:?}");
        for (log, step) in logs.into_iter().zip(steps) {
            let params = json!({"level": "info", "logger": "conformance", "data": {"step": step}});
            assert_includes(log, json!({ "params": params }));
        }
    }
}

#[tokio::test]
async fn progress_sent_right_before_an_input_required_result_is_delivered() {
    let meta = json!({"progressToken": "asking"});
    let mut body = call_tool_with_meta("elicit", "test_streaming_elicitation", meta);
    body["params"]["_meta"][META_CLIENT_CAPABILITIES] = json!({"elicitation": {}});
    let reply = send_ok(&app(), &body).await;
    let (response, notifications) = reply.split_ok();
    let asking = json!({"id": "elicit", "result": {"resultType": "input_required"}});
    assert_includes(response, asking);
    let progress = progress_messages(notifications);
    assert_eq!(progress.len(), 1, "the progress report was lost: {reply:?}");
    assert_eq!(progress[0]["params"]["message"], "asking");
}

// ----- subscriptions/listen -----

/// Opens a listen stream `id` for `filter` and checks its acknowledgement echoes `filter`.
async fn open_listen(server: &Server, id: &Value, filter: Value) -> EventStream {
    let mut stream = EventStream::open(server, &listen(id.clone(), filter.clone())).await;
    let acknowledged = "notifications/subscriptions/acknowledged";
    let ack = stream.next_tagged(acknowledged, id).await;
    assert!(ack.get("id").is_none(), "{ack}");
    let honoured = &ack["params"]["notifications"];
    assert_eq!(honoured, &filter, "only what was asked for is honoured");
    stream
}

#[tokio::test]
async fn listen_acknowledges_then_forwards_only_the_changes_asked_for() {
    let (app, tools_id, prompts_id) = (app(), json!("listen-tools"), json!(4242));
    let mut tools = open_listen(&app, &tools_id, json!({"toolsListChanged": true})).await;
    let mut prompts = open_listen(&app, &prompts_id, json!({"promptsListChanged": true})).await;
    let text = call_text(&app, "trigger-1", "test_trigger_tool_change").await;
    assert_eq!(text, "Tool list change notified.");
    let changed = "notifications/tools/list_changed";
    tools.next_tagged(changed, &tools_id).await;
    let unexpected = prompts.next_within(Duration::from_millis(500)).await;
    assert_eq!(unexpected, None, "a tool change reached a prompts listener");
    // The stream is alive: a prompt change does arrive.
    call_text(&app, "trigger-2", "test_trigger_prompt_change").await;
    let changed = "notifications/prompts/list_changed";
    prompts.next_tagged(changed, &prompts_id).await;
}

/// `_meta` of a client declaring the tasks extension (or not).
fn task_client(tasks: bool) -> Meta {
    let caps = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    let mut extra = Meta::new();
    extra.insert(META_CLIENT_CAPABILITIES.into(), caps);
    extra
}

#[tokio::test]
async fn listen_with_task_ids_sends_each_change_of_those_tasks_until_they_settle() {
    let app = app();
    let call = json!({"name": "slow_compute", "arguments": {"seconds": 0.3, "label": "watched"}});
    let reply = Post::new(&request_with_meta(
        "t1",
        "tools/call",
        call,
        task_client(true),
    ))
    .send(&app)
    .await;
    let created = &reply.messages[0]["result"];
    assert_eq!(created["resultType"], "task", "{reply:?}");
    let task_id = created["taskId"].as_str().unwrap().to_owned();

    let id = json!("listen-tasks");
    let filter = json!({"taskIds": [task_id, "no-such-task"]});
    let message = request_with_meta(
        id.clone(),
        "subscriptions/listen",
        json!({"notifications": filter}),
        task_client(true),
    );
    let mut stream = EventStream::open(&app, &message).await;
    let ack = stream
        .next_tagged("notifications/subscriptions/acknowledged", &id)
        .await;
    // Only the task that exists (and the caller may see) is honoured.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"taskIds": [task_id]})
    );
    let settled = stream.next_tagged("notifications/tasks", &id).await;
    assert_eq!(settled["params"]["taskId"], task_id.as_str());
    assert_eq!(settled["params"]["status"], "completed", "{settled}");
    assert_eq!(
        settled["params"]["result"]["content"][0]["text"],
        "watched: computed after 0.3 s"
    );
    assert!(settled["params"].get("resultType").is_none(), "{settled}");
    // Nothing more once it settled.
    assert_eq!(stream.next_within(Duration::from_millis(300)).await, None);

    // taskIds from a client that did not declare the extension: -32021.
    let message = request_with_meta(
        7,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [task_id]}}),
        task_client(false),
    );
    let reply = Post::new(&message).send(&app).await;
    assert_error(
        &reply.messages[0],
        Some(&json!(7)),
        MISSING_CLIENT_CAPABILITY,
        "capability",
    );
}

#[tokio::test]
async fn tasks_requests_need_mcp_name_to_match_the_task_id() {
    let app = app();
    let get = request_with_meta(3, "tasks/get", json!({"taskId": "abc"}), task_client(true));
    let reply = Post::new(&get).header("Mcp-Name", "xyz").send(&app).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_error(
        &reply.messages[0],
        Some(&json!(3)),
        HEADER_MISMATCH,
        "Mcp-Name",
    );
    let reply = Post::new(&get).without("Mcp-Name").send(&app).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_error(
        &reply.messages[0],
        Some(&json!(3)),
        HEADER_MISMATCH,
        "missing",
    );
    // With the right header, an unknown task is invalid params.
    let reply = Post::new(&get).send(&app).await;
    assert_error(
        &reply.messages[0],
        Some(&json!(3)),
        INVALID_PARAMS,
        "Unknown",
    );
}

// ----- Cancellation -----

#[tokio::test]
async fn dropping_a_streamed_call_cancels_it_and_the_server_keeps_serving() {
    let app = app();
    let mut stream = EventStream::open(&app, &progress_call("to-cancel", "c")).await;
    let first = stream.next_within(READ_TIMEOUT).await.unwrap_or_default();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    drop(stream);
    assert_still_serving(&app).await;
    let text = call_text(&app, "after-cancel", "test_simple_text").await;
    assert_eq!(text, "This is a simple text response for testing.");
}

// ----- Refusals -----

/// Requests the server must refuse, added case by case and checked in order against one
/// server by [`Refusals::check`].
#[derive(Default)]
struct Refusals {
    /// Each case: its name, the request, the expected HTTP status and JSON-RPC error code,
    /// and a word of the error message.
    cases: Vec<(&'static str, Post, (u16, i64), &'static str)>,
    /// The status and code of the cases added next.
    expect: (u16, i64),
}

impl Refusals {
    /// The next cases are refused with `status` and `code`.
    fn expect(mut self, status: u16, code: i64) -> Self {
        self.expect = (status, code);
        self
    }

    /// A case: `post` is refused with an error message containing `needle`.
    fn case(mut self, case: &'static str, post: Post, needle: &'static str) -> Self {
        self.cases.push((case, post, self.expect, needle));
        self
    }

    /// Sends every case to a fresh server and checks a plain-JSON refusal, echoing the body's
    /// id when it has one and the body was read (not for a 403, 406 or 415), then that the
    /// server still serves. Returns the `error` objects by case.
    async fn check(self) -> HashMap<&'static str, Value> {
        let (app, mut errors) = (app(), HashMap::new());
        for (case, post, (status, code), needle) in self.cases {
            let body: Value = serde_json::from_slice(&post.body).unwrap_or_default();
            let read = !matches!(status, 403 | 406 | 415);
            let id = Some(&body["id"]).filter(|id| read && !id.is_null());
            let reply = post.send(&app).await;
            let refused = reply.status == status && reply.is_plain();
            assert!(refused, "{case}: not a JSON {status}: {reply:?}");
            if let Some(mismatch) = error_mismatch(&reply.messages[0], id, code, needle) {
                panic!("{case}: {mismatch}");
            }
            errors.insert(case, reply.messages[0]["error"].clone());
            assert_still_serving(&app).await;
        }
        errors
    }
}

#[tokio::test]
async fn bad_requests_are_refused_case_by_case_and_the_server_keeps_serving() {
    let meta = json!({META_PROTOCOL_VERSION: PROTOCOL_VERSION, META_CLIENT_CAPABILITIES: {}});
    let post = |body: Value| Post::new(&body);
    // Bodies without readable headers to mirror get them by hand.
    let mirrored = |body: &str| {
        let post = Post::raw(body).header("MCP-Protocol-Version", PROTOCOL_VERSION);
        post.header("Mcp-Method", "server/discover")
    };
    let truncated = mirrored(r#"{"jsonrpc":"2.0","id":1,"method":"#);
    let no_jsonrpc = json!({"id": 11, "method": "server/discover", "params": {"_meta": meta}});
    let no_method = json!({"jsonrpc": "2.0", "id": "no-method", "params": {"_meta": meta}});
    let no_method = mirrored(&no_method.to_string());
    let batch = mirrored(&json!([discover(1), discover(2)]).to_string());
    let listen = post(listen("listen-json", json!({"toolsListChanged": true})));
    let listen = listen.header("Accept", "application/json");
    let bad_meta = |meta: Value| post(raw_request("bad-meta", "server/discover", meta));
    let only_caps = json!({"_meta": {META_CLIENT_CAPABILITIES: {}}});
    let no_caps = json!({"_meta": {META_PROTOCOL_VERSION: PROTOCOL_VERSION}});
    let meta_string = json!({"_meta": PROTOCOL_VERSION});
    let (version, method, name) = ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name");
    let hdr = |header: &str, value: &str| post(discover("hdr")).header(header, value);
    let without = |header: &str| post(discover("hdr")).without(header);
    let text_plain = hdr("Content-Type", "text/plain");
    let evil_origin = hdr("Origin", "http://evil.example.com");
    let mut v999 = discover("v999");
    v999["params"]["_meta"][META_PROTOCOL_VERSION] = json!("v999.0.0");
    let v999_mirrored = post(v999.clone()).header(version, PROTOCOL_VERSION);
    let simple_text = || post(call_tool("call", "test_simple_text", json!({})));
    let named = |value: &str| simple_text().header(name, value);
    let read = |uri: &str| post(request("read", "resources/read", json!({ "uri": uri })));
    let other_uri = read("test://static-text").header(name, "test://static-binary");
    let sampling = call_tool("no-sampling", "test_missing_capability", json!({}));
    let sampling = post(sampling);
    let unknown_tool = post(call_tool("t", "no_such_tool", json!({})));
    let prompt = |params| post(request("prompt", "prompts/get", params));
    let unknown_prompt = prompt(json!({"name": "no_such_prompt"}));
    let arg1 = json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}});
    let no_resource = read("test://no-such-resource");
    let arguments_a_string = post(call_tool("t", "test_simple_text", json!("text")));
    let prompt_arguments_a_list = prompt(json!({"name": "test_simple_prompt", "arguments": [1]}));
    let mut refusals = Refusals::default()
        .expect(400, PARSE_ERROR)
        .case("truncated JSON", truncated, "Parse error")
        .expect(400, INVALID_REQUEST)
        .case("not an object", Post::raw("42"), "JSON object")
        .case("no jsonrpc", post(no_jsonrpc), "jsonrpc")
        .case("no method", no_method, "method")
        .case("a batch", batch, "batch")
        .case("listen, JSON only", listen, "text/event-stream")
        .expect(400, INVALID_PARAMS)
        .case("no _meta", bad_meta(json!({})), "_meta")
        .case("no version", bad_meta(only_caps), "protocolVersion")
        .case("no capabilities", bad_meta(no_caps), "clientCapabilities")
        .case("_meta a string", bad_meta(meta_string), "_meta")
        .expect(400, HEADER_MISMATCH)
        .case("other version", hdr(version, "2025-11-25"), version)
        // Header consistency is checked before version support.
        .case("v999 in the body", v999_mirrored, version)
        .case("no Mcp-Method", without(method), method)
        .case("other Mcp-Method", hdr(method, "tools/list"), method)
        .case("other Mcp-Name", named("test_error_handling"), name)
        .case("no Mcp-Name", simple_text().without(name), name)
        .case("other Mcp-Name URI", other_uri, name)
        .expect(400, UNSUPPORTED_PROTOCOL_VERSION)
        .case("v999", post(v999), "Unsupported protocol version")
        .expect(400, MISSING_CLIENT_CAPABILITY)
        .case("no sampling", sampling, "required client capability")
        .expect(404, METHOD_NOT_FOUND);
    let subscribe = || json!({"uri": "test://static-text"});
    for (method, params) in [
        ("tools/explode", json!({})),
        ("initialize", json!({})),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", subscribe()),
        ("resources/unsubscribe", subscribe()),
    ] {
        refusals = refusals.case(method, post(request(method, method, params)), method);
    }
    let errors = refusals
        .expect(200, INVALID_PARAMS)
        .case("unknown tool", unknown_tool, "Unknown tool: no_such_tool")
        .case("unknown prompt", unknown_prompt, "no_such_prompt")
        .case("missing argument", prompt(arg1), "arg2")
        .case(
            "tool arguments a string",
            arguments_a_string,
            "expected a map",
        )
        .case(
            "prompt arguments a list",
            prompt_arguments_a_list,
            "expected a map",
        )
        .case("unknown resource", no_resource, "not found")
        .expect(415, INVALID_REQUEST)
        .case("text/plain", text_plain, "Content-Type")
        .expect(406, INVALID_REQUEST)
        .case("text/html", hdr("Accept", "text/html"), "Not Acceptable")
        .expect(403, INVALID_REQUEST)
        .case("evil Host", hdr("Host", "evil.example.com"), "Host")
        .case("evil Origin", evil_origin, "Origin")
        .check()
        .await;

    let mcp_name = errors["other Mcp-Name"]["message"].as_str().unwrap();
    let both = mcp_name.contains("test_error_handling") && mcp_name.contains("test_simple_text");
    assert!(both, "{mcp_name}");
    let version = &errors["v999"]["data"];
    let supported = version["supported"].as_array().unwrap();
    assert!(supported.contains(&json!(PROTOCOL_VERSION)), "{version}");
    assert_eq!(version["requested"], "v999.0.0", "{version}");
    let sampling = json!({"requiredCapabilities": {"sampling": {}}});
    assert_includes(&errors["no sampling"], json!({ "data": sampling }));
    let uri = json!({"uri": "test://no-such-resource"});
    assert_includes(&errors["unknown resource"], json!({ "data": uri }));
}

/// Adds two numbers (the fixture's tools take no arguments).
#[typemcp_server::tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::test]
async fn invalid_tool_arguments_are_a_tool_error_naming_the_argument() {
    let server = Server::builder().name(FIXTURE_NAME);
    let server = server.tool(add).build().unwrap();
    let body = call_tool("bad-args", "add", json!({"a": 1, "b": "two"}));
    let result = call_ok(&server, &body).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = tool_text(&result);
    let named = text.contains("`b`") && text.contains("expected i64");
    assert!(named, "names the argument and the expected type: {text}");
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn oversized_bodies_are_413_before_the_rest_arrives() {
    // Declared 5 MiB (limit 4 MiB): refused from the Content-Length alone. Without a
    // Content-Length: refused once more than 4 MiB has streamed in.
    let start =
        br#"{"jsonrpc":"2.0","id":"too-big","method":"server/discover","params":{"padding":""#;
    let spaces = vec![b' '; 4 * 1024 * 1024 + 64 * 1024];
    for (case, length, prefix) in [
        ("declared", Some(5 << 20), start.to_vec()),
        ("chunked", None, spaces),
    ] {
        // The body streams `prefix` and then stalls forever: the answer can only arrive if the
        // server answers without waiting for the rest, which is what a size limit must do.
        let app = app();
        let mut post = Post::new(&discover("too-big"));
        if let Some(length) = length {
            post = post.header("Content-Length", &format!("{length}"));
        }
        let chunks = prefix.chunks(64 * 1024).map(Bytes::copy_from_slice);
        let chunks: Vec<_> = chunks
            .map(|chunk| Ok(http_body::Frame::data(chunk)))
            .collect();
        let stalled = futures_util::stream::iter(chunks).chain(futures_util::stream::pending());
        let stalled = StreamBody::new(stalled).boxed_unsync();
        let response = post.open_with(&app, stalled).await;
        assert_eq!(response.status(), 413, "{case}");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let message: Value = serde_json::from_slice(&body).expect("a JSON-RPC error body");
        let mismatch = error_mismatch(&message, None, INVALID_REQUEST, "Payload Too Large");
        assert_eq!(mismatch, None, "{case}");
        assert_still_serving(&app).await;
    }
}

#[tokio::test]
async fn local_origins_other_methods_and_notifications_get_their_http_answers() {
    let app = app();
    // A localhost Origin and Host are accepted.
    let body = discover("local-origin");
    let post = Post::new(&body).header("Origin", "http://localhost:3000");
    let reply = post.header("Host", "localhost:3000").send(&app).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_result(reply.json(), &body["id"]);
    // GET and DELETE are not allowed.
    for method in [Method::GET, Method::DELETE] {
        let mut post = Post::raw("");
        post.method = method.clone();
        let reply = post.send(&app).await;
        let refused = (reply.status, reply.header("allow"));
        assert_eq!(refused, (405, Some("POST")), "{method}");
    }
    // A notification is accepted with an empty body.
    let params = json!({"requestId": "nothing", "_meta": {}});
    let post = Post::new(&notification("notifications/cancelled", params));
    let reply = post.send(&app).await;
    assert_eq!((reply.status, reply.body.as_str()), (202, ""), "{reply:?}");
    assert_still_serving(&app).await;
}
