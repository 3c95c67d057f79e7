//! Tests of the stdio transport, in-process: the `conformance_server` example's registrations
//! (its file included as a module) are served by [`Server::serve_io`] over in-memory pipes,
//! one server per test, with newline-delimited JSON-RPC in and out.
//!
//! Covered: progress and log notifications ahead of the response, `subscriptions/listen`,
//! refusal of malformed lines, and cancellation. A smoke test spawns the example binary with
//! `--stdio`: it answers, and at end of input answers the request in flight and exits with 0.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use crate::common::code::*;
use crate::common::stdio_pipe::{self, Pipe};
use crate::common::*;
use serde_json::{Value, json};
use tokio::io::DuplexStream;

/// The fixture server served on in-memory pipes: what the test writes is its stdin.
fn start() -> Pipe<DuplexStream, DuplexStream> {
    let server = crate::fixture::server().expect("the fixture server builds");
    let (input, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, output) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve_io(server_in, server_out));
    Pipe::new(input, output, None)
}

// ----- The spawned binary -----

#[tokio::test]
async fn the_spawned_example_answers_then_exits_cleanly_at_end_of_input() {
    let (mut pipe, mut child) = stdio_pipe::spawn(FIXTURE, &["--stdio"]);
    let result = pipe.call_ok(&discover(1)).await;
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
    let call = call_tool("call", "test_simple_text", json!({}));
    let text = tool_text(&pipe.call_ok(&call).await);
    assert_eq!(text, "This is a simple text response for testing.");

    // End of input: the request in flight is still answered, then the process exits with 0.
    let slow = call_tool("slow", "test_tool_with_progress", json!({}));
    pipe.send(&slow).await;
    pipe.close();
    let (response, _) = pipe.until_response(&slow["id"]).await;
    let text = tool_text(assert_result(&response, &slow["id"]));
    assert_eq!(text, "Progress complete.");
    let status = tokio::time::timeout(READ_TIMEOUT, child.wait()).await;
    let status = status.expect("it exits after end of input").unwrap();
    assert!(status.success(), "exit status {status}");
    let output = pipe.next_within(Duration::from_millis(100)).await;
    assert_eq!(output, None, "stdout is closed");
}

#[tokio::test]
async fn the_spawned_example_frames_its_real_stdin_through_bad_lines_and_bursts() {
    // `serve_stdio` reads the process's stdin and writes its stdout (pipes here) on tokio's
    // reactor: the same framing rules hold there as on any reader.
    let (mut pipe, mut child) = stdio_pipe::spawn(FIXTURE, &["--stdio"]);
    pipe.send(r#"{"jsonrpc":"2.0","id":1,"#).await;
    assert_error(&pipe.next().await, None, PARSE_ERROR, "Parse error");
    let big = call_tool(
        "too-big",
        "test_simple_text",
        json!({"pad": "x".repeat(5 << 20)}),
    );
    pipe.send(&big).await;
    assert_error(&pipe.next().await, None, INVALID_REQUEST, "too large");
    pipe.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":\xff}\n")
        .await;
    assert_error(&pipe.next().await, None, PARSE_ERROR, "UTF-8");
    pipe.assert_still_serving().await;

    // A burst, written at once: every request is answered once, under its own id.
    let burst = 2_000;
    let mut lines = String::new();
    for n in 0..burst {
        let call = call_tool(format!("burst-{n}"), "test_simple_text", json!({}));
        lines.push_str(&call.to_string());
        lines.push('\n');
    }
    pipe.send_bytes(lines.as_bytes()).await;
    let mut seen = std::collections::HashSet::new();
    while seen.len() < burst {
        let reply = pipe.next().await;
        let id = reply["id"].as_str().unwrap_or_default().to_owned();
        assert!(id.starts_with("burst-"), "{reply}");
        assert_eq!(
            tool_text(&reply["result"]),
            "This is a simple text response for testing.",
            "{reply}"
        );
        assert!(seen.insert(id), "answered twice: {reply}");
    }

    // End of input ends the process cleanly.
    pipe.close();
    let status = tokio::time::timeout(READ_TIMEOUT, child.wait()).await;
    let status = status.expect("it exits after end of input").unwrap();
    assert!(status.success(), "exit status {status}");
}

/// The three exchanges every kind of stdin and stdout is served with: `discover`, a call, and
/// a call still running when input ends (answered before the process exits).
fn three_requests() -> [Value; 3] {
    [
        discover(1),
        call_tool("call", "test_simple_text", json!({})),
        call_tool("slow", "test_tool_with_progress", json!({})),
    ]
}

/// Checks the replies to [`three_requests`], in any order and among notifications.
fn assert_three_answered(replies: &[Value]) {
    let reply = |id: Value| {
        let found = replies
            .iter()
            .find(|r| r["id"] == id && r.get("method").is_none());
        found.unwrap_or_else(|| panic!("no reply to {id} among {replies:?}"))
    };
    assert!(reply(json!(1))["result"]["capabilities"]["tools"].is_object());
    let text = tool_text(&reply(json!("call"))["result"]);
    assert_eq!(text, "This is a simple text response for testing.");
    assert_eq!(
        tool_text(&reply(json!("slow"))["result"]),
        "Progress complete."
    );
}

#[tokio::test]
async fn the_spawned_example_serves_sockets_for_stdin_and_stdout() {
    // Node's `child_process.spawn` (the TypeScript SDK's client) gives a child sockets, not
    // pipes: they are read and written on the reactor too.
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;
    let (ours_in, child_in) = UnixStream::pair().unwrap();
    let (ours_out, child_out) = UnixStream::pair().unwrap();
    let mut command = tokio::process::Command::new(example_binary(FIXTURE));
    command
        .arg("--stdio")
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::from(OwnedFd::from(child_in)))
        .stdout(std::process::Stdio::from(OwnedFd::from(child_out)))
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    // The child's ends live in the child only: its output ends when it exits.
    drop(command);
    let [input, output] = [ours_in, ours_out].map(|end| {
        end.set_nonblocking(true).unwrap();
        tokio::net::UnixStream::from_std(end).unwrap()
    });
    let mut pipe = Pipe::new(input, output, None);
    let requests = three_requests();
    for request in &requests {
        pipe.send(request).await;
    }
    pipe.close();
    let mut replies = Vec::new();
    while let Some(reply) = pipe.next_within(READ_TIMEOUT).await {
        replies.push(reply);
    }
    assert_three_answered(&replies);
    let status = tokio::time::timeout(READ_TIMEOUT, child.wait()).await;
    let status = status.expect("it exits after end of input").unwrap();
    assert!(status.success(), "exit status {status}");
}

#[tokio::test]
async fn the_spawned_example_serves_a_file_on_stdin_and_stdout() {
    // A file cannot wait in an event loop: stdin and stdout are then served by threads of
    // their own, with the same answers.
    let dir = out_dir("examples-e2e");
    let (input, output) = (dir.join("stdio-file.in"), dir.join("stdio-file.out"));
    let lines: String = three_requests().iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&input, lines).unwrap();
    let mut child = tokio::process::Command::new(example_binary(FIXTURE))
        .arg("--stdio")
        .env("RUST_LOG", "warn")
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let status = tokio::time::timeout(READ_TIMEOUT, child.wait()).await;
    let status = status.expect("it exits after end of input").unwrap();
    assert!(status.success(), "exit status {status}");
    let written = std::fs::read_to_string(&output).unwrap();
    let replies: Vec<Value> = written
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_three_answered(&replies);
}

// ----- Notifications ahead of the response -----

#[tokio::test]
async fn progress_lines_precede_the_response() {
    let mut pipe = start();
    let meta = json!({"progressToken": 99});
    let body = call_tool_with_meta("prog", "test_tool_with_progress", meta);
    let (response, before) = pipe.exchange(&body).await;
    let progress = progress_messages(&before);
    assert_eq!(progress.len(), 3, "0, 50 and 100 of 100: {before:?}");
    assert_progress_reports(&progress, &json!(99));
    let text = tool_text(assert_result(&response, &body["id"]));
    assert_eq!(text, "Progress complete.");
}

#[tokio::test]
async fn logging_follows_the_requested_level() {
    let mut pipe = start();
    for (id, extra, expected) in [
        ("info", json!({META_LOG_LEVEL: "info"}), 3),
        ("error", json!({META_LOG_LEVEL: "error"}), 0),
        ("absent", json!({}), 0),
    ] {
        let body = call_tool_with_meta(id, "test_logging_tool", extra);
        let (response, before) = pipe.exchange(&body).await;
        assert_result(&response, &body["id"]);
        let logs = log_messages(&before);
        assert_eq!(logs.len(), expected, "level {id}: {before:?}");
        let info = logs.iter().all(|log| log["params"]["level"] == "info");
        assert!(info, "{logs:?}");
    }
}

// ----- subscriptions/listen -----

#[tokio::test]
async fn listen_acknowledges_forwards_tagged_changes_and_stops_when_cancelled() {
    let mut pipe = start();
    let id = json!("sub-1");
    let filter = json!({"toolsListChanged": true});
    pipe.send(listen(id.clone(), filter.clone())).await;
    let tagged = |method: &str, mut params: Value| {
        params["_meta"] = json!({ META_SUBSCRIPTION_ID: id });
        json!({ "method": method, "params": params })
    };
    let acknowledged = "notifications/subscriptions/acknowledged";
    let ack = tagged(acknowledged, json!({ "notifications": filter }));
    assert_includes(&pipe.next().await, ack);

    // The change and the trigger's response arrive in either order, and nothing else.
    let trigger = call_tool("trigger-1", "test_trigger_tool_change", json!({}));
    let (response, mut seen) = pipe.exchange(&trigger).await;
    assert_result(&response, &trigger["id"]);
    if seen.is_empty() {
        seen.push(pipe.next().await);
    }
    assert_eq!(seen.len(), 1, "unexpected messages: {seen:?}");
    let changed = "notifications/tools/list_changed";
    assert_includes(&seen[0], tagged(changed, json!({})));

    pipe.send(cancelled(id.clone())).await;
    let trigger = call_tool("trigger-2", "test_trigger_tool_change", json!({}));
    pipe.call_ok(&trigger).await;
    let after = pipe.drain_for(Duration::from_millis(500)).await;
    let tag = |m: &&Value| m["id"] == id || m["params"]["_meta"][META_SUBSCRIPTION_ID] == id;
    let for_listen: Vec<&Value> = after.iter().filter(tag).collect();
    assert!(for_listen.is_empty(), "after cancelling: {for_listen:?}");
    pipe.assert_still_serving().await;
}

// ----- Malformed input -----

#[tokio::test]
async fn malformed_lines_get_an_error_and_the_server_keeps_serving() {
    let mut v999 = discover("v999");
    v999["params"]["_meta"][META_PROTOCOL_VERSION] = json!("v999.0.0");
    let v999 = v999.to_string();
    let no_meta = raw_request("no-meta", "server/discover", json!({})).to_string();
    let unknown = request(5, "tools/explode", json!({})).to_string();
    let batch = json!([discover(1), discover(2)]).to_string();
    let truncated = r#"{"jsonrpc":"2.0","id":1,"#.to_owned();
    let big = json!({"padding": "x".repeat(5 * 1024 * 1024)});
    let big = call_tool("too-big", "test_simple_text", big).to_string();
    let unsupported = UNSUPPORTED_PROTOCOL_VERSION;
    let cases = [
        ("truncated", truncated, PARSE_ERROR, "Parse error"),
        ("batch", batch, INVALID_REQUEST, "batch"),
        ("over 4 MiB", big, INVALID_REQUEST, "too large"),
        ("no _meta", no_meta, INVALID_PARAMS, "_meta"),
        ("unknown", unknown, METHOD_NOT_FOUND, "tools/explode"),
        ("v999", v999, unsupported, "Unsupported protocol version"),
    ];
    let mut pipe = start();
    for (case, line, code, needle) in cases {
        pipe.send(&line).await;
        let error = pipe.next().await;
        // The id is echoed when it can be read: not from a line over the 4 MiB limit.
        let request: Value = serde_json::from_str(&line).unwrap_or_default();
        let id = Some(&request["id"]).filter(|id| !id.is_null() && line.len() < 4 << 20);
        if let Some(mismatch) = error_mismatch(&error, id, code, needle) {
            panic!("{case}: {mismatch}");
        }
        if case == "v999" {
            let data = &error["error"]["data"];
            let supported = data["supported"].as_array().unwrap();
            assert!(supported.contains(&json!(PROTOCOL_VERSION)), "{error}");
            assert_eq!(data["requested"], "v999.0.0", "{error}");
        }
        pipe.assert_still_serving().await;
    }
}

// ----- Cancellation -----

#[tokio::test]
async fn a_cancelled_request_is_never_answered() {
    let mut pipe = start();
    let meta = json!({"progressToken": "cancel-me"});
    let slow = call_tool_with_meta("slow", "test_tool_with_progress", meta);
    pipe.send(&slow).await;
    let first = pipe.next().await;
    assert_eq!(first["method"], "notifications/progress", "{first}");
    pipe.send(cancelled(slow["id"].clone())).await;

    let next = discover("after-cancel");
    let (response, mut seen) = pipe.exchange(&next).await;
    assert_result(&response, &next["id"]);
    // The tool would have finished within ~100 ms; give it time to (wrongly) answer.
    seen.extend(pipe.drain_for(Duration::from_millis(500)).await);
    let answers: Vec<&Value> = seen.iter().filter(|m| m["id"] == slow["id"]).collect();
    assert!(answers.is_empty(), "answered after cancelling: {answers:?}");
}
