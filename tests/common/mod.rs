//! Helpers shared by the end-to-end tests (`http`, `stdio` and `conformance`): 2026-07-28
//! request bodies and HTTP headers, building and spawning the `conformance_server` example,
//! SSE parsing and assertions on JSON-RPC responses.
//!
//! Not every test binary uses every helper, hence the `dead_code` allowances.

#![allow(dead_code, unreachable_pub)]

use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

/// The protocol revision every request speaks.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// `_meta` key naming the request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key carrying the client's capabilities for this request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key asking for log messages at or above a level.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key tagging notifications of a `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key of a result naming the server.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// JSON-RPC and MCP error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const HEADER_MISMATCH: i64 = -32020;
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// How long to wait for the server to answer one message before failing the test.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the freshly spawned HTTP server of [`HttpServer::start`] may take to accept
/// connections.
const START_TIMEOUT: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------------------
// Messages

/// The required per-request `_meta`: protocol version and (empty) client capabilities.
pub fn meta() -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_PROTOCOL_VERSION.into(), json!(PROTOCOL_VERSION));
    meta.insert(META_CLIENT_CAPABILITIES.into(), json!({}));
    meta
}

/// A 2026-07-28 request: `params` plus the required `_meta`.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    request_with_meta(id, method, params, Map::new())
}

/// A request whose `_meta` is the required one with `extra` merged over it (for example a
/// `progressToken` or a log level).
pub fn request_with_meta(
    id: impl Into<Value>,
    method: &str,
    params: Value,
    extra: Map<String, Value>,
) -> Value {
    let mut meta = meta();
    meta.extend(extra);
    let mut params = match params {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => panic!("params must be an object, got {other}"),
    };
    params.insert("_meta".into(), Value::Object(meta));
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// A request with exactly the given `params` (no `_meta` added), for malformed-meta cases.
pub fn raw_request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// A client notification (no id).
pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// `tools/call` of `name` with `arguments`.
pub fn call_tool(id: impl Into<Value>, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": name, "arguments": arguments }),
    )
}

/// `tools/call` of `name` (no arguments) with extra `_meta` entries.
pub fn call_tool_with_meta(id: impl Into<Value>, name: &str, extra: Value) -> Value {
    let extra = match extra {
        Value::Object(map) => map,
        other => panic!("extra _meta must be an object, got {other}"),
    };
    request_with_meta(id, "tools/call", json!({ "name": name }), extra)
}

/// `server/discover`.
pub fn discover(id: impl Into<Value>) -> Value {
    request(id, "server/discover", json!({}))
}

/// `subscriptions/listen` with the given filter.
pub fn listen(id: impl Into<Value>, filter: Value) -> Value {
    request(
        id,
        "subscriptions/listen",
        json!({ "notifications": filter }),
    )
}

/// `notifications/cancelled` for `request_id`.
pub fn cancelled(request_id: impl Into<Value>) -> Value {
    notification(
        "notifications/cancelled",
        json!({ "requestId": request_id.into(), "reason": "test cancelled it" }),
    )
}

/// The value of `Mcp-Name` for a request body: `params.name` for `tools/call` and
/// `prompts/get`, `params.uri` for `resources/read`.
pub fn mcp_name(body: &Value) -> Option<String> {
    let param = match body["method"].as_str()? {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    body["params"][param].as_str().map(str::to_owned)
}

/// The headers a conforming client sends with `body`: `Content-Type`, `Accept`, and the
/// mirrored `MCP-Protocol-Version`, `Mcp-Method` and (where it applies) `Mcp-Name`.
pub fn mcp_headers(body: &Value) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
    ];
    let version = body["params"]["_meta"][META_PROTOCOL_VERSION]
        .as_str()
        .unwrap_or(PROTOCOL_VERSION);
    headers.push(("MCP-Protocol-Version", version.to_owned()));
    if let Some(method) = body["method"].as_str() {
        headers.push(("Mcp-Method", method.to_owned()));
    }
    if let Some(name) = mcp_name(body) {
        headers.push(("Mcp-Name", name));
    }
    headers
}

// ---------------------------------------------------------------------------------------------
// Assertions

/// Checks `message` is a JSON-RPC error with `code`, a message containing `needle`
/// (case-insensitively), and the request id echoed (`Some`) or absent (`None`). Returns
/// the `error` object.
#[track_caller]
pub fn assert_error<'a>(
    message: &'a Value,
    id: Option<&Value>,
    code: i64,
    needle: &str,
) -> &'a Value {
    assert_eq!(
        message["jsonrpc"], "2.0",
        "not a JSON-RPC 2.0 message: {message}"
    );
    assert!(
        message.get("result").is_none(),
        "expected error {code}, got a result: {message}"
    );
    let error = &message["error"];
    assert_eq!(error["code"], code, "wrong error code in {message}");
    let text = error["message"]
        .as_str()
        .unwrap_or_else(|| panic!("error without a message: {message}"));
    assert!(
        text.to_lowercase().contains(&needle.to_lowercase()),
        "error message {text:?} does not mention {needle:?}"
    );
    match id {
        Some(id) => assert_eq!(
            &message["id"], id,
            "the error must echo the request id: {message}"
        ),
        None => assert!(
            message.get("id").is_none_or(Value::is_null),
            "an error for an unreadable request has no id: {message}"
        ),
    }
    error
}

/// Checks `message` is a successful response to `id` with `resultType: "complete"` and
/// the server's identity in `_meta`. Returns the `result` object.
#[track_caller]
pub fn assert_result<'a>(message: &'a Value, id: &Value) -> &'a Value {
    assert_eq!(
        message["jsonrpc"], "2.0",
        "not a JSON-RPC 2.0 message: {message}"
    );
    assert!(
        message.get("error").is_none(),
        "expected a result, got {message}"
    );
    assert_eq!(&message["id"], id, "the response must echo the request id");
    let result = &message["result"];
    assert!(
        result.is_object(),
        "response without a result object: {message}"
    );
    assert_eq!(result["resultType"], "complete", "{message}");
    assert_eq!(
        result["_meta"][META_SERVER_INFO]["name"], "mcp-rust-conformance-server",
        "results carry the server's identity: {message}"
    );
    result
}

/// The concatenated text blocks of a tool result's `content`.
pub fn tool_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `message` is a notification with `method`.
pub fn is_notification(message: &Value, method: &str) -> bool {
    message.get("id").is_none() && message["method"] == method
}

/// The `notifications/message` entries among `messages`.
pub fn log_messages(messages: &[Value]) -> Vec<&Value> {
    messages
        .iter()
        .filter(|m| is_notification(m, "notifications/message"))
        .collect()
}

/// The `notifications/progress` entries among `messages`.
pub fn progress_messages(messages: &[Value]) -> Vec<&Value> {
    messages
        .iter()
        .filter(|m| is_notification(m, "notifications/progress"))
        .collect()
}

/// Checks `notifications` are increasing progress reports for `token`.
#[track_caller]
pub fn assert_progress_reports(notifications: &[&Value], token: &Value) {
    assert!(!notifications.is_empty(), "no progress was reported");
    let mut last = f64::NEG_INFINITY;
    for n in notifications {
        assert_eq!(&n["params"]["progressToken"], token, "{n}");
        let progress = n["params"]["progress"]
            .as_f64()
            .unwrap_or_else(|| panic!("progress without a number: {n}"));
        assert!(progress > last, "progress must increase: {notifications:?}");
        last = progress;
    }
}

// ---------------------------------------------------------------------------------------------
// SSE

/// Splits an SSE body into the JSON messages of its `data:` lines (one message per event;
/// several `data:` lines of one event are joined with newlines). Comments and other fields
/// are ignored.
#[track_caller]
pub fn parse_sse(body: &str) -> Vec<Value> {
    let mut parser = SseParser::default();
    let mut messages = parser.push(body);
    messages.extend(parser.push("\n\n"));
    messages
}

/// An incremental SSE parser: feed it chunks as they arrive, get whole messages back.
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: String,
    data: Vec<String>,
}

impl SseParser {
    /// Adds a chunk and returns the messages of the events it completed.
    #[track_caller]
    pub fn push(&mut self, chunk: &str) -> Vec<Value> {
        self.buffer.push_str(chunk);
        let mut messages = Vec::new();
        while let Some(end) = self.buffer.find('\n') {
            let line: String = self.buffer.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    let data = self.data.join("\n");
                    self.data.clear();
                    let message = serde_json::from_str(&data)
                        .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {data:?}"));
                    messages.push(message);
                }
            } else if let Some(data) = line.strip_prefix("data:") {
                self.data
                    .push(data.strip_prefix(' ').unwrap_or(data).to_owned());
            }
        }
        messages
    }
}

// ---------------------------------------------------------------------------------------------
// The fixture server process

/// The root package's directory (the workspace root).
pub fn root_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The cargo target directory: `CARGO_TARGET_DIR` or `<root>/target`.
pub fn target_dir() -> PathBuf {
    let root = root_dir();
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir), // an absolute path replaces `root`
        None => root.join("target"),
    }
}

/// Builds `examples/conformance_server.rs` once per test binary, with the cargo and
/// profile running the tests, and returns the path of the executable.
pub fn server_binary() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(build_server_binary).clone()
}

fn build_server_binary() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let release = !cfg!(debug_assertions);
    let mut build = Command::new(cargo);
    build
        .args(["build", "--quiet", "--example", "conformance_server"])
        .current_dir(root_dir());
    if release {
        build.arg("--release");
    }
    capture(&mut build);
    let exe = target_dir()
        .join(if release { "release" } else { "debug" })
        .join("examples")
        .join(format!(
            "conformance_server{}",
            std::env::consts::EXE_SUFFIX
        ));
    assert!(
        exe.is_file(),
        "built the conformance server but {exe:?} does not exist"
    );
    exe
}

/// Runs `command` and returns its trimmed stdout; panics with its output if it fails.
pub fn capture(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap_or_else(|e| panic!("cannot bind a loopback port: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("cannot read the bound port: {e}"))
        .port()
}

/// Spawns `command` with stdin closed and stdout and stderr written to a fresh `log` file.
pub fn spawn_logged(command: &mut Command, log: &Path) -> std::io::Result<Child> {
    let (out, err) = log_file(log)?;
    command.stdin(Stdio::null()).stdout(out).stderr(err).spawn()
}

/// A fresh `log` file, twice: for stdout and for stderr.
fn log_file(log: &Path) -> std::io::Result<(File, File)> {
    let out = File::create(log)?;
    let err = out.try_clone()?;
    Ok((out, err))
}

/// A child process that is killed (and reaped) when the guard is dropped, also on panic.
#[derive(Debug)]
pub struct ChildGuard {
    pub child: Child,
}

impl ChildGuard {
    /// Spawns `command`.
    pub fn spawn(command: &mut Command) -> Self {
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        Self { child }
    }

    /// Spawns `command` with its output in a fresh `log` file (see [`spawn_logged`]).
    pub fn spawn_logged(command: &mut Command, log: &Path) -> Self {
        let child = spawn_logged(command, log)
            .unwrap_or_else(|e| panic!("cannot start {command:?} (log {log:?}): {e}"));
        Self { child }
    }

    /// The exit status if the process has ended.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child
            .try_wait()
            .unwrap_or_else(|e| panic!("cannot poll the child process: {e}"))
    }

    /// Waits up to `timeout` for the process to exit on its own.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Errors only mean the process has already gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fixture server over stdio: stdin, stdout and stderr are pipes owned by the caller.
pub fn spawn_stdio_server() -> ChildGuard {
    ChildGuard::spawn(
        Command::new(server_binary())
            .arg("--stdio")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
}

/// The fixture server over HTTP on `127.0.0.1:<port>/mcp`.
#[derive(Debug)]
pub struct HttpServer {
    pub port: u16,
    /// Kept open for the life of the server: see [`HttpServer::try_start`].
    _process: ChildGuard,
}

impl HttpServer {
    /// Starts the server with its output discarded (see [`HttpServer::try_start`]);
    /// panics if it does not start.
    pub fn start() -> Self {
        Self::try_start(None, START_TIMEOUT)
            .unwrap_or_else(|e| panic!("the conformance server did not start: {e}"))
    }

    /// Starts the server on a free port and waits up to `timeout` until it accepts
    /// connections. Its stdout and stderr go to a fresh `log` file (with the inherited
    /// `RUST_LOG`), or nowhere (with `RUST_LOG=error`). A port taken by another process in
    /// the meantime is retried on another port; the error says why the last attempt failed.
    ///
    /// A server held in a `static` is never dropped, so on Unix it runs under a small `sh`
    /// watchdog that kills it once its stdin (a pipe from this process) reaches end of
    /// file: that happens when the guard is dropped or the test process exits, however it
    /// exits. The `sh` itself exits when the server does, so an early exit (port taken) is
    /// still noticed.
    pub fn try_start(log: Option<&Path>, timeout: Duration) -> Result<Self, String> {
        let binary = server_binary();
        let mut last_error = String::new();
        for _attempt in 0..3 {
            let port = free_port();
            let mut command = http_server_command(&binary, port);
            match log {
                Some(log) => {
                    let (out, err) = log_file(log)
                        .unwrap_or_else(|e| panic!("cannot create the log {log:?}: {e}"));
                    command.stdout(out).stderr(err);
                }
                None => {
                    command
                        .env("RUST_LOG", "error")
                        .stdout(Stdio::null())
                        .stderr(Stdio::null());
                }
            }
            let mut process = ChildGuard::spawn(&mut command);
            match wait_until_listening(&mut process, port, timeout) {
                Ok(()) => {
                    return Ok(Self {
                        port,
                        _process: process,
                    });
                }
                // Most likely another process took the port in between: try another one.
                Err(error) => last_error = error,
            }
        }
        Err(last_error)
    }

    /// The MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// The server command for `port`; the caller sets stdout and stderr.
#[cfg(unix)]
fn http_server_command(binary: &Path, port: u16) -> Command {
    let mut command = Command::new("sh");
    command
        .args([
            "-c",
            r#"exec 3<&0
               "$0" --port "$1" & server=$!
               { cat <&3 >/dev/null; kill "$server" 2>/dev/null; } &
               exec 3<&-
               wait "$server""#,
        ])
        .arg(binary)
        .arg(port.to_string())
        .stdin(Stdio::piped());
    command
}

/// The server command for `port`; the caller sets stdout and stderr.
#[cfg(not(unix))]
fn http_server_command(binary: &Path, port: u16) -> Command {
    let mut command = Command::new(binary);
    command
        .args(["--port", &port.to_string()])
        .stdin(Stdio::null());
    command
}

/// Waits up to `timeout` until `port` accepts TCP connections; fails if `process` exits
/// first or the time runs out.
pub fn wait_until_listening(
    process: &mut ChildGuard,
    port: u16,
    timeout: Duration,
) -> Result<(), String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let deadline = Instant::now() + timeout;
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Some(status) = process.try_wait() {
            return Err(format!("it exited early ({status})"));
        }
        if Instant::now() > deadline {
            return Err(format!("it did not listen on {addr} within {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}
