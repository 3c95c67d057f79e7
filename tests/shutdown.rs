//! Graceful shutdown and logging, on real processes: SIGTERM and SIGINT sent to the
//! `quickstart` example and to a fixture server over stdio and Streamable HTTP, the request
//! lines `RUST_LOG=typemcp_server=debug` writes to stderr, and a stdio server whose handler prints
//! to stdout.
//!
//! The binary is its own fixture (`harness = false`): with `MCP_SHUTDOWN_FIXTURE=stdio` or
//! `http:PORT` it serves [`fixture`] instead of running the tests. Unix only (signals are
//! sent with `kill`). Every test spawns its
//! server on loopback, bounds every wait, and kills what is left when it ends.
//!
//! ```text
//! cargo test --test shutdown [FILTER]
//! ```

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The fixture's grace period (`ServerBuilder::shutdown_grace`).
const GRACE: Duration = Duration::from_secs(2);
/// How long a server may take to exit once it has nothing left to wait for.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long to wait for one message.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The environment variable that makes this binary serve the fixture.
const FIXTURE_ENV: &str = "MCP_SHUTDOWN_FIXTURE";

/// The fixture server: a slow tool, a tool printing to stdout, a tool asking a question.
mod fixture {
    use std::time::Duration;

    use serde::{Deserialize, Serialize};
    use typemcp_server::state::{Continuation, Reply, Round, Step};
    use typemcp_server::{ElicitForm, Server, tool};

    /// Sleeps, then says how long.
    #[tool]
    async fn slow(
        /// How long to sleep, in milliseconds.
        ms: u64,
    ) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("slept {ms} ms")
    }

    /// Prints `text` on stdout (where a stdio server's protocol goes) and on stderr.
    #[tool]
    async fn shout(
        /// What to print.
        text: String,
    ) -> String {
        println!("{text}");
        "shouted".to_owned()
    }

    /// Go ahead?
    #[derive(ElicitForm)]
    struct Confirm {
        /// Go ahead?
        ok: bool,
    }

    /// Where the confirmation stands.
    #[derive(Serialize, Deserialize, Clone, Continuation)]
    enum Flow {
        #[awaits(confirm: Confirm)]
        Confirming,
    }

    /// Asks for a confirmation, then answers.
    #[tool]
    async fn confirm(round: Round<Flow>) -> Step<Flow, String> {
        match round.resume() {
            None => round.ask(FlowAsking::Confirming {
                confirm: "Go ahead?".into(),
            }),
            Some(FlowAnswered::Confirming {
                confirm: Reply::Accepted(Confirm { ok }),
            }) => Step::done(format!("confirmed: {ok}")),
            Some(_) => Step::done("declined"),
        }
    }

    /// Serves the fixture over `mode` (`stdio` or `http:PORT`); the process's exit code
    /// says whether serving returned `Ok`.
    pub(super) fn serve(mode: &str) -> ! {
        typemcp_server::logging::init();
        let served = tokio::runtime::Runtime::new().map(|runtime| {
            runtime.block_on(async {
                let server = Server::builder()
                    .name("shutdown-fixture")
                    .version("1.0.0")
                    .shutdown_grace(super::GRACE)
                    .tool(slow)
                    .tool(shout)
                    .tool(confirm)
                    .build()
                    .map_err(std::io::Error::other)?;
                if let Some(port) = mode.strip_prefix("http-on:") {
                    // A custom set-up: its own listener and `shutdown_signal()`.
                    let port: u16 = port.parse().map_err(std::io::Error::other)?;
                    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
                    let config = typemcp_server::transport::http::HttpConfig::default();
                    let signal = typemcp_server::transport::shutdown_signal();
                    return server.serve_http_on(listener, config, signal).await;
                }
                match mode.strip_prefix("http:") {
                    Some(port) => {
                        let port: u16 = port.parse().map_err(std::io::Error::other)?;
                        server.serve_http(("127.0.0.1", port)).await
                    }
                    None => server.serve_stdio().await,
                }
            })
        });
        match served.and_then(|served| served) {
            Ok(()) => std::process::exit(0),
            Err(err) => {
                eprintln!("fixture: {err}");
                std::process::exit(1)
            }
        }
    }
}

// ----- Processes -----

/// A spawned server, killed on drop; its stderr collected as it comes.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Option<mpsc::Receiver<String>>,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    fn spawn(mut command: Command) -> Self {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("the server starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("a piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = Arc::clone(&stderr);
        let mut pipe = child.stderr.take().expect("a piped stderr");
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(read @ 1..) = pipe.read(&mut chunk) {
                let text = String::from_utf8_lossy(&chunk[..read]);
                lock(&collected).push_str(&text);
            }
        });
        Self {
            child,
            stdin,
            lines: Some(lines),
            stderr,
        }
    }

    /// The fixture over stdio.
    fn fixture_stdio() -> Self {
        let mut command = Command::new(std::env::current_exe().expect("this test's binary"));
        command.env(FIXTURE_ENV, "stdio");
        Self::spawn(command)
    }

    /// The fixture over HTTP on `port`, once it answers.
    fn fixture_http(port: u16) -> Self {
        let mut command = Command::new(std::env::current_exe().expect("this test's binary"));
        command.env(FIXTURE_ENV, format!("http:{port}"));
        let server = Self::spawn(command);
        wait_for_http(port);
        server
    }

    /// The fixture over HTTP on `port` through `serve_http_on` and `shutdown_signal()`.
    fn fixture_http_on(port: u16) -> Self {
        let mut command = Command::new(std::env::current_exe().expect("this test's binary"));
        command.env(FIXTURE_ENV, format!("http-on:{port}"));
        let server = Self::spawn(command);
        wait_for_http(port);
        server
    }

    /// The `quickstart` example with `args`.
    fn quickstart(args: &[&str]) -> Self {
        let mut command = Command::new(common::example_binary("quickstart"));
        command.args(args);
        Self::spawn(command)
    }

    /// Writes one message on the server's stdin.
    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{message}").expect("the server reads its stdin");
        stdin.flush().expect("the server reads its stdin");
    }

    /// The next message on stdout; every line must be one JSON-RPC message.
    fn next(&self) -> Value {
        let lines = self.lines.as_ref().expect("stdout is read");
        let line = lines.recv_timeout(READ_TIMEOUT).unwrap_or_else(|_| {
            panic!(
                "no message within {READ_TIMEOUT:?}; stderr:\n{}",
                self.stderr()
            )
        });
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|_| panic!("stdout carries something else than JSON-RPC: {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
        message
    }

    /// The response to request `id` (notifications before it skipped).
    fn response(&self, id: &Value) -> Value {
        loop {
            let message = self.next();
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Sends `kill -SIGNAL` to the server.
    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("`kill` runs");
        assert!(status.success(), "kill -{signal} failed");
    }

    /// Waits up to `timeout` for the server to exit.
    fn exit_within(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be polled") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "still running {timeout:?} later; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the server wrote to stderr so far.
    fn stderr(&self) -> String {
        lock(&self.stderr).clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Errors only mean the process has already gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Waits until an MCP POST on `port` is answered.
fn wait_for_http(port: u16) {
    let client = http_client(Duration::from_secs(2));
    let deadline = Instant::now() + common::START_TIMEOUT;
    let url = format!("http://127.0.0.1:{port}/mcp");
    while Instant::now() < deadline {
        if client.get(&url).send().is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nothing answers on port {port}");
}

fn http_client(timeout: Duration) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .build()
        .expect("an HTTP client")
}

/// POSTs `message` to `port` with a conforming client's headers: the status and the
/// JSON-RPC response (or the error of a connection that broke).
fn post(port: u16, message: &Value) -> Result<(u16, Value), String> {
    let client = http_client(READ_TIMEOUT);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let post = client.post(url).body(message.to_string());
    let post = common::mcp_headers(message)
        .into_iter()
        .fold(post, |post, (name, value)| post.header(name, value));
    let response = post.send().map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").cloned();
    let content_type = content_type.map(|v| v.to_str().unwrap_or_default().to_owned());
    let body = response.text().map_err(|e| e.to_string())?;
    let messages = common::messages_of(content_type.as_deref(), &body);
    let answer = messages
        .into_iter()
        .rfind(|m| m.get("id") == message.get("id") && m.get("method").is_none());
    answer
        .map(|answer| (status, answer))
        .ok_or_else(|| format!("no JSON-RPC response in {body:?}"))
}

/// The text of a tool result.
fn text(response: &Value) -> String {
    let content = &response["result"]["content"][0]["text"];
    content
        .as_str()
        .unwrap_or_else(|| panic!("not a tool result with text: {response}"))
        .to_owned()
}

/// Asserts `response` is a JSON-RPC error with `code` whose message contains `needle`.
fn assert_refused(response: &Value, code: i64, needle: &str) {
    let error = &response["error"];
    assert_eq!(error["code"], code, "{response}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{needle:?} not in {response}");
}

/// The message of requests refused once a shutdown started.
const REFUSED: &str = "Service Unavailable: the server is shutting down";
/// The message of requests cancelled when the grace period is over.
const CANCELLED: &str = "the server shut down";
const INTERNAL_ERROR: i64 = -32603;

// ----- Logging -----

/// `quickstart` over stdio with `RUST_LOG=typemcp_server=debug` answers, and its stderr has one
/// line per request served (method, outcome), without the arguments.
fn quickstart_logs_each_request_to_stderr() {
    let mut command = Command::new(common::example_binary("quickstart"));
    command.env("RUST_LOG", "typemcp_server=debug");
    let mut server = Server::spawn(command);
    let id = json!(1);
    server.send(&common::call_tool(1, "add", json!({ "a": 40_123, "b": 2 })));
    assert_eq!(text(&server.response(&id)), "40125");
    server.send(&common::request(2, "tools/list", json!({})));
    assert!(server.response(&json!(2))["result"]["tools"].is_array());
    server.stdin = None;
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
    let stderr = server.stderr();
    let served: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("served a request"))
        .collect();
    assert_eq!(served.len(), 2, "one line per request:\n{stderr}");
    assert!(served[0].contains("tools/call") && served[0].contains("\"ok\""));
    assert!(served[0].contains("2026-07-28") && served[0].contains("network.transport=\"pipe\""));
    assert!(served[0].contains("gen_ai.tool.name=\"add\""));
    assert!(served[1].contains("tools/list"));
    assert!(
        !stderr.contains("40123"),
        "arguments are never logged:\n{stderr}"
    );
}

/// A handler printing to stdout does not corrupt the stdio channel: every line the client
/// reads is a JSON-RPC message, the printed text is on stderr, after one warning.
fn stdout_writes_go_to_stderr_with_one_warning() {
    let mut server = Server::fixture_stdio();
    for id in 1..=3 {
        server.send(&common::call_tool(
            id,
            "shout",
            json!({ "text": "hello from println" }),
        ));
        // `next` fails on a line that is not JSON-RPC.
        assert_eq!(text(&server.response(&json!(id))), "shouted");
    }
    server.stdin = None;
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
    let stderr = server.stderr();
    assert_eq!(stderr.matches("hello from println").count(), 3, "{stderr}");
    let warnings = stderr.matches("something wrote to stdout").count();
    assert_eq!(warnings, 1, "warned once:\n{stderr}");
}

// ----- Shutdown: quickstart -----

/// `quickstart` over stdio exits 0 on SIGTERM and on SIGINT, stdin still open.
fn quickstart_stdio_exits_0_on_sigterm_and_sigint() {
    for signal in ["TERM", "INT"] {
        let mut server = Server::quickstart(&[]);
        server.send(&common::call_tool(1, "add", json!({ "a": 2, "b": 3 })));
        assert_eq!(text(&server.response(&json!(1))), "5");
        server.signal(signal);
        let status = server.exit_within(EXIT_TIMEOUT);
        assert_eq!(status.code(), Some(0), "SIG{signal}: {status}");
    }
}

/// `quickstart` over HTTP exits 0 on SIGTERM and on SIGINT.
fn quickstart_http_exits_0_on_sigterm_and_sigint() {
    for signal in ["TERM", "INT"] {
        let port = common::fresh_port();
        let mut server = Server::quickstart(&["--http", &port.to_string()]);
        wait_for_http(port);
        let (status, answer) = post(
            port,
            &common::call_tool(1, "add", json!({ "a": 2, "b": 3 })),
        )
        .unwrap();
        assert_eq!((status, text(&answer).as_str()), (200, "5"));
        server.signal(signal);
        let status = server.exit_within(EXIT_TIMEOUT);
        assert_eq!(status.code(), Some(0), "SIG{signal}: {status}");
    }
}

/// An open `subscriptions/listen` of `quickstart` over stdio ends gracefully on SIGTERM
/// (its request answered with a result), and the process exits 0 without waiting for the
/// grace period.
fn quickstart_stdio_ends_listens_on_sigterm() {
    let mut server = Server::quickstart(&[]);
    server.send(&common::listen(1, json!({ "toolsListChanged": true })));
    let acknowledged = server.next();
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    let signalled = Instant::now();
    server.signal("TERM");
    let ended = server.response(&json!(1));
    assert!(
        ended["result"].is_object(),
        "a listen ends with a result: {ended}"
    );
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
    let took = signalled.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "exited {took:?} after the signal"
    );
}

// ----- Shutdown: in flight over stdio -----

/// After SIGTERM over stdio, a call in flight finishes and is answered, a new request is
/// refused, and the process exits 0 once the call is done (before the grace period ends).
fn stdio_call_in_flight_finishes_new_requests_refused() {
    let mut server = Server::fixture_stdio();
    server.send(&common::call_tool(1, "slow", json!({ "ms": 1000 })));
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(200));
    server.send(&common::request(2, "tools/list", json!({})));
    assert_refused(&server.response(&json!(2)), INTERNAL_ERROR, REFUSED);
    assert_eq!(text(&server.response(&json!(1))), "slept 1000 ms");
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
    let took = signalled.elapsed();
    assert!(
        took < GRACE,
        "exited {took:?} after the signal, not when the call ended"
    );
}

/// A call longer than the grace period is cancelled (answered with an error) when it ends,
/// and the process exits 0.
fn stdio_call_longer_than_grace_is_cancelled() {
    let mut server = Server::fixture_stdio();
    server.send(&common::call_tool(1, "slow", json!({ "ms": 600_000 })));
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    server.signal("INT");
    assert_refused(&server.response(&json!(1)), INTERNAL_ERROR, CANCELLED);
    let cancelled = signalled.elapsed();
    assert!(
        cancelled >= GRACE,
        "cancelled {cancelled:?} after the signal"
    );
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
}

/// A 2025-11-25 session over stdio: a call waiting on a pushed question when SIGTERM comes
/// still gets the client's answer and completes; a new request meanwhile is refused.
fn stdio_pushed_round_completes_during_shutdown() {
    let mut server = Server::fixture_stdio();
    server.send(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": { "form": {} } },
            "clientInfo": { "name": "shutdown-test", "version": "1.0.0" }
        }
    }));
    assert!(server.response(&json!(0))["result"].is_object());
    server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    server.send(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "confirm", "arguments": {} }
    }));
    let question = server.next();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    server.send(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {} }));
    assert_refused(&server.response(&json!(2)), INTERNAL_ERROR, REFUSED);
    server.send(&json!({
        "jsonrpc": "2.0", "id": question["id"],
        "result": { "action": "accept", "content": { "ok": true } }
    }));
    assert_eq!(text(&server.response(&json!(1))), "confirmed: true");
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
}

/// A call of `slow` for `ms` over HTTP on its own thread, in flight once this returns.
fn slow_call_in_flight(
    port: u16,
    ms: u64,
) -> std::thread::JoinHandle<Result<(u16, Value), String>> {
    let call =
        std::thread::spawn(move || post(port, &common::call_tool(1, "slow", json!({ "ms": ms }))));
    std::thread::sleep(Duration::from_millis(300));
    call
}

// ----- Shutdown: in flight over HTTP -----

/// After SIGTERM over HTTP, a call in flight finishes (200), a new request is refused with
/// 503 and a JSON-RPC error, and the process exits 0 before the grace period ends.
fn http_call_in_flight_finishes_new_requests_refused() {
    let port = common::fresh_port();
    let mut server = Server::fixture_http(port);
    let call = slow_call_in_flight(port, 1000);
    let signalled = Instant::now();
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(200));
    let (status, refused) = post(port, &common::request(2, "tools/list", json!({}))).unwrap();
    assert_eq!(status, 503, "{refused}");
    assert_refused(&refused, INTERNAL_ERROR, REFUSED);
    let (status, answer) = call.join().expect("the call's thread").unwrap();
    assert_eq!((status, text(&answer).as_str()), (200, "slept 1000 ms"));
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
    let took = signalled.elapsed();
    assert!(
        took < GRACE,
        "exited {took:?} after the signal, not when the call ended"
    );
}

/// Over HTTP, a call longer than the grace period is answered with an error when the grace
/// period ends, and the process exits 0.
fn http_call_longer_than_grace_is_cancelled() {
    let port = common::fresh_port();
    let mut server = Server::fixture_http(port);
    let call = slow_call_in_flight(port, 600_000);
    let signalled = Instant::now();
    server.signal("INT");
    let (_status, answer) = call.join().expect("the call's thread").unwrap();
    assert_refused(&answer, INTERNAL_ERROR, CANCELLED);
    assert!(signalled.elapsed() >= GRACE);
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
}

/// A second signal during the grace period of `serve_http` stops the server at once: the
/// call in flight is answered with the shutdown error and the process exits 0, well before
/// the grace period ends.
fn http_second_signal_stops_at_once() {
    let port = common::fresh_port();
    let mut server = Server::fixture_http(port);
    let call = slow_call_in_flight(port, 600_000);
    let signalled = Instant::now();
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(200));
    server.signal("INT");
    let (_status, answer) = call.join().expect("the call's thread").unwrap();
    assert_refused(&answer, INTERNAL_ERROR, CANCELLED);
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
    let took = signalled.elapsed();
    assert!(took < GRACE, "exited {took:?} after the first signal");
}

/// With `serve_http_on(.., shutdown_signal())`, the first signal starts the graceful
/// shutdown (a call in flight goes on, a new request gets 503) and a second one ends the
/// process at once with exit status 130, rather than being swallowed.
fn http_on_second_signal_exits_at_once() {
    let port = common::fresh_port();
    let mut server = Server::fixture_http_on(port);
    let call = slow_call_in_flight(port, 600_000);
    let signalled = Instant::now();
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(200));
    let (status, refused) = post(port, &common::request(2, "tools/list", json!({}))).unwrap();
    assert_eq!(status, 503, "{refused}");
    server.signal("INT");
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(130));
    let took = signalled.elapsed();
    assert!(took < GRACE, "exited {took:?} after the first signal");
    assert!(
        call.join().expect("the call's thread").is_err(),
        "the process ended with the call in flight"
    );
}

/// A POST of the 2025-11-25 era: `message` on `session` (if any), as such a client sends it.
fn legacy_post(port: u16, session: Option<&str>, message: &Value) -> reqwest::blocking::Response {
    let client = http_client(READ_TIMEOUT);
    let post = client
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(message.to_string());
    let post = match session {
        Some(session) => post
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25"),
        None => post,
    };
    post.send().expect("the POST is answered")
}

/// The next JSON-RPC message of an SSE stream (events without data skipped).
fn next_event(stream: &mut impl BufRead) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let read = stream.read_line(&mut line).expect("the stream can be read");
        assert!(read > 0, "the stream ended");
        if let Some(data) = line.trim_end().strip_prefix("data:")
            && !data.trim().is_empty()
        {
            return serde_json::from_str(data.trim()).expect("an event of JSON");
        }
    }
}

/// A 2025-11-25 session over HTTP: a call waiting on a pushed question when SIGTERM comes
/// still gets the client's answer (POSTed after the signal) and completes on its stream; a
/// new request meanwhile is refused with 503; the process exits 0.
fn http_pushed_round_completes_during_shutdown() {
    let port = common::fresh_port();
    let mut server = Server::fixture_http(port);
    let opened = legacy_post(
        port,
        None,
        &json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": { "elicitation": { "form": {} } },
                "clientInfo": { "name": "shutdown-test", "version": "1.0.0" }
            }
        }),
    );
    assert_eq!(opened.status().as_u16(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let session = Some(session.as_str());
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    assert_eq!(
        legacy_post(port, session, &initialized).status().as_u16(),
        202
    );
    let call = legacy_post(
        port,
        session,
        &json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": "confirm", "arguments": {} }
        }),
    );
    assert_eq!(call.status().as_u16(), 200);
    let mut stream = BufReader::new(call);
    let question = next_event(&mut stream);
    assert_eq!(question["method"], "elicitation/create", "{question}");
    server.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {} });
    let refused = legacy_post(port, session, &list);
    assert_eq!(refused.status().as_u16(), 503);
    let refused: Value = refused.json().expect("a JSON-RPC error");
    assert_refused(&refused, INTERNAL_ERROR, REFUSED);
    let answer = json!({
        "jsonrpc": "2.0", "id": question["id"],
        "result": { "action": "accept", "content": { "ok": true } }
    });
    assert_eq!(legacy_post(port, session, &answer).status().as_u16(), 202);
    let result = loop {
        let event = next_event(&mut stream);
        if event["id"] == 1 {
            break event;
        }
    };
    assert_eq!(text(&result), "confirmed: true");
    assert_eq!(server.exit_within(EXIT_TIMEOUT).code(), Some(0));
}

// ----- Runner -----

type Test = (&'static str, fn());

const TESTS: &[Test] = &[
    (
        "quickstart_logs_each_request_to_stderr",
        quickstart_logs_each_request_to_stderr,
    ),
    (
        "stdout_writes_go_to_stderr_with_one_warning",
        stdout_writes_go_to_stderr_with_one_warning,
    ),
    (
        "quickstart_stdio_exits_0_on_sigterm_and_sigint",
        quickstart_stdio_exits_0_on_sigterm_and_sigint,
    ),
    (
        "quickstart_http_exits_0_on_sigterm_and_sigint",
        quickstart_http_exits_0_on_sigterm_and_sigint,
    ),
    (
        "quickstart_stdio_ends_listens_on_sigterm",
        quickstart_stdio_ends_listens_on_sigterm,
    ),
    (
        "stdio_call_in_flight_finishes_new_requests_refused",
        stdio_call_in_flight_finishes_new_requests_refused,
    ),
    (
        "stdio_call_longer_than_grace_is_cancelled",
        stdio_call_longer_than_grace_is_cancelled,
    ),
    (
        "stdio_pushed_round_completes_during_shutdown",
        stdio_pushed_round_completes_during_shutdown,
    ),
    (
        "http_call_in_flight_finishes_new_requests_refused",
        http_call_in_flight_finishes_new_requests_refused,
    ),
    (
        "http_call_longer_than_grace_is_cancelled",
        http_call_longer_than_grace_is_cancelled,
    ),
    (
        "http_pushed_round_completes_during_shutdown",
        http_pushed_round_completes_during_shutdown,
    ),
    (
        "http_second_signal_stops_at_once",
        http_second_signal_stops_at_once,
    ),
    (
        "http_on_second_signal_exits_at_once",
        http_on_second_signal_exits_at_once,
    ),
];

fn main() {
    if let Ok(mode) = std::env::var(FIXTURE_ENV) {
        fixture::serve(&mode);
    }
    if cfg!(not(unix)) {
        println!("skipped: the signals are sent with `kill`, on Unix only");
        return;
    }
    // Like libtest: the first argument that is not a flag filters by name; `--list` lists.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().find(|arg| !arg.starts_with('-'));
    if args.iter().any(|arg| arg == "--list") {
        for (name, _) in TESTS {
            println!("{name}: test");
        }
        return;
    }
    let selected: Vec<&Test> = TESTS
        .iter()
        .filter(|(name, _)| filter.is_none_or(|filter| name.contains(filter.as_str())))
        .collect();
    println!("running {} tests", selected.len());
    let mut failed = Vec::new();
    for (name, test) in selected {
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(test);
        let verdict = if outcome.is_ok() { "ok" } else { "FAILED" };
        println!(
            "test {name} ... {verdict} ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        if outcome.is_err() {
            failed.push(name);
        }
    }
    if !failed.is_empty() {
        println!("failed: {failed:?}");
        std::process::exit(1);
    }
    println!("test result: ok");
}
