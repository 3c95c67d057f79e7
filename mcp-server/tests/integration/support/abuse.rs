//! The tools of the abuse tests (`abuse_http`, `abuse_stdio`, `abuse_flows`): a server served
//! on a loopback port, a byte-level HTTP/1.1 client over a raw `TcpStream` (requests written
//! as given, responses and SSE streams parsed by hand), a [`Probe`] through which handlers
//! report what happened to them (entered, notified, cancelled, stopped), and bounded waits
//! that fail a test instead of hanging it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{CancellationToken, RequestContext, Server, ServerBuilder, State, tool};

/// The protocol revision every request here speaks.
pub const MODERN: &str = "2026-07-28";

/// Waits for `future` at most `secs` seconds; a regression fails the test naming `what`.
pub async fn within<T>(secs: u64, what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), future)
        .await
        .unwrap_or_else(|_| panic!("timed out after {secs} s: {what}"))
}

/// Polls `done` every 10 ms until it holds, for at most `secs` seconds.
pub async fn eventually(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    within(secs, what, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

/// Waits until `counter` stops growing (the same value over 300 ms) or reaches `ceiling`, and
/// returns its value: how far a producer that should be held back by backpressure got.
pub async fn plateau(counter: &AtomicUsize, ceiling: usize) -> usize {
    within(
        20,
        "a counter that neither settles nor reaches its ceiling",
        async {
            let mut last = usize::MAX;
            let mut steady = 0;
            loop {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let now = counter.load(Ordering::SeqCst);
                if now >= ceiling {
                    return now;
                }
                if now == last && now > 0 {
                    steady += 1;
                    if steady == 3 {
                        return now;
                    }
                } else {
                    steady = 0;
                }
                last = now;
            }
        },
    )
    .await
}

// ----- Messages -----

/// The `_meta` of a modern request from a client answering forms, with `extra` merged in.
pub fn meta_with(extra: Value) -> Value {
    let mut meta = super::wire::meta(super::wire::forms());
    if let (Some(meta), Some(extra)) = (meta.as_object_mut(), extra.as_object()) {
        meta.extend(extra.clone());
    }
    meta
}

/// A modern `tools/call` of `tool` with `arguments`, id `id`.
pub fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta_with(json!({}))}})
}

/// [`call`] asking for progress under `token`.
pub fn call_with_progress(
    id: impl Into<Value>,
    tool: &str,
    arguments: Value,
    token: &str,
) -> Value {
    let mut message = call(id, tool, arguments);
    message["params"]["_meta"]["progressToken"] = json!(token);
    message
}

/// The text of a complete tool result.
#[track_caller]
pub fn text(reply: &Value) -> &str {
    assert!(reply.get("error").is_none(), "unexpected error: {reply}");
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply}"))
}

/// The code of an error reply.
#[track_caller]
pub fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply}"))
}

/// `depth` nested arrays, closed (`[[…]]`) or not.
pub fn nested_arrays(depth: usize, closed: bool) -> String {
    let mut text = "[".repeat(depth);
    if closed {
        text.push_str(&"]".repeat(depth));
    }
    text
}

/// `depth` nested objects `{"a":{"a":…0…}}`.
pub fn nested_objects(depth: usize) -> String {
    let mut text = r#"{"a":"#.repeat(depth);
    text.push('0');
    text.push_str(&"}".repeat(depth));
    text
}

/// Lines that nest `depth` levels deep, each carrying request id `id` where it has one:
/// in the arguments, in `_meta`, in the params themselves, as the whole message, unclosed.
pub fn deeply_nested_messages(depth: usize, id: u64) -> Vec<(&'static str, String)> {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":"#);
    let meta = meta_with(json!({})).to_string();
    vec![
        (
            "arrays in the arguments",
            format!(
                r#"{head}{{"name":"echo","arguments":{{"text":{}}},"_meta":{meta}}}}}"#,
                nested_arrays(depth, true)
            ),
        ),
        (
            "objects in the arguments",
            format!(
                r#"{head}{{"name":"echo","arguments":{},"_meta":{meta}}}}}"#,
                nested_objects(depth)
            ),
        ),
        (
            "arrays in _meta",
            format!(
                r#"{head}{{"name":"echo","arguments":{{"text":"x"}},"_meta":{{"deep":{}}}}}}}"#,
                nested_arrays(depth, true)
            ),
        ),
        (
            "arrays as the params",
            format!("{head}{}}}", nested_arrays(depth, true)),
        ),
        ("arrays as the message", nested_arrays(depth, true)),
        ("objects as the message", nested_objects(depth)),
        (
            "unclosed arrays in the arguments",
            format!(
                r#"{head}{{"name":"echo","arguments":{{"text":{}"#,
                nested_arrays(depth, false)
            ),
        ),
    ]
}

// ----- What handlers report -----

/// What the handlers of a test saw: how many were entered, notifications sent, handlers
/// stopped (finished or dropped) and finished, and the cancellation token of each request.
#[derive(Clone, Default, Debug)]
pub struct Probe(Arc<ProbeInner>);

/// The counters behind a [`Probe`].
#[derive(Default, Debug)]
pub struct ProbeInner {
    /// Handlers entered.
    pub entered: AtomicUsize,
    /// Notifications sent by [`chatter`].
    pub sent: AtomicUsize,
    /// Handlers ended, by finishing or by being dropped.
    pub stopped: AtomicUsize,
    /// Handlers that ran to their end.
    pub finished: AtomicUsize,
    /// The cancellation token of every request entered.
    pub tokens: Mutex<Vec<CancellationToken>>,
    /// Lets every [`hold`] still waiting answer.
    pub release: CancellationToken,
}

impl std::ops::Deref for Probe {
    type Target = ProbeInner;

    fn deref(&self) -> &ProbeInner {
        &self.0
    }
}

impl Probe {
    /// Records a handler's entry and its token; the guard counts its end, however it ends.
    pub fn enter(&self, token: &CancellationToken) -> StopGuard {
        self.tokens.lock().unwrap().push(token.clone());
        self.entered.fetch_add(1, Ordering::SeqCst);
        StopGuard(self.clone())
    }

    /// How many of the recorded tokens fired.
    pub fn cancelled(&self) -> usize {
        let tokens = self.tokens.lock().unwrap();
        tokens.iter().filter(|t| t.is_cancelled()).count()
    }

    /// The value of one of the counters.
    pub fn get(counter: &AtomicUsize) -> usize {
        counter.load(Ordering::SeqCst)
    }
}

/// Counts a handler's end in [`ProbeInner::stopped`] when dropped: finished, or dropped
/// mid-way because its request was cancelled.
#[derive(Debug)]
pub struct StopGuard(Probe);

impl Drop for StopGuard {
    fn drop(&mut self) {
        self.0.stopped.fetch_add(1, Ordering::SeqCst);
    }
}

// ----- Handlers -----

/// Echoes its text.
#[tool]
pub async fn echo(
    /// What to send back.
    text: String,
) -> String {
    text
}

/// Sends `count` progress notifications of about `size` bytes each, then answers.
#[tool]
pub async fn chatter(
    /// How many notifications.
    count: usize,
    /// The size of each one's message.
    size: usize,
    ctx: RequestContext,
    probe: State<Probe>,
) -> String {
    let _guard = probe.0.enter(ctx.cancellation());
    let padding = "p".repeat(size);
    for i in 0..count {
        let message = format!("{i} {padding}");
        if !ctx
            .report_progress(i as f64, Some(count as f64), Some(message))
            .await
        {
            return format!("notification {i} not sent");
        }
        probe.0.sent.fetch_add(1, Ordering::SeqCst);
    }
    probe.0.finished.fetch_add(1, Ordering::SeqCst);
    format!("sent {count}")
}

/// Sends one progress notification, then sleeps for a minute.
#[tool]
pub async fn ticker(ctx: RequestContext, probe: State<Probe>) -> String {
    let _guard = probe.0.enter(ctx.cancellation());
    ctx.report_progress(0.0, None, Some("started".into())).await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    probe.0.finished.fetch_add(1, Ordering::SeqCst);
    "finished".to_owned()
}

/// Waits without a word until the probe releases it (at most a minute).
#[tool]
pub async fn hold(ctx: RequestContext, probe: State<Probe>) -> String {
    let _guard = probe.0.enter(ctx.cancellation());
    let release = probe.0.release.clone();
    let _ = tokio::time::timeout(Duration::from_secs(60), release.cancelled()).await;
    probe.0.finished.fetch_add(1, Ordering::SeqCst);
    "finished".to_owned()
}

/// A server with every handler above, reporting to `probe`.
pub fn tools(probe: &Probe) -> ServerBuilder {
    Server::builder()
        .state(probe.clone())
        .tool(echo)
        .tool(chatter)
        .tool(ticker)
        .tool(hold)
}

// ----- HTTP on loopback -----

/// Serves `server` at `/mcp` on an ephemeral loopback port (until the test's runtime ends).
pub async fn serve_http(server: Server, config: HttpConfig) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve_http_on(listener, config, std::future::pending()));
    addr
}

/// [`serve_http`], each accepted connection's send buffer fixed at `bytes` (inherited from
/// the listening socket) instead of growing with the host's TCP settings: what a client does
/// not read then backs up into the server soon, however the host is tuned.
pub async fn serve_http_with_send_buffer(
    server: Server,
    config: HttpConfig,
    bytes: u32,
) -> SocketAddr {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_send_buffer_size(bytes).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(128).unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve_http_on(listener, config, std::future::pending()));
    addr
}

/// The head of a modern POST to `/mcp` of `method` (and `name`), its body `length` bytes
/// long, accepting `accept`.
pub fn post_head(method: &str, name: Option<&str>, length: usize, accept: &str) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: {accept}\r\nMCP-Protocol-Version: {MODERN}\r\nMcp-Method: {method}\r\n\
         Content-Length: {length}\r\n"
    );
    if let Some(name) = name {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// The whole POST of `message`, its mirrored headers taken from it.
pub fn post(message: &Value, accept: &str) -> Vec<u8> {
    let body = message.to_string();
    let method = message["method"].as_str().unwrap_or("tools/call");
    let name = message["params"]["name"].as_str();
    let mut bytes = post_head(method, name, body.len(), accept).into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// Accepts JSON only: the answer comes whole, with a length.
pub const JSON_ONLY: &str = "application/json";
/// Accepts JSON and SSE: the answer streams as soon as the handler notifies.
pub const JSON_AND_SSE: &str = "application/json, text/event-stream";

/// The status line and headers of a response.
#[derive(Debug)]
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    pub fn header(&self, name: &str) -> Option<&str> {
        let found = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name));
        found.map(|(_, v)| v.as_str())
    }

    fn is_chunked(&self) -> bool {
        self.header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    }
}

/// One keep-alive HTTP/1.1 connection to the server, driven byte by byte.
#[derive(Debug)]
pub struct Conn {
    io: BufReader<TcpStream>,
}

impl Conn {
    pub async fn open(addr: SocketAddr) -> Self {
        let stream = within(5, "connecting", TcpStream::connect(addr))
            .await
            .unwrap();
        Self::from_stream(stream)
    }

    /// A connection over an already connected stream.
    pub fn from_stream(stream: TcpStream) -> Self {
        stream.set_nodelay(true).unwrap();
        Self {
            io: BufReader::new(stream),
        }
    }

    /// Reads whatever bytes come next (0 at end of file).
    pub async fn read_raw(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.io.read(buffer).await
    }

    /// Writes raw bytes.
    pub async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.io.get_mut().write_all(bytes).await
    }

    /// Reads a status line and headers.
    pub async fn head(&mut self) -> io::Result<Head> {
        let mut line = String::new();
        if self.io.read_line(&mut line).await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| io::Error::other(format!("not a status line: {line:?}")))?;
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.io.read_line(&mut line).await?;
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some((name, value)) = trimmed.split_once(':') {
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
        Ok(Head { status, headers })
    }

    /// Reads one chunk of a chunked body; `None` after the last one.
    pub async fn chunk(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = String::new();
        self.io.read_line(&mut line).await?;
        let size = line.trim().split(';').next().unwrap_or_default();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| io::Error::other(format!("not a chunk size: {line:?}")))?;
        if size == 0 {
            // Trailers (none here) and the final empty line.
            loop {
                line.clear();
                if self.io.read_line(&mut line).await? == 0 || line.trim().is_empty() {
                    return Ok(None);
                }
            }
        }
        let mut chunk = vec![0; size + 2];
        self.io.read_exact(&mut chunk).await?;
        chunk.truncate(size);
        Ok(Some(chunk))
    }

    /// Reads the body that follows `head`: chunked, with a length, or up to the close.
    pub async fn body(&mut self, head: &Head) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        if head.is_chunked() {
            while let Some(chunk) = self.chunk().await? {
                body.extend_from_slice(&chunk);
            }
        } else if let Some(length) = head.header("content-length") {
            let length: usize = length.parse().map_err(io::Error::other)?;
            body.resize(length, 0);
            self.io.read_exact(&mut body).await?;
        } else {
            self.io.read_to_end(&mut body).await?;
        }
        Ok(body)
    }

    /// Sends `request` and reads the whole response.
    pub async fn exchange(&mut self, request: &[u8]) -> io::Result<(Head, Vec<u8>)> {
        self.write(request).await?;
        let head = self.head().await?;
        let body = self.body(&head).await?;
        Ok((head, body))
    }

    /// POSTs `message` (JSON only) and returns the status and the JSON answer.
    pub async fn call(&mut self, message: &Value) -> (u16, Value) {
        let request = post(message, JSON_ONLY);
        let (head, body) = within(10, "an HTTP answer", self.exchange(&request))
            .await
            .unwrap();
        let json = serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&body)));
        (head.status, json)
    }

    /// Turns the connection into an SSE reader of the chunked body after `head`.
    pub fn events(self) -> Events {
        Events {
            conn: self,
            buffer: Vec::new(),
            done: false,
        }
    }
}

/// One call on a fresh connection; status and JSON answer.
pub async fn call_once(addr: SocketAddr, message: &Value) -> (u16, Value) {
    Conn::open(addr).await.call(message).await
}

/// Asserts that a fresh client gets its own echo back.
pub async fn assert_serving(addr: SocketAddr, tag: &str) {
    let (status, reply) = call_once(addr, &call(tag, "echo", json!({"text": tag}))).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["id"], tag, "{reply}");
    assert_eq!(text(&reply), tag);
}

/// The `data:` payloads of an SSE body, event by event.
#[derive(Debug)]
pub struct Events {
    conn: Conn,
    buffer: Vec<u8>,
    done: bool,
}

impl Events {
    /// The next event's data as JSON (keep-alive comments skipped); `None` at the end.
    pub async fn next(&mut self) -> io::Result<Option<Value>> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8_lossy(&event);
                let data: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                let json = serde_json::from_str(&data.join("\n")).map_err(io::Error::other)?;
                return Ok(Some(json));
            }
            if self.done {
                return Ok(None);
            }
            match self.conn.chunk().await? {
                Some(chunk) => self.buffer.extend_from_slice(&chunk),
                None => self.done = true,
            }
        }
    }

    /// Closes the connection (the client goes away).
    pub fn close(self) {
        drop(self);
    }
}
