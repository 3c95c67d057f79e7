//! HTTP load generator: N workers, each on its own keep-alive HTTP/1.1 connection.
//!
//! Each worker opens one TCP connection to the target (hyper 1.x client
//! connection, `TCP_NODELAY`), then sends the benchmark request back to back:
//! one request in flight per connection, so the concurrency equals the number
//! of workers. Workers stop at the end of the window or when the cell's
//! request budget is spent. A request that fails, times out, or answers
//! anything but a 200 JSON-RPC success counts as an error; after a transport
//! error the worker reconnects.
//!
//! In the [`Workload::Flow`] scenario each worker runs three-round flows back to back on
//! its connection: round 1 (no state), round 2 answering the first question with the
//! `requestState` round 1 returned, round 3 answering the second with round 2's state, each
//! a new JSON-RPC id. A failed round abandons its flow; the next flow starts from round 1.
//!
//! In the [`Workload::Task`] scenario (the tasks extension) each worker runs tasks back to back
//! on its connection: a `tools/call` of `task_echo` declaring the extension creates one, then
//! `tasks/get` polls it with no pause between polls (the server's `pollIntervalMs` is
//! ignored: the scenario measures what creating and polling cost the server) until it is
//! `completed` with the echoed text. Every reply is checked in full; a failed request
//! abandons its task, and so does a task still not completed after the request timeout.
//!
//! In the [`Workload::Session`] scenario (the 2025-11-25 era) each worker opens a session when
//! it connects (`initialize`, then `notifications/initialized`, neither of them counted) and
//! then sends the `echo` call back to back on it, with the session's `Mcp-Session-Id` and
//! `MCP-Protocol-Version: 2025-11-25`; after a transport error it reconnects and opens a new
//! session.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use http::{Request, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::protocol::{
    self, ACCEPT, CONTENT_TYPE_JSON, FLOW_TOOL_NAME, FlowRound, HEADER_METHOD, HEADER_NAME,
    HEADER_PROTOCOL_VERSION, HEADER_SESSION_ID, INITIALIZE_BODY, INITIALIZED_BODY,
    LEGACY_PROTOCOL_VERSION, MCP_PATH, METHOD, PROTOCOL_VERSION, ReplyError, TASK_TOOL_NAME,
    TASKS_GET_METHOD, TOOL_NAME, TaskPoll,
};
use crate::stats::{CellStats, Recorder, Window};

/// What each worker of an HTTP cell sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// One `tools/call` of `echo` per request.
    Echo,
    /// Three-round `tools/call` flows of the `flow` tool, echoing `requestState`.
    Flow,
    /// One `tools/call` of `echo` per request on a 2025-11-25 session opened per connection.
    Session,
    /// Tasks of the `task_echo` tool: created by a `tools/call`, polled by `tasks/get` until
    /// completed.
    Task,
}

/// Parameters of one HTTP cell.
#[derive(Debug, Clone)]
pub struct HttpCell {
    /// Address of the target.
    pub addr: SocketAddr,
    /// What the workers send.
    pub workload: Workload,
    /// Number of workers (connections).
    pub concurrency: usize,
    /// Warm-up before the window.
    pub warmup: Duration,
    /// Window length.
    pub measure: Duration,
    /// Request budget of the cell.
    pub max_requests: u64,
    /// Timeout of one request.
    pub timeout: Duration,
    /// Full validation of every N-th reply.
    pub sample_every: u64,
}

/// A keep-alive HTTP/1.1 connection to the target.
struct Connection {
    sender: SendRequest<Full<Bytes>>,
    host: String,
    /// The `Mcp-Session-Id` of the 2025-11-25 session opened on this connection, if any.
    session: Option<http::HeaderValue>,
}

impl Connection {
    async fn open(addr: SocketAddr) -> anyhow::Result<Self> {
        let stream = TcpStream::connect(addr)
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .context("HTTP/1.1 handshake failed")?;
        tokio::spawn(async move {
            // Ends when the sender is dropped or the server closes the connection.
            let _ = connection.await;
        });
        Ok(Self {
            sender,
            host: addr.to_string(),
            session: None,
        })
    }

    /// Opens a connection and a 2025-11-25 session on it: `initialize` (its reply checked
    /// in full), then `notifications/initialized` under the new `Mcp-Session-Id`.
    async fn open_session(addr: SocketAddr) -> anyhow::Result<Self> {
        let mut connection = Self::open(addr).await?;
        let response = connection
            .post(Bytes::from_static(INITIALIZE_BODY.as_bytes()), None)
            .await?;
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .cloned()
            .context("the initialize reply carries no Mcp-Session-Id")?;
        let body = read_reply(response).await?;
        protocol::check_initialize_reply(&body).context("initialize")?;
        connection.session = Some(session);
        let response = connection
            .post(Bytes::from_static(INITIALIZED_BODY.as_bytes()), None)
            .await?;
        let status = response.status();
        let _ = response.into_body().collect().await;
        if !status.is_success() {
            anyhow::bail!("notifications/initialized answered HTTP {status}");
        }
        Ok(connection)
    }

    /// POSTs `body` and returns the response head. On a session (after [`Self::open_session`])
    /// the request carries the session's id and the 2025-11-25 version; otherwise the 2026
    /// headers of a `tools/call` of `tool`, when one is given.
    async fn post(
        &mut self,
        body: Bytes,
        tool: Option<&'static str>,
    ) -> Result<http::Response<Incoming>, ReplyError> {
        let mut request = Request::post(MCP_PATH)
            .header(header::HOST, &self.host)
            .header(header::CONTENT_TYPE, CONTENT_TYPE_JSON)
            .header(header::ACCEPT, ACCEPT);
        if let Some(session) = &self.session {
            request = request
                .header(HEADER_SESSION_ID, session)
                .header(HEADER_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION);
        } else if let Some(tool) = tool {
            request = request
                .header(HEADER_PROTOCOL_VERSION, PROTOCOL_VERSION)
                .header(HEADER_METHOD, METHOD)
                .header(HEADER_NAME, tool);
        }
        let request = request
            .body(Full::new(body))
            .map_err(|e| ReplyError::Transport(e.to_string()))?;
        self.sender
            .ready()
            .await
            .map_err(|e| ReplyError::Transport(e.to_string()))?;
        self.sender
            .send_request(request)
            .await
            .map_err(|e| ReplyError::Transport(e.to_string()))
    }

    /// Sends echo request `id` on this connection's session and returns the JSON-RPC reply.
    async fn call_session(&mut self, id: u64) -> Result<Bytes, ReplyError> {
        let response = self
            .post(Bytes::from(protocol::session_request_body(id)), None)
            .await?;
        read_reply(response).await
    }

    /// Sends echo request `id` and returns the response head; the body is still to be read.
    async fn send(&mut self, id: u64) -> Result<http::Response<Incoming>, ReplyError> {
        self.send_body(TOOL_NAME, protocol::request_body(id)).await
    }

    /// Sends a `tools/call` of `tool` with this JSON-RPC body and returns the response head.
    async fn send_body(
        &mut self,
        tool: &'static str,
        body: Vec<u8>,
    ) -> Result<http::Response<Incoming>, ReplyError> {
        self.send_request(METHOD, tool, body).await
    }

    /// Sends a 2026-07-28 request of `method` with this JSON-RPC body and `name` in
    /// `Mcp-Name` (the tool of a `tools/call`, the task of a `tasks/get`), and returns the
    /// response head.
    async fn send_request(
        &mut self,
        method: &str,
        name: &str,
        body: Vec<u8>,
    ) -> Result<http::Response<Incoming>, ReplyError> {
        let request = Request::post(MCP_PATH)
            .header(header::HOST, &self.host)
            .header(header::CONTENT_TYPE, CONTENT_TYPE_JSON)
            .header(header::ACCEPT, ACCEPT)
            .header(HEADER_PROTOCOL_VERSION, PROTOCOL_VERSION)
            .header(HEADER_METHOD, method)
            .header(HEADER_NAME, name)
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| ReplyError::Transport(e.to_string()))?;
        self.sender
            .ready()
            .await
            .map_err(|e| ReplyError::Transport(e.to_string()))?;
        self.sender
            .send_request(request)
            .await
            .map_err(|e| ReplyError::Transport(e.to_string()))
    }

    /// Sends echo request `id` and returns the JSON-RPC reply body.
    async fn call(&mut self, id: u64) -> Result<Bytes, ReplyError> {
        self.call_body(TOOL_NAME, protocol::request_body(id)).await
    }

    /// Sends round `round` of a flow as request `id` and returns the JSON-RPC reply body.
    async fn call_flow(
        &mut self,
        id: u64,
        round: FlowRound,
        state: Option<&str>,
    ) -> Result<Bytes, ReplyError> {
        let body = protocol::flow_request_body(id, round, state);
        self.call_body(FLOW_TOOL_NAME, body).await
    }

    /// Sends a `tools/call` of `tool` and returns the JSON-RPC reply body.
    async fn call_body(&mut self, tool: &'static str, body: Vec<u8>) -> Result<Bytes, ReplyError> {
        let response = self.send_body(tool, body).await?;
        read_reply(response).await
    }

    /// Sends request `id` creating a task of `task_echo` and returns the JSON-RPC reply body.
    async fn create_task(&mut self, id: u64) -> Result<Bytes, ReplyError> {
        self.call_body(TASK_TOOL_NAME, protocol::task_request_body(id))
            .await
    }

    /// Sends request `id` polling task `task_id` (`tasks/get`) and returns the JSON-RPC reply
    /// body.
    async fn poll_task(&mut self, id: u64, task_id: &str) -> Result<Bytes, ReplyError> {
        let body = protocol::task_get_body(id, task_id);
        let response = self.send_request(TASKS_GET_METHOD, task_id, body).await?;
        read_reply(response).await
    }
}

/// Reads a reply: the JSON-RPC message of a 200 response (unpacked from an event stream).
async fn read_reply(response: http::Response<Incoming>) -> Result<Bytes, ReplyError> {
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| ReplyError::Transport(e.to_string()))?
        .to_bytes();
    if status != http::StatusCode::OK {
        return Err(ReplyError::Status(
            status.as_u16(),
            protocol::truncate(&String::from_utf8_lossy(&body)),
        ));
    }
    match protocol::json_payload(content_type.as_deref(), &body) {
        std::borrow::Cow::Borrowed(_) => Ok(body),
        std::borrow::Cow::Owned(json) => Ok(Bytes::from(json)),
    }
}

/// Sends request `id` on a fresh connection and returns the raw reply:
/// status, `Content-Type` and body (for diagnostics and tests).
pub async fn probe(addr: SocketAddr, id: u64) -> anyhow::Result<(u16, Option<String>, Bytes)> {
    let mut connection = Connection::open(addr).await?;
    let response = connection.send(id).await?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, content_type, body))
}

/// Sends one request and validates the reply in full: the pre-flight check
/// that tells a working target from a broken one before it is measured.
pub async fn preflight(addr: SocketAddr, timeout: Duration) -> anyhow::Result<()> {
    let mut connection = tokio::time::timeout(timeout, Connection::open(addr))
        .await
        .context("connect timed out")??;
    for id in 1..=2 {
        let body = tokio::time::timeout(timeout, connection.call(id))
            .await
            .context("request timed out")??;
        protocol::check_reply_full(&body, id)?;
    }
    Ok(())
}

/// Sends the first request a client sends on a fresh connection and checks the reply: the
/// `echo` call, or `initialize` when `session` (the 2025-11-25 era). Polled while a server
/// starts, to time its cold start.
pub async fn first_reply(addr: SocketAddr, session: bool) -> anyhow::Result<()> {
    let mut connection = Connection::open(addr).await?;
    if session {
        let response = connection
            .post(Bytes::from_static(INITIALIZE_BODY.as_bytes()), None)
            .await?;
        let body = read_reply(response).await?;
        protocol::check_initialize_reply(&body)?;
    } else {
        let body = connection.call(1).await?;
        protocol::check_reply_full(&body, 1)?;
    }
    Ok(())
}

/// Opens a 2025-11-25 session on a fresh connection and sends two requests on it, each
/// validated in full: the pre-flight check of the session scenario.
pub async fn preflight_session(addr: SocketAddr, timeout: Duration) -> anyhow::Result<()> {
    let mut connection = tokio::time::timeout(timeout, Connection::open_session(addr))
        .await
        .context("opening a session timed out")??;
    for id in 1..=2 {
        let body = tokio::time::timeout(timeout, connection.call_session(id))
            .await
            .context("request timed out")??;
        protocol::check_reply_full(&body, id)?;
    }
    Ok(())
}

/// Runs one whole flow (three rounds, full validation) on a fresh connection: the
/// pre-flight check of the flow scenario.
pub async fn preflight_flow(addr: SocketAddr, timeout: Duration) -> anyhow::Result<()> {
    run_flow(addr, timeout).await.map(drop)
}

/// Runs one whole flow like [`preflight_flow`] and returns the states of rounds 1 and 2
/// (for tests: replaying one must be refused where states are good for one use).
pub async fn run_flow(addr: SocketAddr, timeout: Duration) -> anyhow::Result<[String; 2]> {
    let mut connection = tokio::time::timeout(timeout, Connection::open(addr))
        .await
        .context("connect timed out")??;
    let mut state: Option<String> = None;
    let mut states = Vec::new();
    for (id, round) in (1..).zip([FlowRound::First, FlowRound::Second, FlowRound::Third]) {
        let body = tokio::time::timeout(timeout, connection.call_flow(id, round, state.as_deref()))
            .await
            .context("request timed out")??;
        state = protocol::check_flow_reply(&body, id, round, true)
            .with_context(|| format!("flow round {round:?}"))?;
        states.extend(state.clone());
    }
    states
        .try_into()
        .map_err(|states: Vec<String>| anyhow::anyhow!("{} states in a flow", states.len()))
}

/// Runs one whole task on a fresh connection: creates it, then polls it until it is
/// completed with the echoed text, every reply checked in full; the pre-flight check of the
/// task scenario. Returns how many times it was polled.
pub async fn preflight_task(addr: SocketAddr, timeout: Duration) -> anyhow::Result<u64> {
    let mut connection = tokio::time::timeout(timeout, Connection::open(addr))
        .await
        .context("connect timed out")??;
    let started = Instant::now();
    let body = within(timeout, connection.create_task(1)).await?;
    let task_id = protocol::check_task_created(&body, 1).context("creating the task")?;
    for (polls, id) in (1..).zip(2..) {
        let body = within(timeout, connection.poll_task(id, &task_id)).await?;
        let poll = protocol::check_task_poll(&body, id, &task_id)
            .with_context(|| format!("poll {polls} of task {task_id}"))?;
        if poll == TaskPoll::Completed {
            return Ok(polls);
        }
        if started.elapsed() > timeout {
            anyhow::bail!("task {task_id} still working after {polls} polls ({timeout:?})");
        }
    }
    anyhow::bail!("task {task_id} polled too often")
}

/// Sends one flow round with an arbitrary `state` on a fresh connection and returns the
/// reply body as text (for tests: a forged state must be refused).
pub async fn flow_round_with_state(
    addr: SocketAddr,
    round: FlowRound,
    state: &str,
) -> anyhow::Result<String> {
    let mut connection = Connection::open(addr).await?;
    let response = connection
        .send_body(
            FLOW_TOOL_NAME,
            protocol::flow_request_body(1, round, Some(state)),
        )
        .await?;
    let body = response.into_body().collect().await?.to_bytes();
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// Runs one HTTP cell and returns its statistics.
pub async fn run(cell: HttpCell) -> anyhow::Result<CellStats> {
    let window = Window::after(cell.warmup, cell.measure);
    let budget = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::with_capacity(cell.concurrency);
    for worker in 0..cell.concurrency {
        let cell = cell.clone();
        let budget = Arc::clone(&budget);
        let first_id = (worker as u64) << 40;
        workers.push(tokio::spawn(async move {
            match cell.workload {
                Workload::Echo | Workload::Session => {
                    worker_loop(cell, window, budget, first_id).await
                }
                Workload::Flow => flow_worker_loop(cell, window, budget, first_id).await,
                Workload::Task => task_worker_loop(cell, window, budget, first_id).await,
            }
        }));
    }
    let mut recorders = Vec::with_capacity(workers.len());
    for worker in workers {
        recorders.push(worker.await.context("load worker panicked")?);
    }
    Ok(CellStats::merge(&window, recorders))
}

/// A new connection, with a 2025-11-25 session on it when `session` is set.
async fn open(addr: SocketAddr, session: bool) -> anyhow::Result<Connection> {
    if session {
        Connection::open_session(addr).await
    } else {
        Connection::open(addr).await
    }
}

async fn worker_loop(
    cell: HttpCell,
    window: Window,
    budget: Arc<AtomicU64>,
    first_id: u64,
) -> Recorder {
    let mut recorder = Recorder::default();
    let mut connection = None;
    let mut id = first_id;
    let session = cell.workload == Workload::Session;
    while Instant::now() < window.end && budget.fetch_add(1, Ordering::Relaxed) < cell.max_requests
    {
        let Some(conn) = connected(&mut connection, &mut recorder, open(cell.addr, session)).await
        else {
            continue;
        };
        id += 1;
        let sent = Instant::now();
        let call = async {
            if session {
                conn.call_session(id).await
            } else {
                conn.call(id).await
            }
        };
        let outcome = within(cell.timeout, call).await;
        let done = Instant::now();
        let checked = outcome.and_then(|body| {
            if (id - first_id - 1).is_multiple_of(cell.sample_every) {
                protocol::check_reply_full(&body, id)?;
                recorder.validated();
                Ok(())
            } else {
                protocol::check_reply(&body, id)
            }
        });
        match checked {
            Ok(()) => recorder.success(&window, sent, done),
            Err(error) => failed(&mut recorder, &mut connection, &error),
        }
    }
    recorder
}

/// `request`'s reply, or a transport error when none came within `timeout`.
async fn within(
    timeout: Duration,
    request: impl Future<Output = Result<Bytes, ReplyError>>,
) -> Result<Bytes, ReplyError> {
    tokio::time::timeout(timeout, request)
        .await
        .unwrap_or_else(|_| {
            Err(ReplyError::Transport(format!(
                "no reply within {timeout:?}"
            )))
        })
}

/// One request of a flow: sends round `round` and checks the reply, returning the state
/// to echo next.
async fn flow_round(
    conn: &mut Connection,
    timeout: Duration,
    id: u64,
    round: FlowRound,
    state: Option<&str>,
    full: bool,
) -> Result<Option<String>, ReplyError> {
    let body = match tokio::time::timeout(timeout, conn.call_flow(id, round, state)).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(ReplyError::Transport(format!(
                "no reply within {timeout:?}"
            )));
        }
    };
    protocol::check_flow_reply(&body, id, round, full)
}

async fn flow_worker_loop(
    cell: HttpCell,
    window: Window,
    budget: Arc<AtomicU64>,
    first_id: u64,
) -> Recorder {
    let mut recorder = Recorder::default();
    let mut connection = None;
    let mut id = first_id;
    let mut flow: u64 = 0;
    'flows: while Instant::now() < window.end
        && budget.fetch_add(3, Ordering::Relaxed) < cell.max_requests
    {
        let Some(conn) =
            connected(&mut connection, &mut recorder, Connection::open(cell.addr)).await
        else {
            continue;
        };
        let full = flow.is_multiple_of(cell.sample_every);
        flow += 1;
        let started = Instant::now();
        let mut state: Option<String> = None;
        for round in [FlowRound::First, FlowRound::Second, FlowRound::Third] {
            id += 1;
            let sent = Instant::now();
            let outcome = flow_round(conn, cell.timeout, id, round, state.as_deref(), full).await;
            let done = Instant::now();
            match outcome {
                Ok(next) => {
                    recorder.success(&window, sent, done);
                    state = next;
                }
                Err(error) => {
                    failed(&mut recorder, &mut connection, &error);
                    continue 'flows;
                }
            }
        }
        if full {
            recorder.validated();
        }
        recorder.flow_success(&window, started, Instant::now(), 3);
    }
    recorder
}

/// The worker's connection, opened with `open` when it has none. When opening fails, the
/// error is recorded and the worker backs off a moment (a target that refuses connections is
/// broken; it is not hammered), and there is no connection: `None`.
async fn connected<'c>(
    slot: &'c mut Option<Connection>,
    recorder: &mut Recorder,
    open: impl Future<Output = anyhow::Result<Connection>>,
) -> Option<&'c mut Connection> {
    if slot.is_none() {
        match open.await {
            Ok(conn) => *slot = Some(conn),
            Err(e) => {
                recorder.error(&ReplyError::Transport(format!("{e:#}")));
                tokio::time::sleep(Duration::from_millis(10)).await;
                return None;
            }
        }
    }
    slot.as_mut()
}

/// Records `error`; after a transport error the next request opens a new connection.
fn failed(recorder: &mut Recorder, connection: &mut Option<Connection>, error: &ReplyError) {
    if matches!(error, ReplyError::Transport(_)) {
        *connection = None;
    }
    recorder.error(error);
}

async fn task_worker_loop(
    cell: HttpCell,
    window: Window,
    budget: Arc<AtomicU64>,
    first_id: u64,
) -> Recorder {
    let mut recorder = Recorder::default();
    let mut connection = None;
    let mut id = first_id;
    'tasks: while Instant::now() < window.end
        && budget.fetch_add(1, Ordering::Relaxed) < cell.max_requests
    {
        let Some(conn) =
            connected(&mut connection, &mut recorder, Connection::open(cell.addr)).await
        else {
            continue;
        };
        id += 1;
        let started = Instant::now();
        let created = within(cell.timeout, conn.create_task(id))
            .await
            .and_then(|body| protocol::check_task_created(&body, id));
        let task_id = match created {
            Ok(task_id) => task_id,
            Err(error) => {
                failed(&mut recorder, &mut connection, &error);
                continue;
            }
        };
        recorder.success(&window, started, Instant::now());
        let mut requests = 1;
        loop {
            if started.elapsed() > cell.timeout {
                recorder.error(&ReplyError::Transport(format!(
                    "task {task_id} still working after {:?}",
                    cell.timeout
                )));
                continue 'tasks;
            }
            if budget.fetch_add(1, Ordering::Relaxed) >= cell.max_requests {
                break 'tasks;
            }
            id += 1;
            requests += 1;
            let sent = Instant::now();
            let polled = within(cell.timeout, conn.poll_task(id, &task_id))
                .await
                .and_then(|body| protocol::check_task_poll(&body, id, &task_id));
            let done = Instant::now();
            match polled {
                Ok(TaskPoll::Working) => recorder.success(&window, sent, done),
                Ok(TaskPoll::Completed) => {
                    recorder.success(&window, sent, done);
                    recorder.validated();
                    recorder.flow_success(&window, started, done, requests);
                    continue 'tasks;
                }
                Err(error) => {
                    failed(&mut recorder, &mut connection, &error);
                    continue 'tasks;
                }
            }
        }
    }
    recorder
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use hyper::service::service_fn;
    use tokio::net::TcpListener;
    use tokio_util::sync::CancellationToken;

    use super::*;

    /// A server that answers every request with an HTTP 400 JSON-RPC error.
    async fn rejecting_server(shutdown: CancellationToken) -> anyhow::Result<SocketAddr> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        crate::targets::spawn_http1(
            listener,
            shutdown,
            service_fn(|_request| async {
                let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
                let mut response =
                    http::Response::new(Full::new(Bytes::from_static(body.as_bytes())));
                *response.status_mut() = http::StatusCode::BAD_REQUEST;
                Ok::<_, Infallible>(response)
            }),
        );
        Ok(addr)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_target_answering_errors_is_broken_not_fast() -> anyhow::Result<()> {
        let shutdown = CancellationToken::new();
        let addr = rejecting_server(shutdown.clone()).await?;
        assert!(preflight(addr, Duration::from_secs(2)).await.is_err());
        let stats = run(HttpCell {
            addr,
            workload: Workload::Echo,
            concurrency: 2,
            warmup: Duration::from_millis(20),
            measure: Duration::from_millis(100),
            max_requests: 10_000,
            timeout: Duration::from_secs(2),
            sample_every: 1,
        })
        .await?;
        shutdown.cancel();
        assert!(stats.errors > 0);
        assert!(!stats.healthy());
        assert!(
            stats
                .first_error
                .as_deref()
                .is_some_and(|e| e.starts_with("HTTP 400")),
            "{:?}",
            stats.first_error
        );
        Ok(())
    }
}
