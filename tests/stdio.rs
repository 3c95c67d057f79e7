//! End-to-end tests of the stdio transport: the `conformance_server` example runs as a
//! child process (`--stdio`, one per test), gets newline-delimited JSON-RPC on stdin and
//! answers on stdout.
//!
//! Covered: discovery and a tool call, progress and log notifications ahead of the
//! response, `subscriptions/listen` (acknowledgement, tagged list changes, cancellation),
//! refusal of malformed lines, cancellation of an in-flight request, and a clean exit
//! after end of input. Every read has a deadline, so a silent server fails the test
//! instead of hanging it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::ChildStdin;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{
    ChildGuard, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID, PROTOCOL_VERSION,
    READ_TIMEOUT, assert_error, assert_progress_reports, assert_result, call_tool,
    call_tool_with_meta, cancelled, code, discover, listen, log_messages, progress_messages,
    raw_request, request, tool_text,
};
use serde_json::{Value, json};

/// How long to watch for output that must not appear.
const QUIET_PERIOD: Duration = Duration::from_millis(500);

/// The fixture server over stdio, with a reader thread turning stdout into JSON messages.
struct StdioServer {
    process: ChildGuard,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl StdioServer {
    fn start() -> Self {
        let mut process = common::spawn_stdio_server();
        let stdin = process.child.stdin.take().expect("piped stdin");
        let stdout = process.child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            process,
            stdin: Some(stdin),
            lines,
        }
    }

    /// Writes one line (a newline is appended); panics, naming the server's exit status,
    /// if the server no longer reads its input.
    fn send_line(&mut self, line: &str) {
        if let Err(e) = self.try_send_line(line) {
            let status = self.process.child.try_wait().ok().flatten();
            panic!("cannot write to the server ({e}); it has exited: {status:?}");
        }
    }

    /// Writes one line (a newline is appended).
    fn try_send_line(&mut self, line: &str) -> std::io::Result<()> {
        assert!(!line.contains('\n'), "one message per line");
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// Writes one message.
    fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Closes stdin: end of input for the server.
    fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// The next message within `timeout`; `None` if none arrived or stdout closed.
    fn next_within(&self, timeout: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC ({e}): {line:?}")),
        )
    }

    /// The next message; panics if none arrives within [`READ_TIMEOUT`].
    fn next(&self) -> Value {
        self.next_within(READ_TIMEOUT)
            .expect("the server wrote a line in time")
    }

    /// Reads until the response to `id`; returns it and every message seen before it.
    fn until_response(&self, id: &Value) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + READ_TIMEOUT;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .next_within(left)
                .unwrap_or_else(|| panic!("no response to {id} in time; saw {before:?}"));
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Sends a request and returns its response (other messages in between are dropped).
    fn call(&mut self, message: &Value) -> Value {
        self.send(message);
        self.until_response(&message["id"]).0
    }

    /// Sends a request and returns its successful result.
    fn call_ok(&mut self, message: &Value) -> Value {
        let response = self.call(message);
        assert_result(&response, &message["id"]).clone()
    }

    /// Every message written within `period`.
    fn drain_for(&self, period: Duration) -> Vec<Value> {
        let deadline = Instant::now() + period;
        let mut seen = Vec::new();
        while let Some(message) =
            self.next_within(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(message);
        }
        seen
    }

    /// The server still answers a well-formed request.
    fn assert_still_serving(&mut self) {
        let result = self.call_ok(&discover("still-serving"));
        assert!(result["supportedVersions"].is_array(), "{result}");
    }
}

/// Writes `line`, expects one error line (code, message, id), then a working server.
fn expect_error_line(line: &str, id: Option<&Value>, code: i64, needle: &str) -> Value {
    let mut server = StdioServer::start();
    server.send_line(line);
    let message = server.next();
    let error = assert_error(&message, id, code, needle).clone();
    server.assert_still_serving();
    error
}

// ---------------------------------------------------------------------------------------------
// Happy paths

#[test]
fn discover_and_tool_call_are_answered() {
    let mut server = StdioServer::start();
    let result = server.call_ok(&discover(1));
    let versions = result["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!(PROTOCOL_VERSION)), "{result}");
    assert!(result["capabilities"]["tools"].is_object(), "{result}");

    let result = server.call_ok(&call_tool("call", "test_simple_text", json!({})));
    assert_eq!(
        tool_text(&result),
        "This is a simple text response for testing."
    );
}

#[test]
fn progress_lines_precede_the_response() {
    let mut server = StdioServer::start();
    let body = call_tool_with_meta(
        "prog",
        "test_tool_with_progress",
        json!({"progressToken": 99}),
    );
    server.send(&body);
    let (response, before) = server.until_response(&body["id"]);
    let progress = progress_messages(&before);
    assert_eq!(progress.len(), 3, "0, 50 and 100 of 100: {before:?}");
    assert_progress_reports(&progress, &json!(99));
    assert_eq!(
        tool_text(assert_result(&response, &body["id"])),
        "Progress complete."
    );
}

#[test]
fn logging_follows_the_requested_level() {
    let mut server = StdioServer::start();
    for (id, extra, expected) in [
        ("info", json!({META_LOG_LEVEL: "info"}), 3),
        ("error", json!({META_LOG_LEVEL: "error"}), 0),
        ("absent", json!({}), 0),
    ] {
        let body = call_tool_with_meta(id, "test_logging_tool", extra);
        server.send(&body);
        let (response, before) = server.until_response(&body["id"]);
        assert_result(&response, &body["id"]);
        let logs = log_messages(&before);
        assert_eq!(logs.len(), expected, "level {id}: {before:?}");
        for log in logs {
            assert_eq!(log["params"]["level"], "info", "{log}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// subscriptions/listen

#[test]
fn listen_acknowledges_forwards_tagged_changes_and_stops_when_cancelled() {
    let mut server = StdioServer::start();
    let listen_id = json!("sub-1");
    server.send(&listen(
        listen_id.clone(),
        json!({"toolsListChanged": true}),
    ));
    let ack = server.next();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"][META_SUBSCRIPTION_ID], listen_id,
        "{ack}"
    );
    assert_eq!(
        ack["params"]["notifications"]["toolsListChanged"], true,
        "{ack}"
    );

    let trigger = call_tool("trigger-1", "test_trigger_tool_change", json!({}));
    server.send(&trigger);
    let mut seen = Vec::new();
    let mut changed = None;
    let mut answered = false;
    while changed.is_none() || !answered {
        let message = server.next();
        if message["id"] == trigger["id"] {
            assert_result(&message, &trigger["id"]);
            answered = true;
        } else if message["method"] == "notifications/tools/list_changed" {
            changed = Some(message);
        } else {
            seen.push(message);
        }
    }
    let changed = changed.unwrap();
    assert_eq!(
        changed["params"]["_meta"][META_SUBSCRIPTION_ID], listen_id,
        "{changed}"
    );
    assert!(seen.is_empty(), "unexpected messages: {seen:?}");

    server.send(&cancelled(listen_id.clone()));
    server.call_ok(&call_tool(
        "trigger-2",
        "test_trigger_tool_change",
        json!({}),
    ));
    let after = server.drain_for(QUIET_PERIOD);
    let for_listen: Vec<&Value> = after
        .iter()
        .filter(|m| m["id"] == listen_id || m["params"]["_meta"][META_SUBSCRIPTION_ID] == listen_id)
        .collect();
    assert!(
        for_listen.is_empty(),
        "written after the cancellation: {for_listen:?}"
    );
    server.assert_still_serving();
}

// ---------------------------------------------------------------------------------------------
// Malformed input

#[test]
fn invalid_json_line_is_a_parse_error() {
    expect_error_line(
        r#"{"jsonrpc":"2.0","id":1,"#,
        None,
        code::PARSE_ERROR,
        "Parse error",
    );
}

#[test]
fn batch_line_is_an_invalid_request() {
    let batch = json!([discover(1), discover(2)]).to_string();
    expect_error_line(&batch, None, code::INVALID_REQUEST, "batch");
}

#[test]
fn missing_meta_is_invalid_params_with_id() {
    let body = raw_request("no-meta", "server/discover", json!({}));
    expect_error_line(
        &body.to_string(),
        Some(&body["id"]),
        code::INVALID_PARAMS,
        "_meta",
    );
}

#[test]
fn unknown_method_is_method_not_found() {
    let body = request(5, "tools/explode", json!({}));
    expect_error_line(
        &body.to_string(),
        Some(&body["id"]),
        code::METHOD_NOT_FOUND,
        "tools/explode",
    );
}

#[test]
fn unsupported_version_lists_the_supported_ones() {
    let mut body = discover("v999");
    body["params"]["_meta"][META_PROTOCOL_VERSION] = json!("v999.0.0");
    let error = expect_error_line(
        &body.to_string(),
        Some(&body["id"]),
        code::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    );
    assert!(
        error["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!(PROTOCOL_VERSION)),
        "{error}"
    );
    assert_eq!(error["data"]["requested"], "v999.0.0");
}

#[test]
fn oversized_line_is_an_invalid_request() {
    let mut server = StdioServer::start();
    let padding = "x".repeat(5 * 1024 * 1024);
    let line = call_tool("too-big", "test_simple_text", json!({"padding": padding})).to_string();
    // A server that stops reading mid-line makes this write fail; the next write reports it.
    let _ = server.try_send_line(&line);
    let message = server.next();
    assert_error(&message, None, code::INVALID_REQUEST, "too large");
    server.assert_still_serving();
}

// ---------------------------------------------------------------------------------------------
// Cancellation and shutdown

#[test]
fn a_cancelled_request_is_never_answered() {
    let mut server = StdioServer::start();
    let slow = call_tool_with_meta(
        "slow",
        "test_tool_with_progress",
        json!({"progressToken": "cancel-me"}),
    );
    server.send(&slow);
    let first = server.next();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    server.send(&cancelled(slow["id"].clone()));

    let next = discover("after-cancel");
    server.send(&next);
    let (response, mut seen) = server.until_response(&next["id"]);
    assert_result(&response, &next["id"]);
    // The tool would have finished within ~100 ms; give it time to (wrongly) answer.
    seen.extend(server.drain_for(QUIET_PERIOD));
    let answers: Vec<&Value> = seen.iter().filter(|m| m["id"] == slow["id"]).collect();
    assert!(
        answers.is_empty(),
        "a cancelled request was answered: {answers:?}"
    );
}

#[test]
fn end_of_input_answers_in_flight_requests_then_exits_cleanly() {
    let mut server = StdioServer::start();
    let slow = call_tool("slow", "test_tool_with_progress", json!({}));
    server.send(&slow);
    server.close_stdin();
    let (response, _) = server.until_response(&slow["id"]);
    assert_eq!(
        tool_text(assert_result(&response, &slow["id"])),
        "Progress complete."
    );
    let status = server
        .process
        .wait_timeout(READ_TIMEOUT)
        .expect("the server exits after end of input");
    assert!(status.success(), "exit status {status}");
    assert!(
        server.next_within(Duration::from_millis(100)).is_none(),
        "stdout is closed"
    );
}
