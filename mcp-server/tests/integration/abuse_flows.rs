//! A thousand concurrent multi-round flows whose states and answers never cross, on a
//! multi-thread runtime, over each transport: in process (`Server::handle_message`), over
//! Streamable HTTP on a loopback socket (a pool of keep-alive connections, so that one flow's
//! rounds travel on different connections), and (250 of them, to keep the run short) over
//! one stdio pipe, where answers are told apart by id only.
//!
//! Every flow carries its own values through two rounds of questions: its first answer goes
//! into the signed `requestState`, and the result combines what the state brought back with
//! the second answer. The tool takes no arguments, so any flow's state would verify for any
//! other: a state, an answer or a response that crossed over to another flow would show in
//! that flow's result. Each flow asserts that its result is its own values.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Semaphore, oneshot};
use typemcp_server::state::{Continuation, Reply, RequestStateSigner, Round, Step};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{ElicitForm, Server, TransportInfo, tool};

use crate::support::abuse::{Conn, call, serve_http, within};
use crate::support::replies::{state_of, text_of};

/// How many flows run at once (in process and over HTTP).
const FLOWS: u64 = 1000;
/// How many flows share the one stdio pipe.
const STDIO_FLOWS: u64 = 250;

// ----- The flow -----

/// A number the client picks.
#[derive(ElicitForm)]
struct Pick {
    /// The number.
    n: i64,
}

/// Where a flow stands, and what it carries.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum Relay {
    #[awaits(first: Pick)]
    First,
    #[awaits(second: Pick)]
    Second { first: i64 },
}

/// Asks for two numbers, one per round, and answers with both.
#[tool]
async fn relay(round: Round<Relay>) -> Step<Relay, String> {
    match round.resume() {
        None => round.ask(RelayAsking::First {
            first: "First?".into(),
        }),
        Some(RelayAnswered::First {
            first: Reply::Accepted(Pick { n }),
        }) => round.ask(RelayAsking::Second {
            first: n,
            second: "Second?".into(),
        }),
        Some(RelayAnswered::Second {
            first,
            second: Reply::Accepted(Pick { n }),
        }) => Step::done(format!("{first}/{n}")),
        Some(_) => Step::done("not accepted".to_owned()),
    }
}

fn server() -> Server {
    Server::builder()
        .tool(relay)
        .request_state_signer(RequestStateSigner::new([7u8; 32]).unwrap())
        .build()
        .unwrap()
}

/// A call of `relay`, id `id`, with `extra` params (state and answers).
fn relay_call(id: String, extra: Value) -> Value {
    let mut message = call(id, "relay", json!({}));
    for (key, value) in extra.as_object().unwrap() {
        message["params"][key] = value.clone();
    }
    message
}

/// How a flow reaches the server.
#[derive(Clone)]
enum Transport {
    InProcess(Server),
    Http(Arc<Pool>),
    Stdio(Arc<Mux>),
}

impl Transport {
    async fn call(&self, message: Value) -> Value {
        match self {
            Self::InProcess(server) => {
                let bytes = serde_json::to_vec(&message).unwrap();
                let reply = server
                    .handle_message(&bytes, TransportInfo::in_process())
                    .await;
                serde_json::from_slice(&reply.unwrap()).unwrap()
            }
            Self::Http(pool) => pool.call(&message).await,
            Self::Stdio(mux) => mux.call(&message).await,
        }
    }
}

/// Flow `v`: answers `v`, then `v + 1 000 000`, and returns the result.
async fn run_flow(transport: Transport, v: u64) -> String {
    let answers = [v, v + 1_000_000];
    let mut reply = transport
        .call(relay_call(format!("{v}/0"), json!({})))
        .await;
    for (round, (key, n)) in ["first", "second"].into_iter().zip(answers).enumerate() {
        assert_eq!(reply["id"], format!("{v}/{round}"), "{reply}");
        let extra = json!({
            "requestState": state_of(&reply),
            "inputResponses": {key: {"action": "accept", "content": {"n": n}}},
        });
        let id = format!("{v}/{}", round + 1);
        reply = transport.call(relay_call(id, extra)).await;
    }
    assert_eq!(reply["id"], format!("{v}/2"), "{reply}");
    text_of(&reply)
}

/// Runs `count` flows at once over `transport`; each must end with its own values.
async fn run_all(transport: Transport, count: u64) {
    let flows: Vec<_> = (0..count)
        .map(|v| (v, tokio::spawn(run_flow(transport.clone(), v))))
        .collect();
    within(60, "every flow", async {
        for (v, flow) in flows {
            let result = flow.await.unwrap();
            assert_eq!(result, format!("{v}/{}", v + 1_000_000), "flow {v}");
        }
    })
    .await;
}

// ----- Transports -----

/// Keep-alive HTTP connections shared by the flows: a call takes whichever is free.
struct Pool {
    addr: SocketAddr,
    free: Mutex<Vec<Conn>>,
    slots: Semaphore,
}

impl Pool {
    fn new(addr: SocketAddr, size: usize) -> Self {
        Self {
            addr,
            free: Mutex::new(Vec::new()),
            slots: Semaphore::new(size),
        }
    }

    async fn call(&self, message: &Value) -> Value {
        let _slot = self.slots.acquire().await.unwrap();
        let free = self.free.lock().unwrap().pop();
        let mut conn = match free {
            Some(conn) => conn,
            None => Conn::open(self.addr).await,
        };
        let (status, reply) = conn.call(message).await;
        assert_eq!(status, 200, "{reply}");
        self.free.lock().unwrap().push(conn);
        reply
    }
}

/// One stdio pipe shared by the flows: requests written whole, one line each; a reader task
/// hands each answer to the caller waiting for its id.
struct Mux {
    input: tokio::sync::Mutex<DuplexStream>,
    waiting: Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>,
}

impl Mux {
    fn start(server: Server) -> Self {
        let (input, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, output) = tokio::io::duplex(1 << 16);
        tokio::spawn(server.serve_io(server_in, server_out));
        let waiting: Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>> = Arc::default();
        let routes = Arc::clone(&waiting);
        tokio::spawn(async move {
            let mut lines = BufReader::new(output).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let reply: Value = serde_json::from_str(&line).unwrap();
                let id = reply["id"].as_str().unwrap_or_default().to_owned();
                let waiter = routes.lock().unwrap().remove(&id);
                let waiter = waiter.unwrap_or_else(|| panic!("an answer nobody awaits: {reply}"));
                let _ = waiter.send(reply);
            }
        });
        Self {
            input: tokio::sync::Mutex::new(input),
            waiting,
        }
    }

    async fn call(&self, message: &Value) -> Value {
        let (tx, rx) = oneshot::channel();
        let id = message["id"].as_str().unwrap().to_owned();
        assert!(self.waiting.lock().unwrap().insert(id, tx).is_none());
        let line = format!("{message}\n");
        self.input
            .lock()
            .await
            .write_all(line.as_bytes())
            .await
            .unwrap();
        within(30, "a stdio answer", rx).await.unwrap()
    }
}

// ----- Tests -----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_flows_in_process_never_cross() {
    run_all(Transport::InProcess(server()), FLOWS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_flows_over_http_never_cross() {
    let addr = serve_http(server(), HttpConfig::default()).await;
    run_all(Transport::Http(Arc::new(Pool::new(addr, 32))), FLOWS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_flows_over_one_stdio_pipe_never_cross() {
    run_all(
        Transport::Stdio(Arc::new(Mux::start(server()))),
        STDIO_FLOWS,
    )
    .await;
}
