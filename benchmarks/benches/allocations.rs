//! Heap allocations per request, path by path, on the `echo` and `flow` tools of
//! [`mcp_benchmarks::targets::ours`].
//!
//! Run with `cargo bench -p mcp-benchmarks --bench allocations` (a few seconds once built).
//! Every heap operation of the process goes through a counting global allocator
//! (`stats_alloc`, a wrapper around `std::alloc::System`: the workspace forbids the `unsafe`
//! a `GlobalAlloc` of our own would need); each scenario warms up, then serves `N` requests
//! on a current-thread tokio runtime (so no other thread allocates meanwhile) and prints,
//! per request: allocations (`realloc`s counted apart), frees, bytes asked for, and the wall
//! time (a rough figure: the counting allocator adds a little).
//!
//! Scenarios (the request body is the load harness's, [`mcp_benchmarks::protocol`]):
//! - `in-process`: `Server::handle_message` with a 2026-07-28 `tools/call` of `echo`;
//! - `http`: the same request through `Server::http_service()` (`tower::ServiceExt::oneshot`
//!   with the headers the harness sends), response body read to the end;
//! - `stdio-1`: `Server::serve_io` over `tokio::io::duplex` pipes, one request in flight
//!   (write a line, read the reply line);
//! - `stdio-64`: the same with 64 requests in flight;
//! - `flow-r1`, `flow-r2`, `flow-r3`: the three rounds of the `flow` tool in-process (round 1
//!   answers `input_required` with a signed `requestState`, rounds 2 and 3 send
//!   `inputResponses` with the state of the round before);
//! - `baseline`: what the harness's client side costs on its own per request (building the
//!   HTTP request), to subtract from `http`.
//!
//! Environment: `ALLOC_N` sets `N` (default 20000); `ALLOC_ONLY=in-process,http` runs only
//! the named scenarios (`in-process`, `http`, `stdio-1`, `stdio-64`, `flow`, `baseline`) (for profiling one path under `valgrind --tool=dhat` or
//! `--tool=callgrind`, or `perf record`).

use std::alloc::System;
use std::hint::black_box;
use std::time::{Duration, Instant};

use axum::body::Body;
use bytes::Bytes;
use http::Request;
use http_body_util::BodyExt;
use mcp_benchmarks::protocol::{
    self, ACCEPT, CONTENT_TYPE_JSON, FlowRound, HEADER_METHOD, HEADER_NAME,
    HEADER_PROTOCOL_VERSION, METHOD, PROTOCOL_VERSION, TOOL_NAME,
};
use mcp_benchmarks::targets::ours::echo_server;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tower::ServiceExt;
use typemcp_server::{Server, TransportInfo};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Requests served before counting starts.
const WARM_UP: u64 = 500;
/// How long a stdio reply may take before the scenario fails rather than hangs.
const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// Requests in flight in the pipelined stdio scenario.
const WINDOW: usize = 64;

/// What `N` requests of one scenario cost.
struct Measured {
    stats: Stats,
    elapsed: Duration,
    calls: u64,
}

impl Measured {
    /// Counts the heap operations and the time of `run`, which serves `calls` requests.
    async fn of<F: Future<Output = ()>>(calls: u64, run: F) -> Self {
        let region = Region::new(GLOBAL);
        let start = Instant::now();
        run.await;
        let elapsed = start.elapsed();
        let stats = region.change();
        Self {
            stats,
            elapsed,
            calls,
        }
    }

    fn per_call(&self, count: usize) -> f64 {
        count as f64 / self.calls as f64
    }
}

/// The body of `echo` request `id`, as the load harness sends it.
fn echo_body(id: u64) -> Bytes {
    Bytes::from(protocol::request_body(id))
}

/// The HTTP request the load harness sends for a `tools/call` of `tool`.
fn http_request(body: Bytes, tool: &str) -> Request<Body> {
    let request = Request::builder()
        .method("POST")
        .uri("/")
        .header(http::header::HOST, "127.0.0.1:8080")
        .header(http::header::CONTENT_TYPE, CONTENT_TYPE_JSON)
        .header(http::header::ACCEPT, ACCEPT)
        .header(HEADER_PROTOCOL_VERSION, PROTOCOL_VERSION)
        .header(HEADER_METHOD, METHOD)
        .header(HEADER_NAME, tool)
        .body(Body::from(body));
    request.unwrap_or_else(|err| panic!("a well-formed request: {err}"))
}

/// Checks an `echo` reply, panicking on anything else (set-up only, not counted).
fn check_echo(reply: &[u8], id: u64) {
    if let Err(err) = protocol::check_reply_full(reply, id) {
        panic!("echo request {id}: {err}");
    }
}

/// `Server::handle_message`, one `echo` call at a time.
async fn in_process(server: &Server, n: u64) -> Measured {
    let reply = server
        .handle_message(&echo_body(0), TransportInfo::in_process())
        .await;
    check_echo(&reply.unwrap_or_default(), 0);
    let bodies: Vec<Bytes> = (1..=WARM_UP + n).map(echo_body).collect();
    let (warm, counted) = bodies.split_at(WARM_UP as usize);
    for body in warm {
        black_box(
            server
                .handle_message(body, TransportInfo::in_process())
                .await,
        );
    }
    Measured::of(n, async {
        for body in counted {
            black_box(
                server
                    .handle_message(body, TransportInfo::in_process())
                    .await,
            );
        }
    })
    .await
}

/// Serves `request` through the HTTP router and reads the whole response body.
async fn http_call(router: &axum::Router, request: Request<Body>) -> usize {
    let response = match router.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if response.status() != http::StatusCode::OK {
        panic!("HTTP {}", response.status());
    }
    let mut body = response.into_body();
    let mut read = 0;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => read += frame.data_ref().map_or(0, Bytes::len),
            Err(err) => panic!("response body: {err}"),
        }
    }
    read
}

/// `Server::http_service()` as a tower service, one `echo` call at a time.
async fn http(server: &Server, n: u64) -> Measured {
    let router = server.http_service();
    let response = match router
        .clone()
        .oneshot(http_request(echo_body(0), TOOL_NAME))
        .await
    {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let body = response.into_body().collect().await;
    let body = body.unwrap_or_else(|err| panic!("response body: {err}"));
    check_echo(&body.to_bytes(), 0);
    let mut requests: Vec<Request<Body>> = (1..=WARM_UP + n)
        .map(|id| http_request(echo_body(id), TOOL_NAME))
        .collect();
    let counted = requests.split_off(WARM_UP as usize);
    for request in requests {
        black_box(http_call(&router, request).await);
    }
    Measured::of(n, async {
        for request in counted {
            black_box(http_call(&router, request).await);
        }
    })
    .await
}

/// What building the HTTP requests costs the client side, per request (not the server's).
async fn baseline(n: u64) -> Measured {
    let bodies: Vec<Bytes> = (1..=n).map(echo_body).collect();
    Measured::of(n, async {
        for body in bodies {
            black_box(http_request(body, TOOL_NAME));
        }
    })
    .await
}

/// `Server::serve_io` over in-memory pipes, `window` requests in flight.
async fn stdio(server: &Server, n: u64, window: usize) -> Measured {
    // One pipe each way (no `split`): requests, then replies.
    let (mut client_write, server_read) = tokio::io::duplex(64 * 1024);
    let (server_write, client_read) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(server.clone().serve_io(server_read, server_write));
    let mut replies = BufReader::with_capacity(64 * 1024, client_read);
    let total = WARM_UP + n;
    let mut lines = Vec::with_capacity(total as usize);
    for id in 0..total {
        let mut line = protocol::request_body(id);
        line.push(b'\n');
        lines.push(line);
    }
    let mut reply = Vec::with_capacity(4096);
    // One checked round trip, then the warm-up with the same window.
    write_line(&mut client_write, &lines[0]).await;
    read_line(&mut replies, &mut reply).await;
    check_echo(&reply, 0);
    let (warm, counted) = lines.split_at(WARM_UP as usize);
    pipeline(
        &mut client_write,
        &mut replies,
        &mut reply,
        &warm[1..],
        window,
    )
    .await;
    let measured = Measured::of(n, async {
        pipeline(&mut client_write, &mut replies, &mut reply, counted, window).await;
    })
    .await;
    drop(client_write);
    match serving.await {
        Ok(Ok(())) => {}
        Ok(Err(err)) => panic!("serve_io: {err}"),
        Err(err) => panic!("serve_io task: {err}"),
    }
    measured
}

/// Writes every line of `lines`, keeping at most `window` without a reply, and reads all the
/// replies.
async fn pipeline<W, R>(
    write: &mut W,
    read: &mut R,
    reply: &mut Vec<u8>,
    lines: &[Vec<u8>],
    window: usize,
) where
    W: tokio::io::AsyncWrite + Unpin,
    R: tokio::io::AsyncBufRead + Unpin,
{
    let mut sent = 0;
    let mut received = 0;
    while received < lines.len() {
        while sent < lines.len() && sent - received < window {
            write_line(write, &lines[sent]).await;
            sent += 1;
        }
        read_line(read, reply).await;
        received += 1;
    }
}

async fn write_line<W: tokio::io::AsyncWrite + Unpin>(write: &mut W, line: &[u8]) {
    let written = tokio::time::timeout(REPLY_TIMEOUT, write.write_all(line)).await;
    let Ok(written) = written else {
        panic!("a request not taken within {REPLY_TIMEOUT:?}");
    };
    if let Err(err) = written {
        panic!("writing a request: {err}");
    }
}

async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(read: &mut R, reply: &mut Vec<u8>) {
    reply.clear();
    let line = tokio::time::timeout(REPLY_TIMEOUT, read.read_until(b'\n', reply)).await;
    match line {
        Err(_) => panic!("no reply within {REPLY_TIMEOUT:?}"),
        Ok(Ok(0)) => panic!("the server closed its output"),
        Ok(Ok(_)) => {}
        Ok(Err(err)) => panic!("reading a reply: {err}"),
    }
}

/// The three rounds of the `flow` tool in-process: `n` flows, each round counted apart.
async fn flow(server: &Server, n: u64) -> [Measured; 3] {
    let info = TransportInfo::in_process;
    // Warm-up: whole flows.
    let mut id = 0;
    for _ in 0..WARM_UP {
        let mut state = None;
        for round in [FlowRound::First, FlowRound::Second, FlowRound::Third] {
            id += 1;
            let body = protocol::flow_request_body(id, round, state.as_deref());
            let reply = server.handle_message(&body, info()).await;
            state = check_flow(&reply.unwrap_or_default(), id, round);
        }
    }
    let mut measured = Vec::with_capacity(3);
    let mut states: Vec<Option<String>> = vec![None; n as usize];
    for round in [FlowRound::First, FlowRound::Second, FlowRound::Third] {
        let first_id = id + 1;
        let bodies: Vec<Vec<u8>> = states
            .iter()
            .map(|state| {
                id += 1;
                protocol::flow_request_body(id, round, state.as_deref())
            })
            .collect();
        let mut replies: Vec<Option<Bytes>> = Vec::with_capacity(bodies.len());
        let replies_ref = &mut replies;
        measured.push(
            Measured::of(n, async move {
                for body in &bodies {
                    replies_ref.push(server.handle_message(body, info()).await);
                }
            })
            .await,
        );
        states = replies
            .into_iter()
            .zip(first_id..)
            .map(|(reply, id)| check_flow(&reply.unwrap_or_default(), id, round))
            .collect();
    }
    match <[Measured; 3]>::try_from(measured) {
        Ok(rounds) => rounds,
        Err(_) => unreachable!("three rounds were measured"),
    }
}

fn check_flow(reply: &[u8], id: u64, round: FlowRound) -> Option<String> {
    protocol::check_flow_reply(reply, id, round, true)
        .unwrap_or_else(|err| panic!("flow request {id}, {round:?}: {err}"))
}

fn print_header(n: u64) {
    println!("heap operations per request ({n} requests after {WARM_UP} to warm up)");
    println!();
    println!(
        "| {:<12} | {:>9} | {:>9} | {:>9} | {:>10} | {:>9} |",
        "scenario", "allocs", "reallocs", "frees", "bytes", "µs/call"
    );
    println!(
        "|{:-<14}|{:->11}|{:->11}|{:->11}|{:->12}|{:->11}|",
        "", "", "", "", "", ""
    );
}

fn print_row(name: &str, m: &Measured) {
    let bytes = m.stats.bytes_allocated + m.stats.bytes_reallocated.max(0) as usize;
    println!(
        "| {:<12} | {:>9.1} | {:>9.1} | {:>9.1} | {:>10.0} | {:>9.2} |",
        name,
        m.per_call(m.stats.allocations),
        m.per_call(m.stats.reallocations),
        m.per_call(m.stats.deallocations),
        m.per_call(bytes),
        m.elapsed.as_secs_f64() * 1e6 / m.calls as f64,
    );
}

fn main() {
    // `cargo bench` passes `--bench`; this target takes no arguments of its own.
    let n: u64 = std::env::var("ALLOC_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let only = std::env::var("ALLOC_ONLY").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|only| only.split(',').any(|s| s.trim() == name))
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|err| panic!("a tokio runtime: {err}"));
    let server = echo_server().unwrap_or_else(|err| panic!("the echo server: {err}"));
    print_header(n);
    runtime.block_on(async {
        if wanted("in-process") {
            print_row("in-process", &in_process(&server, n).await);
        }
        if wanted("http") {
            print_row("http", &http(&server, n).await);
        }
        if wanted("stdio-1") {
            print_row("stdio-1", &stdio(&server, n, 1).await);
        }
        if wanted("stdio-64") {
            print_row("stdio-64", &stdio(&server, n, WINDOW).await);
        }
        if wanted("flow") {
            let [r1, r2, r3] = flow(&server, n).await;
            print_row("flow-r1", &r1);
            print_row("flow-r2", &r2);
            print_row("flow-r3", &r3);
        }
        if wanted("baseline") {
            print_row("baseline", &baseline(n).await);
        }
    });
}
