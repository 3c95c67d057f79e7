//! End-to-end tests of the Streamable HTTP transport against the `conformance_server`
//! example, driven with a real HTTP client (`reqwest`).
//!
//! One server process serves every test of this binary. The tests cover the happy paths
//! (discovery, tools, prompts, resources, completion), progress and log notifications on
//! SSE streams, `subscriptions/listen`, cancellation by closing a stream, and the way bad
//! input is refused: the HTTP status, the JSON-RPC error code and message, the echoed
//! request id, and that the server keeps serving afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::VecDeque;
use std::sync::LazyLock;
use std::time::Duration;

use common::{
    HttpServer, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO, META_SUBSCRIPTION_ID,
    PROTOCOL_VERSION, READ_TIMEOUT, SseParser, assert_error, assert_progress_reports,
    assert_result, call_tool, call_tool_with_meta, code, discover, listen, log_messages,
    mcp_headers, notification, parse_sse, progress_messages, raw_request, request, tool_text,
};
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::{Value, json};

/// The notification that opens a `subscriptions/listen` stream.
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// The server shared by every test of this binary.
static SERVER: LazyLock<HttpServer> = LazyLock::new(HttpServer::start);

/// A client that talks to the loopback server directly, never through a proxy.
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("build an HTTP client")
}

/// One HTTP request to the MCP endpoint: method, headers and body, adjustable per test.
#[derive(Debug, Clone)]
struct Post {
    method: Method,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Post {
    /// A POST of `body` with the headers a conforming client sends.
    fn new(body: &Value) -> Self {
        Self {
            method: Method::POST,
            headers: mcp_headers(body)
                .into_iter()
                .map(|(name, value)| (name.to_owned(), value))
                .collect(),
            body: serde_json::to_vec(body).unwrap(),
        }
    }

    /// A POST of arbitrary bytes with only `Content-Type` and `Accept` set.
    fn raw(body: impl Into<Vec<u8>>) -> Self {
        Self {
            method: Method::POST,
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                (
                    "Accept".into(),
                    "application/json, text/event-stream".into(),
                ),
            ],
            body: body.into(),
        }
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

    /// Uses another HTTP method.
    fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// Sends the request and returns the response once its headers arrived.
    async fn open(self) -> reqwest::Response {
        let mut builder = client().request(self.method, SERVER.url());
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        tokio::time::timeout(READ_TIMEOUT, builder.body(self.body).send())
            .await
            .expect("the server answered in time")
            .expect("the HTTP request succeeded")
    }

    /// Sends the request and reads the whole response.
    async fn send(self) -> Reply {
        let response = self.open().await;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = tokio::time::timeout(READ_TIMEOUT, response.text())
            .await
            .expect("the response body arrived in time")
            .expect("the response body could be read");
        let content_type = headers
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned());
        let messages = match content_type.as_deref() {
            Some(ct) if ct.starts_with("text/event-stream") => parse_sse(&body),
            _ if body.is_empty() => Vec::new(),
            _ => vec![
                serde_json::from_str(&body)
                    .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {body:?}")),
            ],
        };
        Reply {
            status,
            headers,
            content_type,
            body,
            messages,
        }
    }
}

/// A complete HTTP response and the JSON-RPC messages it carried.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    content_type: Option<String>,
    body: String,
    messages: Vec<Value>,
}

impl Reply {
    /// The single JSON message of a plain `application/json` response.
    #[track_caller]
    fn json(&self) -> &Value {
        assert_eq!(
            self.content_type.as_deref(),
            Some("application/json"),
            "expected a plain JSON response: {self:?}"
        );
        assert_eq!(self.messages.len(), 1, "{self:?}");
        &self.messages[0]
    }

    /// The last message: the final response of an SSE stream, or the JSON body.
    #[track_caller]
    fn response(&self) -> &Value {
        self.messages
            .last()
            .unwrap_or_else(|| panic!("the response carried no message: {self:?}"))
    }

    /// The final response and the notifications that preceded it on the stream.
    #[track_caller]
    fn split_response(&self) -> (&Value, &[Value]) {
        self.messages
            .split_last()
            .unwrap_or_else(|| panic!("the response carried no message: {self:?}"))
    }

    fn is_sse(&self) -> bool {
        self.content_type
            .as_deref()
            .is_some_and(|ct| ct.starts_with("text/event-stream"))
    }
}

/// Posts `body` (with conforming headers) and returns the reply, checked to be a 200.
async fn send_ok(body: &Value) -> Reply {
    let reply = Post::new(body).send().await;
    assert_eq!(reply.status, 200, "{reply:?}");
    reply
}

/// Posts `body` (with conforming headers) and returns the successful result.
async fn call_ok(body: &Value) -> Value {
    let reply = send_ok(body).await;
    assert_result(reply.response(), &body["id"]).clone()
}

/// Sends `post`, checks the status, the plain-JSON error (code, message, id), then that
/// the server still answers a good request. Returns the `error` object.
async fn expect_error(
    post: Post,
    status: u16,
    id: Option<&Value>,
    code: i64,
    needle: &str,
) -> Value {
    let reply = post.send().await;
    assert_eq!(reply.status, status, "{reply:?}");
    let error = assert_error(reply.json(), id, code, needle).clone();
    assert_still_serving().await;
    error
}

/// Like [`expect_error`] for a conforming request `body`, whose id must be echoed.
async fn expect_request_error(body: &Value, status: u16, code: i64, needle: &str) -> Value {
    expect_error(Post::new(body), status, Some(&body["id"]), code, needle).await
}

/// Like [`expect_error`] for `post`, a request `body` sent with adjusted headers: a 400
/// `HEADER_MISMATCH` error naming `header`, with the body's id echoed.
async fn expect_header_mismatch(body: &Value, post: Post, header: &str) -> Value {
    let id = Some(&body["id"]);
    expect_error(post, 400, id, code::HEADER_MISMATCH, header).await
}

/// Sends `server/discover` (id `id`) with `header` set to `value` and expects it refused at
/// the HTTP level: `status` and an `INVALID_REQUEST` error without id mentioning `needle`,
/// then a working server.
async fn expect_header_refused(id: &str, header: &str, value: &str, status: u16, needle: &str) {
    let post = Post::new(&discover(id)).header(header, value);
    expect_error(post, status, None, code::INVALID_REQUEST, needle).await;
}

/// Posts the conforming request `body` and checks `status` and the plain-JSON error with
/// the id echoed; `case` labels a wrong status. Unlike [`expect_request_error`], it does not
/// check the server afterwards, so that a loop over cases can do it once at the end.
async fn assert_request_refused(case: &str, body: &Value, status: u16, code: i64, needle: &str) {
    let reply = Post::new(body).send().await;
    assert_eq!(reply.status, status, "{case}: {reply:?}");
    assert_error(reply.json(), Some(&body["id"]), code, needle);
}

/// The server answers a well-formed request after whatever the test did.
async fn assert_still_serving() {
    let body = discover("still-serving");
    let result = call_ok(&body).await;
    assert!(result["supportedVersions"].is_array(), "{result}");
}

/// An open SSE response read event by event.
struct EventStream {
    response: reqwest::Response,
    parser: SseParser,
    queue: VecDeque<Value>,
}

impl EventStream {
    /// Posts `body` and checks the answer is an SSE stream.
    async fn open(body: &Value) -> Self {
        let response = Post::new(body).open().await;
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(
            content_type.starts_with("text/event-stream"),
            "expected an SSE stream, got {content_type}"
        );
        Self {
            response,
            parser: SseParser::default(),
            queue: VecDeque::new(),
        }
    }

    /// The next message within `timeout`; `None` if none arrived. Panics if the stream ends.
    async fn next_within(&mut self, timeout: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(message) = self.queue.pop_front() {
                return Some(message);
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk()).await;
            match chunk {
                Err(_elapsed) => return None,
                Ok(Ok(Some(bytes))) => {
                    let text = std::str::from_utf8(&bytes).expect("SSE is UTF-8");
                    self.queue.extend(self.parser.push(text));
                }
                Ok(Ok(None)) => panic!("the SSE stream ended unexpectedly"),
                Ok(Err(e)) => panic!("the SSE stream failed: {e}"),
            }
        }
    }

    /// The next message; panics if none arrives within [`READ_TIMEOUT`].
    async fn next(&mut self) -> Value {
        self.next_within(READ_TIMEOUT)
            .await
            .expect("an SSE event arrived in time")
    }

    /// The next message, checked to be `method` tagged with the subscription `id`.
    async fn next_tagged(&mut self, method: &str, id: &Value) -> Value {
        let message = self.next().await;
        assert_eq!(message["method"], method, "{message}");
        assert_eq!(
            &message["params"]["_meta"][META_SUBSCRIPTION_ID], id,
            "{message}"
        );
        message
    }
}

// ---------------------------------------------------------------------------------------------
// Happy paths

#[tokio::test]
async fn discover_reports_versions_capabilities_and_cache_hints() {
    let reply = send_ok(&discover(1)).await;
    let result = assert_result(reply.json(), &json!(1));
    let versions = result["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!(PROTOCOL_VERSION)), "{result}");
    let caps = &result["capabilities"];
    assert_eq!(caps["tools"]["listChanged"], true, "{caps}");
    assert_eq!(caps["prompts"]["listChanged"], true, "{caps}");
    assert!(caps["resources"].is_object(), "{caps}");
    assert!(caps["completions"].is_object(), "{caps}");
    assert!(result["ttlMs"].as_u64().is_some(), "{result}");
    assert!(
        ["public", "private"].contains(&result["cacheScope"].as_str().unwrap_or_default()),
        "{result}"
    );
    let info = &result["_meta"][META_SERVER_INFO];
    assert!(info["version"].is_string(), "{info}");
    assert!(
        result.get("serverInfo").is_none(),
        "the top-level serverInfo was removed in 2026-07-28"
    );
}

#[tokio::test]
async fn tools_list_is_deterministic_and_describes_every_tool() {
    let first = call_ok(&request(1, "tools/list", json!({}))).await;
    let second = call_ok(&request(2, "tools/list", json!({}))).await;
    let names = |result: &Value| -> Vec<String> {
        result["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&first), names(&second), "the order must not change");
    assert_eq!(
        names(&first),
        [
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_tool_with_progress",
            "test_error_handling",
            "test_missing_capability",
            "test_streaming_elicitation",
            "test_logging_tool",
            "test_trigger_tool_change",
            "test_trigger_prompt_change",
            "json_schema_2020_12_tool",
            "test_input_required_result_elicitation",
            "test_input_required_result_sampling",
            "test_input_required_result_list_roots",
            "test_input_required_result_request_state",
            "test_input_required_result_tampered_state",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_multi_round",
            "test_input_required_result_capabilities",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
        ],
        "tools are listed in registration order"
    );
    for tool in first["tools"].as_array().unwrap() {
        let description = tool["description"].as_str().unwrap_or_default();
        assert!(
            !description.is_empty(),
            "tool without a description: {tool}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
    assert!(
        first["ttlMs"].is_u64() && first["cacheScope"].is_string(),
        "{first}"
    );
}

#[tokio::test]
async fn tools_call_returns_the_tool_text() {
    let result = call_ok(&call_tool(7, "test_simple_text", json!({}))).await;
    assert_eq!(
        tool_text(&result),
        "This is a simple text response for testing."
    );
    assert_ne!(result["isError"], true, "{result}");
}

#[tokio::test]
async fn prompts_get_fills_in_the_arguments() {
    let body = request(
        "p1",
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "alpha", "arg2": "beta"}}),
    );
    let result = call_ok(&body).await;
    let messages = result["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{result}");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"]["text"],
        "Prompt with arguments: arg1='alpha', arg2='beta'"
    );
}

#[tokio::test]
async fn resources_read_returns_static_contents() {
    let body = request("r1", "resources/read", json!({"uri": "test://static-text"}));
    let result = call_ok(&body).await;
    let contents = result["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 1, "{result}");
    assert_eq!(contents[0]["uri"], "test://static-text");
    assert_eq!(contents[0]["mimeType"], "text/plain");
    assert_eq!(
        contents[0]["text"],
        "This is the content of the static text resource."
    );
}

#[tokio::test]
async fn resources_read_expands_templates() {
    let body = request(
        "r2",
        "resources/read",
        json!({"uri": "test://template/42/data"}),
    );
    let result = call_ok(&body).await;
    let content = &result["contents"][0];
    assert_eq!(content["uri"], "test://template/42/data");
    assert_eq!(content["mimeType"], "application/json");
    let data: Value = serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
    assert_eq!(data["id"], "42");
    assert_eq!(data["data"], "Data for ID: 42");
}

#[tokio::test]
async fn completion_offers_values_with_the_typed_prefix() {
    let body = request(
        "c1",
        "completion/complete",
        json!({
            "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "pa"}
        }),
    );
    let result = call_ok(&body).await;
    let values = result["completion"]["values"].as_array().unwrap();
    assert!(!values.is_empty(), "{result}");
    for value in values {
        assert!(value.as_str().unwrap().starts_with("pa"), "{result}");
    }
}

// ---------------------------------------------------------------------------------------------
// Notifications on the request's stream

/// `test_tool_with_progress`, asking for progress reports under `token`.
fn progress_call(id: &str, token: impl Into<Value>) -> Value {
    call_tool_with_meta(
        id,
        "test_tool_with_progress",
        json!({"progressToken": token.into()}),
    )
}

#[tokio::test]
async fn progress_streams_as_sse_events_before_the_response() {
    let body = progress_call("prog", "tok-1");
    let reply = send_ok(&body).await;
    assert!(reply.is_sse(), "progress needs an SSE stream: {reply:?}");
    assert_eq!(
        reply
            .headers
            .get("x-accel-buffering")
            .map(|v| v.to_str().unwrap()),
        Some("no")
    );
    let (response, notifications) = reply.split_response();
    assert_eq!(
        progress_messages(notifications).len(),
        notifications.len(),
        "only progress precedes the response: {notifications:?}"
    );
    assert_progress_reports(&progress_messages(notifications), &json!("tok-1"));
    assert_eq!(notifications.len(), 3, "0, 50 and 100 of 100");
    assert_eq!(notifications[2]["params"]["progress"], 100.0);
    assert_eq!(notifications[2]["params"]["total"], 100.0);
    let result = assert_result(response, &json!("prog"));
    assert_eq!(tool_text(result), "Progress complete.");
}

#[tokio::test]
async fn progress_with_json_only_accept_answers_plain_json() {
    let body = progress_call("prog-json", 5);
    let reply = Post::new(&body)
        .header("Accept", "application/json")
        .send()
        .await;
    assert_eq!(reply.status, 200);
    let result = assert_result(reply.json(), &json!("prog-json"));
    assert_eq!(tool_text(result), "Progress complete.");
}

/// Calls `test_logging_tool` with `extra` in `_meta`; returns the log notifications seen.
async fn logging_call(id: &str, extra: Value) -> Vec<Value> {
    let body = call_tool_with_meta(id, "test_logging_tool", extra);
    let reply = send_ok(&body).await;
    let (response, notifications) = reply.split_response();
    assert_eq!(
        tool_text(assert_result(response, &json!(id))),
        "Logged three messages."
    );
    log_messages(notifications).into_iter().cloned().collect()
}

#[tokio::test]
async fn logging_at_info_streams_the_three_messages() {
    let logs = logging_call("log-info", json!({META_LOG_LEVEL: "info"})).await;
    let steps: Vec<&Value> = logs.iter().map(|m| &m["params"]["data"]["step"]).collect();
    assert_eq!(
        steps,
        [&json!("starting"), &json!("working"), &json!("done")],
        "{logs:?}"
    );
    for log in &logs {
        assert_eq!(log["params"]["level"], "info");
        assert_eq!(log["params"]["logger"], "conformance");
    }
}

#[tokio::test]
async fn logging_at_error_sends_no_info_messages() {
    let logs = logging_call("log-error", json!({META_LOG_LEVEL: "error"})).await;
    assert!(logs.is_empty(), "{logs:?}");
}

#[tokio::test]
async fn logging_without_a_level_sends_nothing() {
    let logs = logging_call("log-none", json!({})).await;
    assert!(logs.is_empty(), "{logs:?}");
}

#[tokio::test]
async fn progress_sent_right_before_an_input_required_result_is_delivered() {
    let mut body = call_tool_with_meta(
        "elicit",
        "test_streaming_elicitation",
        json!({"progressToken": "asking"}),
    );
    body["params"]["_meta"][common::META_CLIENT_CAPABILITIES] = json!({"elicitation": {}});
    let reply = send_ok(&body).await;
    let (response, notifications) = reply.split_response();
    assert_eq!(response["id"], "elicit", "{response}");
    assert_eq!(
        response["result"]["resultType"], "input_required",
        "{response}"
    );
    let progress = progress_messages(notifications);
    assert_eq!(progress.len(), 1, "the progress report was lost: {reply:?}");
    assert_eq!(progress[0]["params"]["message"], "asking");
}

// ---------------------------------------------------------------------------------------------
// subscriptions/listen

/// Calls `tool` (no arguments), one of the tools that announce a list change.
async fn trigger(id: &str, tool: &str) -> Value {
    call_ok(&call_tool(id, tool, json!({}))).await
}

#[tokio::test]
async fn listen_acknowledges_then_forwards_tagged_tool_changes() {
    let id = json!("listen-tools");
    let mut stream =
        EventStream::open(&listen(id.clone(), json!({"toolsListChanged": true}))).await;
    let ack = stream.next_tagged(ACKNOWLEDGED, &id).await;
    assert!(ack.get("id").is_none(), "{ack}");
    assert_eq!(
        ack["params"]["notifications"]["toolsListChanged"], true,
        "{ack}"
    );

    let result = trigger("trigger-1", "test_trigger_tool_change").await;
    assert_eq!(tool_text(&result), "Tool list change notified.");
    stream
        .next_tagged("notifications/tools/list_changed", &id)
        .await;
}

#[tokio::test]
async fn listen_for_prompt_changes_does_not_receive_tool_changes() {
    let id = json!(4242);
    let mut stream =
        EventStream::open(&listen(id.clone(), json!({"promptsListChanged": true}))).await;
    let ack = stream.next_tagged(ACKNOWLEDGED, &id).await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true}),
        "only what was asked for is honoured"
    );

    trigger("trigger-2", "test_trigger_tool_change").await;
    let unexpected = stream.next_within(Duration::from_millis(500)).await;
    assert!(
        unexpected.is_none(),
        "a tool change reached a prompts-only listener: {unexpected:?}"
    );

    // The stream is alive: a prompt change does arrive.
    trigger("trigger-3", "test_trigger_prompt_change").await;
    stream
        .next_tagged("notifications/prompts/list_changed", &id)
        .await;
}

#[tokio::test]
async fn listen_with_json_only_accept_is_refused() {
    let body = listen("listen-json", json!({"toolsListChanged": true}));
    let post = Post::new(&body).header("Accept", "application/json");
    expect_error(
        post,
        400,
        Some(&body["id"]),
        code::INVALID_REQUEST,
        "text/event-stream",
    )
    .await;
}

// ---------------------------------------------------------------------------------------------
// Cancellation

#[tokio::test]
async fn dropping_a_streamed_call_cancels_it_and_the_server_keeps_serving() {
    let body = progress_call("to-cancel", "c");
    let mut stream = EventStream::open(&body).await;
    let first = stream.next().await;
    assert_eq!(first["method"], "notifications/progress", "{first}");
    drop(stream);
    assert_still_serving().await;
    let result = call_ok(&call_tool("after-cancel", "test_simple_text", json!({}))).await;
    assert_eq!(
        tool_text(&result),
        "This is a simple text response for testing."
    );
}

// ---------------------------------------------------------------------------------------------
// Malformed JSON-RPC

#[tokio::test]
async fn invalid_json_is_400_parse_error_without_id() {
    let post = Post::raw(r#"{"jsonrpc":"2.0","id":1,"method":"#)
        .header("MCP-Protocol-Version", PROTOCOL_VERSION)
        .header("Mcp-Method", "server/discover");
    expect_error(post, 400, None, code::PARSE_ERROR, "Parse error").await;
}

#[tokio::test]
async fn json_scalar_is_400_invalid_request() {
    expect_error(
        Post::raw("42"),
        400,
        None,
        code::INVALID_REQUEST,
        "JSON object",
    )
    .await;
}

#[tokio::test]
async fn object_without_jsonrpc_is_400_invalid_request_with_id() {
    let body = json!({"id": 11, "method": "server/discover", "params": {"_meta": common::meta()}});
    let post = Post::new(&body);
    expect_error(
        post,
        400,
        Some(&json!(11)),
        code::INVALID_REQUEST,
        "jsonrpc",
    )
    .await;
}

#[tokio::test]
async fn object_without_method_is_400_invalid_request_with_id() {
    let body = json!({"jsonrpc": "2.0", "id": "no-method", "params": {"_meta": common::meta()}});
    let post = Post::new(&body).header("Mcp-Method", "server/discover");
    expect_error(
        post,
        400,
        Some(&json!("no-method")),
        code::INVALID_REQUEST,
        "method",
    )
    .await;
}

#[tokio::test]
async fn batch_array_is_400_invalid_request() {
    let batch = json!([discover(1), discover(2)]);
    let post = Post::raw(serde_json::to_vec(&batch).unwrap())
        .header("MCP-Protocol-Version", PROTOCOL_VERSION)
        .header("Mcp-Method", "server/discover");
    expect_error(post, 400, None, code::INVALID_REQUEST, "batch").await;
}

#[tokio::test]
async fn missing_or_malformed_meta_is_400_invalid_params_with_id() {
    let with_version = json!({META_PROTOCOL_VERSION: PROTOCOL_VERSION});
    let with_caps = json!({common::META_CLIENT_CAPABILITIES: {}});
    let cases = [
        ("no _meta", json!({}), "_meta"),
        (
            "no protocolVersion",
            json!({"_meta": with_caps}),
            "protocolVersion",
        ),
        (
            "no clientCapabilities",
            json!({"_meta": with_version}),
            "clientCapabilities",
        ),
        (
            "_meta not an object",
            json!({"_meta": "2026-07-28"}),
            "_meta",
        ),
    ];
    for (i, (case, params, needle)) in cases.into_iter().enumerate() {
        let body = raw_request(format!("meta-{i}"), "server/discover", params);
        assert_request_refused(case, &body, 400, code::INVALID_PARAMS, needle).await;
    }
    assert_still_serving().await;
}

// ---------------------------------------------------------------------------------------------
// Mirrored headers and versions

#[tokio::test]
async fn protocol_version_header_differing_from_meta_is_400_header_mismatch() {
    let body = discover("hdr-version");
    let post = Post::new(&body).header("MCP-Protocol-Version", "2025-11-25");
    expect_header_mismatch(&body, post, "MCP-Protocol-Version").await;
}

#[tokio::test]
async fn header_consistency_is_checked_before_version_support() {
    let mut body = discover("hdr-before-version");
    body["params"]["_meta"][META_PROTOCOL_VERSION] = json!("v999.0.0");
    let post = Post::new(&body).header("MCP-Protocol-Version", PROTOCOL_VERSION);
    expect_header_mismatch(&body, post, "MCP-Protocol-Version").await;
}

#[tokio::test]
async fn missing_mcp_method_header_is_400_header_mismatch() {
    let body = discover("hdr-method");
    let post = Post::new(&body).without("Mcp-Method");
    expect_header_mismatch(&body, post, "Mcp-Method").await;
}

#[tokio::test]
async fn mcp_method_header_differing_from_body_is_400_header_mismatch() {
    let body = discover("hdr-method-2");
    let post = Post::new(&body).header("Mcp-Method", "tools/list");
    expect_header_mismatch(&body, post, "Mcp-Method").await;
}

#[tokio::test]
async fn mcp_name_header_missing_or_differing_is_400_header_mismatch() {
    let body = call_tool("hdr-name", "test_simple_text", json!({}));
    let mismatched = Post::new(&body).header("Mcp-Name", "test_error_handling");
    let error = expect_header_mismatch(&body, mismatched, "Mcp-Name").await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("test_error_handling") && message.contains("test_simple_text"),
        "{message}"
    );

    let missing = Post::new(&body).without("Mcp-Name");
    expect_header_mismatch(&body, missing, "Mcp-Name").await;

    let read = request(
        "hdr-uri",
        "resources/read",
        json!({"uri": "test://static-text"}),
    );
    let wrong_uri = Post::new(&read).header("Mcp-Name", "test://static-binary");
    expect_header_mismatch(&read, wrong_uri, "Mcp-Name").await;
}

#[tokio::test]
async fn unsupported_version_is_400_with_supported_and_requested() {
    let mut body = discover("v999");
    body["params"]["_meta"][META_PROTOCOL_VERSION] = json!("v999.0.0");
    let error = expect_request_error(
        &body,
        400,
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .await;
    let supported = error["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!(PROTOCOL_VERSION)), "{error}");
    assert_eq!(error["data"]["requested"], "v999.0.0", "{error}");
}

// ---------------------------------------------------------------------------------------------
// Methods and their parameters

#[tokio::test]
async fn unknown_method_is_404_method_not_found() {
    let body = request("unknown", "tools/explode", json!({}));
    expect_request_error(&body, 404, code::METHOD_NOT_FOUND, "tools/explode").await;
}

#[tokio::test]
async fn removed_methods_are_404_method_not_found() {
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let params = match method {
            "logging/setLevel" => json!({"level": "info"}),
            "resources/subscribe" | "resources/unsubscribe" => json!({"uri": "test://static-text"}),
            _ => json!({}),
        };
        let body = request(format!("removed-{method}"), method, params);
        assert_request_refused(method, &body, 404, code::METHOD_NOT_FOUND, method).await;
    }
    assert_still_serving().await;
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    let body = call_tool("no-tool", "no_such_tool", json!({}));
    expect_request_error(
        &body,
        200,
        code::INVALID_PARAMS,
        "Unknown tool: no_such_tool",
    )
    .await;
}

#[tokio::test]
async fn unknown_prompt_is_invalid_params() {
    let body = request(
        "no-prompt",
        "prompts/get",
        json!({"name": "no_such_prompt"}),
    );
    expect_request_error(&body, 200, code::INVALID_PARAMS, "no_such_prompt").await;
}

#[tokio::test]
async fn unknown_resource_is_invalid_params_with_the_uri() {
    let uri = "test://no-such-resource";
    let body = request("no-resource", "resources/read", json!({"uri": uri}));
    let error = expect_request_error(&body, 200, code::INVALID_PARAMS, "not found").await;
    assert_eq!(error["data"]["uri"], uri, "{error}");
}

#[tokio::test]
async fn prompt_without_a_required_argument_is_invalid_params() {
    let body = request(
        "prompt-arg",
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "only"}}),
    );
    expect_request_error(&body, 200, code::INVALID_PARAMS, "arg2").await;
}

#[tokio::test]
async fn tool_arguments_violating_the_schema_are_a_tool_error() {
    let body = call_tool("bad-args", "json_schema_2020_12_tool", json!({"name": 5}));
    let result = call_ok(&body).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = tool_text(&result);
    assert!(
        text.contains("/name") && text.contains("string"),
        "the error names the offending argument and the expected type: {text}"
    );
    assert_still_serving().await;
}

#[tokio::test]
async fn missing_client_capability_is_400_with_the_required_capabilities() {
    let body = call_tool("no-sampling", "test_missing_capability", json!({}));
    let error = expect_request_error(
        &body,
        400,
        code::MISSING_CLIENT_CAPABILITY,
        "Missing required client capability",
    )
    .await;
    assert!(
        error["data"]["requiredCapabilities"]["sampling"].is_object(),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------------
// HTTP-level refusals

/// Posts a body that streams `prefix` and then stalls forever, optionally declaring
/// `content_length`. The response can only arrive if the server answers without waiting
/// for the rest of the body, which is what a size limit must do. (A body sent in full
/// races the server closing the connection, and hyper's client then reports a broken
/// pipe instead of the response.)
async fn post_stalled_body(content_length: Option<usize>, prefix: Vec<u8>) -> reqwest::Response {
    let body = discover("too-big");
    let mut builder = client().post(SERVER.url());
    for (name, value) in mcp_headers(&body) {
        builder = builder.header(name, value);
    }
    if let Some(length) = content_length {
        builder = builder.header("Content-Length", length.to_string());
    }
    let chunks = prefix
        .chunks(64 * 1024)
        .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
        .collect::<Vec<_>>();
    let stream = futures_util::stream::iter(chunks).chain(futures_util::stream::pending());
    tokio::time::timeout(
        READ_TIMEOUT,
        builder.body(reqwest::Body::wrap_stream(stream)).send(),
    )
    .await
    .expect("the server answered before the body was complete")
    .expect("the HTTP request succeeded")
}

/// Checks a 413 answer carrying a JSON-RPC error without id, then a working server.
async fn assert_payload_too_large(response: reqwest::Response) {
    assert_eq!(response.status(), 413);
    let message: Value = response.json().await.expect("a JSON-RPC error body");
    assert_error(&message, None, code::INVALID_REQUEST, "Payload Too Large");
    assert_still_serving().await;
}

#[tokio::test]
async fn oversized_body_is_413() {
    // Declared 5 MiB (limit 4 MiB): refused from the Content-Length alone.
    let prefix =
        br#"{"jsonrpc":"2.0","id":"too-big","method":"server/discover","params":{"padding":""#;
    let response = post_stalled_body(Some(5 * 1024 * 1024), prefix.to_vec()).await;
    assert_payload_too_large(response).await;
}

#[tokio::test]
async fn oversized_chunked_body_is_413() {
    // No Content-Length: refused once more than 4 MiB has streamed in.
    let response = post_stalled_body(None, vec![b' '; 4 * 1024 * 1024 + 64 * 1024]).await;
    assert_payload_too_large(response).await;
}

#[tokio::test]
async fn text_plain_content_type_is_415() {
    expect_header_refused(
        "text-plain",
        "Content-Type",
        "text/plain",
        415,
        "Content-Type",
    )
    .await;
}

#[tokio::test]
async fn accept_text_html_is_406() {
    expect_header_refused("html", "Accept", "text/html", 406, "Not Acceptable").await;
}

#[tokio::test]
async fn foreign_host_is_403() {
    expect_header_refused("evil-host", "Host", "evil.example.com", 403, "Host").await;
}

#[tokio::test]
async fn foreign_origin_is_403() {
    let origin = "http://evil.example.com";
    expect_header_refused("evil-origin", "Origin", origin, 403, "Origin").await;
}

#[tokio::test]
async fn localhost_origin_and_host_are_accepted() {
    let port = SERVER.port;
    let body = discover("local-origin");
    let reply = Post::new(&body)
        .header("Origin", &format!("http://localhost:{port}"))
        .header("Host", &format!("localhost:{port}"))
        .send()
        .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_result(reply.json(), &body["id"]);
}

#[tokio::test]
async fn get_and_delete_are_405() {
    for method in [Method::GET, Method::DELETE] {
        let reply = Post::raw(Vec::new()).method(method.clone()).send().await;
        assert_eq!(reply.status, 405, "{method}: {reply:?}");
        assert_eq!(
            reply.headers.get("allow").map(|v| v.to_str().unwrap()),
            Some("POST"),
            "{method}"
        );
    }
    assert_still_serving().await;
}

#[tokio::test]
async fn notification_post_is_202_with_an_empty_body() {
    let body = notification(
        "notifications/cancelled",
        json!({"requestId": "nothing", "_meta": {}}),
    );
    let reply = Post::new(&body).send().await;
    assert_eq!(reply.status, 202, "{reply:?}");
    assert!(reply.body.is_empty(), "{reply:?}");
    assert_still_serving().await;
}
