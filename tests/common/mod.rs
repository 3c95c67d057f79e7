//! Helpers shared by the end-to-end tests: 2026-07-28 requests and the HTTP headers a
//! conforming client sends, assertions on JSON-RPC responses, SSE parsing, and the example
//! servers of the root package, built, spawned and spoken to over raw HTTP (here) or stdio
//! ([`stdio_pipe`]), for what only the raw wire shows. [`npm`] installs the pinned Node packages of the conformance and
//! interoperability tests, [`python`] the pinned Python clients, [`redis`] starts a throwaway
//! `redis-server`, [`deploy`] drives the `deploy` example's multi-round flow, and [`booking`]
//! the `booking` example's, and checks what the client drivers report of it.
//!
//! Not every test binary uses every helper, hence the `dead_code` allowances.

#![allow(dead_code, unreachable_pub)]

pub mod booking;
pub mod client_report;
pub mod deploy;
pub mod nginx;
pub mod npm;
pub mod peer_deploy;
pub mod python;
pub mod redis;
pub mod stdio_pipe;

use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::{FutureExt, TryStreamExt};
use serde_json::{Map, Value, json};
use sse_stream::SseStream;

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

/// The one message of every refused `requestState` (bad, expired, bound elsewhere, replayed).
pub const INVALID_STATE: &str = "Invalid or expired \"requestState\"";

/// How long to wait for the server to answer one message before failing the test.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a freshly spawned HTTP server may take to accept connections.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);
/// The example the conformance suite and most end-to-end tests run against.
pub const FIXTURE: &str = "conformance_server";
/// The name [`FIXTURE`] reports in the `_meta` of its results.
pub const FIXTURE_NAME: &str = "mcp-rust-conformance-server";

// ----- Messages -----

/// A request with exactly the given `params` (no `_meta` added), for malformed-meta cases.
pub fn raw_request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": method, "params": params })
}

/// Entries of a `_meta` object.
pub type Meta = Map<String, Value>;

/// A 2026-07-28 request: `params` (an object) with the required `_meta` (protocol version,
/// empty client capabilities) and `extra` entries merged over it, for example a
/// `progressToken` or a log level.
pub fn request_with_meta(id: impl Into<Value>, method: &str, params: Value, extra: Meta) -> Value {
    let mut body = raw_request(id, method, params);
    let meta = json!({META_PROTOCOL_VERSION: PROTOCOL_VERSION, META_CLIENT_CAPABILITIES: {}});
    body["params"]["_meta"] = meta;
    let meta = body["params"]["_meta"].as_object_mut();
    meta.expect("params is an object").extend(extra);
    body
}

/// A 2026-07-28 request: `params` plus the required `_meta`.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    request_with_meta(id, method, params, Map::new())
}

/// A client notification (no id).
pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// `tools/call` of `name` with `arguments`.
pub fn call_tool(id: impl Into<Value>, name: &str, arguments: Value) -> Value {
    let params = json!({ "name": name, "arguments": arguments });
    request(id, "tools/call", params)
}

/// `tools/call` of `name` (no arguments) with the `extra` `_meta` entries of an object.
pub fn call_tool_with_meta(id: impl Into<Value>, name: &str, extra: Value) -> Value {
    let extra = extra.as_object().expect("extra _meta is an object").clone();
    request_with_meta(id, "tools/call", json!({ "name": name }), extra)
}

/// `server/discover`.
pub fn discover(id: impl Into<Value>) -> Value {
    request(id, "server/discover", json!({}))
}

/// `subscriptions/listen` with the given filter.
pub fn listen(id: impl Into<Value>, filter: Value) -> Value {
    let params = json!({ "notifications": filter });
    request(id, "subscriptions/listen", params)
}

/// `notifications/cancelled` for `request_id`.
pub fn cancelled(request_id: impl Into<Value>) -> Value {
    let params = json!({ "requestId": request_id.into(), "reason": "test cancelled it" });
    notification("notifications/cancelled", params)
}

/// The headers a conforming client sends with `body`: `Content-Type`, `Accept`, and the
/// mirrored `MCP-Protocol-Version`, `Mcp-Method` and (where it applies) `Mcp-Name`:
/// `params.name` for `tools/call` and `prompts/get`, `params.uri` for `resources/read`,
/// `params.taskId` for `tasks/*`.
pub fn mcp_headers(body: &Value) -> Vec<(&'static str, &str)> {
    let (params, method) = (&body["params"], body["method"].as_str());
    let version = params["_meta"][META_PROTOCOL_VERSION].as_str();
    let name = match method {
        Some("tools/call" | "prompts/get") => params["name"].as_str(),
        Some("resources/read") => params["uri"].as_str(),
        Some("tasks/get" | "tasks/update" | "tasks/cancel") => params["taskId"].as_str(),
        _ => None,
    };
    let mut headers = vec![("MCP-Protocol-Version", version.unwrap_or(PROTOCOL_VERSION))];
    headers.push(("Content-Type", "application/json"));
    headers.push(("Accept", "application/json, text/event-stream"));
    headers.extend(method.map(|method| ("Mcp-Method", method)));
    headers.extend(name.map(|name| ("Mcp-Name", name)));
    headers
}

// ----- Assertions -----

/// Why `msg` is not a JSON-RPC error with `code`, a message containing `needle`
/// (case-insensitively) and the request id echoed (`Some`) or absent (`None`); `None` if it
/// is one.
pub fn error_mismatch(msg: &Value, id: Option<&Value>, code: i64, needle: &str) -> Option<String> {
    let text = msg["error"]["message"].as_str().unwrap_or_default();
    let text = text.to_lowercase();
    let echoed = msg.get("id").unwrap_or(&Value::Null) == id.unwrap_or(&Value::Null);
    let fits = msg["jsonrpc"] == "2.0" && msg.get("result").is_none() && echoed;
    let fits = fits && msg["error"]["code"] == code && text.contains(&needle.to_lowercase());
    let id = id.map_or("no id".to_owned(), |id| format!("id {id}"));
    (!fits).then(|| format!("expected error {code} mentioning {needle:?} with {id}: {msg}"))
}

/// Checks `msg` is the error [`error_mismatch`] describes. Returns the `error` object.
#[track_caller]
pub fn assert_error<'a>(msg: &'a Value, id: Option<&Value>, code: i64, needle: &str) -> &'a Value {
    if let Some(mismatch) = error_mismatch(msg, id, code, needle) {
        panic!("{mismatch}");
    }
    &msg["error"]
}

/// Checks `message` is a successful response to `id` with `resultType: "complete"` and
/// the fixture server's identity in `_meta`. Returns the `result` object.
#[track_caller]
pub fn assert_result<'a>(message: &'a Value, id: &Value) -> &'a Value {
    let result = &message["result"];
    let server = &result["_meta"][META_SERVER_INFO]["name"];
    let fits = message["jsonrpc"] == "2.0" && &message["id"] == id && result.is_object();
    let fits = fits && result["resultType"] == "complete" && message.get("error").is_none();
    let fits = fits && server == FIXTURE_NAME;
    assert!(fits, "not a complete result of the fixture: {message}");
    result
}

/// Checks `actual` holds everything in `expected`: objects recursively (extra fields are
/// fine, so `{}` stands for any object), arrays element by element, other values exactly.
#[track_caller]
pub fn assert_includes(actual: &Value, expected: Value) {
    fn includes(actual: &Value, expected: &Value) -> bool {
        match (actual, expected) {
            (Value::Object(actual), Value::Object(expected)) => {
                let included = |(k, v)| actual.get(k).is_some_and(|a| includes(a, v));
                expected.iter().all(included)
            }
            (Value::Array(actual), Value::Array(expected)) => {
                let pairs = actual.iter().zip(expected);
                actual.len() == expected.len() && pairs.into_iter().all(|(a, e)| includes(a, e))
            }
            _ => actual == expected,
        }
    }
    let included = includes(actual, &expected);
    assert!(included, "{actual}\ndoes not include {expected}");
}

/// The concatenated text blocks of a tool result's `content`.
pub fn tool_text(result: &Value) -> String {
    let blocks = result["content"].as_array().into_iter().flatten();
    let texts: Vec<&str> = blocks.filter_map(|block| block["text"].as_str()).collect();
    texts.join("\n")
}

/// The notifications with `method` among `messages`.
pub fn notifications<'a>(messages: &'a [Value], method: &str) -> Vec<&'a Value> {
    let is = |m: &&Value| m.get("id").is_none() && m["method"] == method;
    messages.iter().filter(is).collect()
}

/// The `notifications/message` entries among `messages`.
pub fn log_messages(messages: &[Value]) -> Vec<&Value> {
    notifications(messages, "notifications/message")
}

/// The `notifications/progress` entries among `messages`.
pub fn progress_messages(messages: &[Value]) -> Vec<&Value> {
    notifications(messages, "notifications/progress")
}

/// Checks `notifications` are increasing progress reports for `token`.
#[track_caller]
pub fn assert_progress_reports(notifications: &[&Value], token: &Value) {
    assert!(!notifications.is_empty(), "no progress was reported");
    let progress: Vec<&Value> = notifications.iter().map(|n| &n["params"]).collect();
    let tokens = progress.iter().all(|p| &p["progressToken"] == token);
    let up = |p: &[&Value]| p[0]["progress"].as_f64() < p[1]["progress"].as_f64();
    let increasing = progress.windows(2).all(up);
    let numbers = progress.iter().all(|p| p["progress"].is_number());
    let reports = tokens && numbers && increasing;
    assert!(reports, "increasing progress of {token}: {notifications:?}");
}

// ----- HTTP answers -----

/// The JSON-RPC messages of an HTTP answer: SSE events' data, a JSON body, or none.
#[track_caller]
pub fn messages_of(content_type: Option<&str>, body: &str) -> Vec<Value> {
    match content_type {
        Some(sse) if sse.starts_with("text/event-stream") => {
            let body = http_body_util::Full::new(bytes::Bytes::from(body.to_owned()));
            let events = SseStream::new(body).try_collect::<Vec<_>>().now_or_never();
            let events = events.expect("a whole body").expect("well-formed SSE");
            let data = events.into_iter().filter_map(|event| event.data);
            data.map(|data| from_json(&data)).collect()
        }
        _ if body.is_empty() => Vec::new(),
        _ => vec![from_json(body)],
    }
}

/// `text` parsed as JSON.
#[track_caller]
pub fn from_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"))
}

// ----- Example binaries and processes -----

/// The root package's directory (the workspace root).
pub fn root_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The cargo target directory: `CARGO_TARGET_DIR` (an absolute path replaces the root) or
/// `<root>/target`.
pub fn target_dir() -> PathBuf {
    root_dir().join(std::env::var_os("CARGO_TARGET_DIR").unwrap_or_else(|| "target".into()))
}

/// `target/<name>/`, created if missing: where a test keeps its logs.
pub fn out_dir(name: &str) -> PathBuf {
    let dir = target_dir().join(name);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {dir:?}: {e}"));
    dir
}

/// Builds `examples/<name>.rs` of the root package once per test binary, with the cargo and
/// profile running the tests, and returns the path of the executable.
pub fn example_binary(name: &str) -> PathBuf {
    // Holding the lock while building also keeps two builds from racing each other.
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    let release = !cfg!(debug_assertions);
    if !built.iter().any(|built| built == name) {
        let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        build.args(["build", "--quiet", "--example", name]);
        let release = build.args(release.then_some("--release"));
        capture(release.current_dir(root_dir()));
        built.push(name.to_owned());
    }
    let profile = if release { "release" } else { "debug" };
    let exe = format!("examples/{name}{}", std::env::consts::EXE_SUFFIX);
    let exe = target_dir().join(profile).join(exe);
    assert!(exe.is_file(), "built the example {name}, but not {exe:?}");
    exe
}

/// Runs `command` and returns its trimmed stdout; panics with its output if it fails.
pub fn capture(command: &mut Command) -> String {
    let output = command.output();
    let output = output.unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let (status, stderr) = (output.status, String::from_utf8_lossy(&output.stderr));
    let failed = format!("{command:?} failed ({status}):\n{stdout}\n{stderr}");
    assert!(status.success(), "{failed}");
    stdout
}

/// Spawns `command` with stdin closed and stdout and stderr written to a fresh `log` file.
pub fn spawn_logged(command: &mut Command, log: &Path) -> std::io::Result<Child> {
    let out = File::create(log)?;
    command.stdin(Stdio::null()).stderr(out.try_clone()?);
    command.stdout(out).spawn()
}

/// The last `lines` lines of the file at `path` (empty if it cannot be read).
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// A child process that is killed (and reaped) when the guard is dropped, also on panic.
#[derive(Debug)]
pub struct ChildGuard {
    pub child: Child,
}

impl ChildGuard {
    /// Spawns `command`.
    pub fn spawn(command: &mut Command) -> Self {
        let child = command.spawn();
        let child = child.unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        Self { child }
    }

    /// Spawns `command` with its output in a fresh `log` file (see [`spawn_logged`]).
    pub fn spawn_logged(command: &mut Command, log: &Path) -> Self {
        let child = spawn_logged(command, log);
        let child = child.unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        Self { child }
    }

    /// The exit status if the process has ended.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("a child to poll")
    }

    /// Waits up to `timeout` for the process to exit on its own.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            match self.try_wait() {
                None => std::thread::sleep(Duration::from_millis(20)),
                exited => return exited,
            }
        }
        self.try_wait()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Errors only mean the process has already gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An example server over HTTP on `127.0.0.1:<port>/mcp`.
#[derive(Debug)]
pub struct HttpServer {
    pub port: u16,
    /// The server process, killed on drop (see [`watched`] for servers never dropped).
    child: ChildGuard,
    /// Where its stdout and stderr go.
    log: PathBuf,
}

impl HttpServer {
    /// Starts the fixture server (see [`ExampleServer::http`]).
    pub fn start() -> Self {
        ExampleServer::named(FIXTURE).http()
    }

    /// Starts the fixture server with its output in `log` (by default that of
    /// [`ExampleServer::http`]), see [`ExampleServer::try_http`].
    pub fn try_start(log: Option<&Path>, timeout: Duration) -> Result<Self, String> {
        let fixture = ExampleServer::named(FIXTURE);
        fixture.try_http(log.unwrap_or(&fixture.http_log()), timeout)
    }

    /// The MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// What it has written to stdout and stderr so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Its log file.
    pub fn log(&self) -> &Path {
        &self.log
    }
}

/// `binary`, killed when the pipe on its stdin closes (the caller sets stdout and stderr).
///
/// A server held in a `static` is never dropped, so on Unix it runs under a small `sh`
/// watchdog that kills it once its stdin (a pipe from this process) reaches end of file:
/// that happens when the guard is dropped or the test process exits, however it exits. The
/// `sh` itself exits when the server does, so an early exit (port taken) is still noticed.
#[cfg(unix)]
fn watched(binary: &Path) -> Command {
    let script = r#"exec 3<&0
        "$0" "$@" & server=$!
        { cat <&3 >/dev/null; kill "$server" 2>/dev/null; } &
        exec 3<&-
        wait "$server""#;
    let mut command = Command::new("sh");
    command.args(["-c", script]).arg(binary);
    command.stdin(Stdio::piped());
    command
}

/// `binary`, with stdin closed (the caller sets stdout and stderr).
#[cfg(not(unix))]
fn watched(binary: &Path) -> Command {
    let mut command = Command::new(binary);
    command.stdin(Stdio::null());
    command
}

/// Every `$ref` inside `node` points into `root` (a `#/...` JSON pointer that resolves).
#[track_caller]
pub fn assert_refs_resolve(root: &Value, node: &Value, what: &str) {
    match node {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                let pointer = reference.strip_prefix('#');
                assert!(
                    pointer.is_some_and(|p| root.pointer(p).is_some()),
                    "{what}: $ref {reference:?} does not resolve in {root}"
                );
            }
            map.values()
                .for_each(|value| assert_refs_resolve(root, value, what));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|value| assert_refs_resolve(root, value, what)),
        _ => {}
    }
}

// ----- The example servers -----

/// An example server of the root package and how to start it.
#[derive(Debug, Clone, Copy)]
pub struct ExampleServer {
    /// Its file in `examples/`, without `.rs`.
    pub name: &'static str,
    /// The name it reports in the `_meta` of its results.
    pub server_name: &'static str,
    /// Its arguments to serve over stdio.
    pub stdio_args: &'static [&'static str],
    /// Its option to serve over HTTP, followed by the port.
    pub http_option: &'static str,
}

/// A name or an argument.
type Str = &'static str;

/// Every example that is a server (the others run on their own: see `tests/end_to_end/examples.rs`).
pub const EXAMPLE_SERVERS: [ExampleServer; 7] = [
    ExampleServer::new("quickstart", "quickstart", &[], "--http"),
    ExampleServer::new("booking", "booking", &[], "--http"),
    ExampleServer::new("deploy", "deployer", &[], "--http"),
    ExampleServer::new("layered", "layered", &[], "--http"),
    ExampleServer::new("long_task", "long-task", &[], "--http"),
    ExampleServer::new("skills", "skills", &[], "--http"),
    ExampleServer::new(FIXTURE, FIXTURE_NAME, &["--stdio"], "--port"),
];

impl ExampleServer {
    const fn new(name: Str, server: Str, stdio: &'static [Str], http: Str) -> Self {
        Self {
            name,
            server_name: server,
            stdio_args: stdio,
            http_option: http,
        }
    }

    /// The example called `name`.
    #[track_caller]
    pub fn named(name: &str) -> Self {
        let mut examples = EXAMPLE_SERVERS.into_iter();
        let example = examples.find(|example| example.name == name);
        example.unwrap_or_else(|| panic!("no example server called {name}"))
    }
    /// Builds (once) and starts it over HTTP on a free port, with its output in
    /// `target/examples-e2e/<name>.http.log`; panics, quoting that log, if it does not start.
    pub fn http(self) -> HttpServer {
        Launch::from(self).http()
    }

    /// `target/examples-e2e/<name>.http.log`.
    pub fn http_log(self) -> PathBuf {
        Launch::from(self).http_log()
    }

    /// Builds (once) and starts it on a free port, and waits up to `timeout` until it accepts
    /// connections. Its stdout and stderr go to a fresh `log` file. A port taken by another
    /// process in the meantime is retried on another port; the error says why the last
    /// attempt failed.
    pub fn try_http(self, log: &Path, timeout: Duration) -> Result<HttpServer, String> {
        Launch::from(self).try_http(log, timeout)
    }

    /// A launch of it with `args` after its HTTP option and port (see [`Launch`]).
    pub fn with_args<I: IntoIterator<Item = S>, S: Into<String>>(self, args: I) -> Launch {
        Launch::from(self).with_args(args)
    }

    /// A launch of it with the environment variable `name` set to `value` (see [`Launch`]).
    pub fn with_env(self, name: &str, value: impl Into<String>) -> Launch {
        Launch::from(self).with_env(name, value)
    }
}

/// How to start an [`ExampleServer`] over HTTP: with extra arguments (after its HTTP option
/// and port), environment variables set or removed, and a label naming its log, so that
/// several instances of one example can run side by side in one test:
///
/// ```ignore
/// let a = ExampleServer::named("deploy")
///     .with_args(["--redis", &redis.url()])
///     .with_env("MCP_REQUEST_STATE_KEYS", ring)
///     .labelled("scale-out-a")
///     .http();
/// ```
#[derive(Debug, Clone)]
pub struct Launch {
    example: ExampleServer,
    args: Vec<String>,
    /// Set (`Some`) or removed (`None`), in order.
    env: Vec<(String, Option<String>)>,
    label: Option<String>,
}

impl From<ExampleServer> for Launch {
    fn from(example: ExampleServer) -> Self {
        Self {
            example,
            args: Vec::new(),
            env: Vec::new(),
            label: None,
        }
    }
}

impl Launch {
    /// Adds `args` after the HTTP option and its port.
    pub fn with_args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets the environment variable `name` to `value` in the server's environment.
    pub fn with_env(mut self, name: &str, value: impl Into<String>) -> Self {
        self.env.push((name.to_owned(), Some(value.into())));
        self
    }

    /// Removes the environment variable `name` from the server's environment.
    pub fn without_env(mut self, name: &str) -> Self {
        self.env.push((name.to_owned(), None));
        self
    }

    /// Names its log `target/examples-e2e/<name>.<label>.http.log` (by default
    /// `<name>.http.log`).
    pub fn labelled(mut self, label: &str) -> Self {
        self.label = Some(label.to_owned());
        self
    }

    /// Its log file.
    pub fn http_log(&self) -> PathBuf {
        let file = match &self.label {
            Some(label) => format!("{}.{label}.http.log", self.example.name),
            None => format!("{}.http.log", self.example.name),
        };
        out_dir("examples-e2e").join(file)
    }

    /// Starts it (see [`ExampleServer::http`]); panics, quoting its log, if it does not start.
    pub fn http(&self) -> HttpServer {
        let (name, log) = (self.example.name, self.http_log());
        let server = self.try_http(&log, START_TIMEOUT);
        server.unwrap_or_else(|e| panic!("{name} did not start: {e}; log:\n{}", tail(&log, 40)))
    }

    /// Starts it with its output in `log` (see [`ExampleServer::try_http`]).
    pub fn try_http(&self, log: &Path, timeout: Duration) -> Result<HttpServer, String> {
        let binary = example_binary(self.example.name);
        let mut error = String::new();
        for _attempt in 0..3 {
            let port = fresh_port();
            let mut command = watched(&binary);
            command.args([self.example.http_option.to_owned(), port.to_string()]);
            command.args(&self.args);
            for (name, value) in &self.env {
                match value {
                    Some(value) => command.env(name, value),
                    None => command.env_remove(name),
                };
            }
            let out = File::create(log).unwrap_or_else(|e| panic!("cannot create {log:?}: {e}"));
            let err = out.try_clone().expect("a log file handle");
            let mut child = ChildGuard::spawn(command.stderr(err).stdout(out));
            let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            let deadline = Instant::now() + timeout;
            // An early exit most likely means another process took the port: try another one.
            error = loop {
                let answered = answers_http(addr);
                // Checked after the probe: a server that answered while ours had already
                // exited is somebody else's.
                if let Some(status) = child.try_wait() {
                    break format!("it exited early ({status})");
                }
                if answered {
                    let log = log.to_owned();
                    return Ok(HttpServer { port, child, log });
                }
                if Instant::now() > deadline {
                    break format!("it did not listen on {addr} within {timeout:?}");
                }
                std::thread::sleep(Duration::from_millis(25));
            };
        }
        Err(error)
    }
}

/// A free loopback port that no other server of this test process has been given: the
/// kernel's pick, skipping ports handed out before (a port freed by one test's server may come
/// back to a parallel test while the first one still talks to it).
pub fn fresh_port() -> u16 {
    static GIVEN: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let free = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).and_then(|l| l.local_addr());
        let port = free.expect("a free loopback port").port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// Whether an HTTP server answers on `addr`. A bare connect is not enough: polling a port
/// nobody listens on yet can connect the probe to itself (TCP simultaneous open, when the
/// kernel picks the port as the probe's own source port), and the probe would then read its
/// own request back instead of a status line.
fn answers_http(addr: SocketAddr) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let request = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let mut head = [0u8; 8];
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .is_ok()
        && stream.write_all(request).is_ok()
        && stream.read_exact(&mut head).is_ok()
        && head.starts_with(b"HTTP/1.")
}

// ----- A blocking client for spawned servers -----

/// A session with a server: sends a request message and returns the response to it.
pub trait Session {
    /// Sends `message` (a request) and returns the response with its id; notifications
    /// before it are dropped.
    fn send(&mut self, message: &Value) -> Value;

    /// What the server is called in failure messages.
    fn label(&self) -> String;

    /// Sends `method` with `params` (and the required `_meta`) as request `id`.
    fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) -> Value {
        self.send(&request(id, method, params))
    }

    /// The complete result of `message`, a request; panics, naming the server, on an error or
    /// an `input_required` result.
    #[track_caller]
    fn result_of(&mut self, message: &Value) -> Value {
        let response = self.send(message);
        let result = &response["result"];
        let complete = response["jsonrpc"] == "2.0" && response.get("error").is_none();
        let complete = complete && result.is_object() && result["resultType"] == "complete";
        let label = self.label();
        assert!(complete, "{label}: not a complete result: {response}");
        result.clone()
    }

    /// The complete result of `method` with `params`.
    #[track_caller]
    fn result(&mut self, method: &str, params: Value) -> Value {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        self.result_of(&request(format!("{method}#{id}"), method, params))
    }
}

/// The list methods, with the key of their items and the capability that offers them.
pub const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("prompts/list", "prompts", "prompts"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
];

/// A Streamable HTTP client of a spawned server, with the headers a conforming client sends
/// (and, when given, an `Authorization: Bearer` token).
#[derive(Debug)]
pub struct HttpClient {
    url: String,
    client: reqwest::blocking::Client,
    bearer: Option<String>,
}

impl HttpClient {
    /// A client of the MCP endpoint `url` that never goes through a proxy.
    pub fn new(url: String) -> Self {
        let client = reqwest::blocking::Client::builder().no_proxy();
        let client = client.timeout(READ_TIMEOUT).build().unwrap();
        Self {
            url,
            client,
            bearer: None,
        }
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    pub fn with_bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// POSTs `message` with the client's headers and returns the HTTP response as it is.
    pub fn post_raw(&self, message: &Value) -> reqwest::blocking::Response {
        let post = self.client.post(&self.url).body(message.to_string());
        let headers = mcp_headers(message).into_iter();
        let post = headers.fold(post, |post, (name, value)| post.header(name, value));
        let post = match &self.bearer {
            Some(token) => post.bearer_auth(token),
            None => post,
        };
        post.send().expect("the POST is answered")
    }

    /// POSTs `message` and returns the HTTP status and the JSON-RPC messages of the answer
    /// (one for a JSON body, every event of an SSE stream).
    pub fn post(&self, message: &Value) -> (u16, Vec<Value>) {
        let response = self.post_raw(message);
        let status = response.status().as_u16();
        let content_type = response.headers().get("content-type").cloned();
        let content_type = content_type.map(|v| v.to_str().unwrap_or_default().to_owned());
        let body = response.text().expect("the answer can be read");
        (status, messages_of(content_type.as_deref(), &body))
    }
}

impl Session for HttpClient {
    fn send(&mut self, message: &Value) -> Value {
        let (_status, messages) = self.post(message);
        let response = |m: &Value| m.get("id") == message.get("id") && m.get("method").is_none();
        let response = messages.into_iter().rfind(response);
        response.unwrap_or_else(|| panic!("{}: no response to {message}", self.url))
    }

    fn label(&self) -> String {
        self.url.clone()
    }
}
