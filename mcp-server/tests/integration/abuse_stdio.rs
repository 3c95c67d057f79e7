//! Abuse of the stdio transport (`Server::serve_io` over in-memory pipes, written and read
//! independently). Each test proves that the server keeps serving and loses nothing:
//!
//! - a flood of 20 000 lines written as fast as possible, mixing valid requests, garbage,
//!   bytes that are not UTF-8, notifications (cancellations of nothing among them) and
//!   over-long lines: every valid request gets
//!   exactly one answer carrying its own id and its own result, every bad line exactly one
//!   error, notifications none; input closed right after the last line (which has no
//!   newline) still gets every answer, and then the server ends cleanly;
//! - a client that does not read stdout holds back the handler that writes to it
//!   (backpressure, bounded memory), and once it reads it gets every notification in order;
//!   and the requests it keeps writing meanwhile are not piled up without bound;
//! - JSON nested 100 000 levels deep is a JSON-RPC error, not a stack overflow;
//! - `notifications/cancelled` in the middle of handlers stops exactly those handlers (their
//!   `CancellationToken` fires, they are dropped), no response is written for them, and the
//!   others and later requests are answered;
//! - a handler that panics while served on the reading task (before it awaits anything) is
//!   answered with -32603 and reading goes on, while a handler that waits goes on as a task
//!   of its own and does not hold up the requests after it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::io;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::task::JoinHandle;
use typemcp_server::Server;

use crate::support::abuse::{
    Probe, call, call_with_progress, deeply_nested_messages, error_code, eventually, plateau, text,
    tools, within,
};

/// The client's ends of a server's stdio, used independently.
struct Pipes {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
    serving: JoinHandle<io::Result<()>>,
}

impl Pipes {
    /// Serves `server` on fresh pipes of 64 KiB each way.
    fn start(server: Server) -> Self {
        let (input, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, output) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(server.serve_io(server_in, server_out));
        Self {
            input,
            output: BufReader::new(output).lines(),
            serving,
        }
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        let write = self.input.write_all(line.as_bytes());
        within(10, "writing a line", write).await.unwrap();
    }

    /// The next message written, within ten seconds.
    async fn next(&mut self) -> Value {
        let line = within(10, "a line from the server", self.output.next_line()).await;
        let line = line.unwrap().expect("the server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    async fn call(&mut self, message: &Value) -> Value {
        self.send(message).await;
        self.next().await
    }

    /// Asserts that nothing more is written for a short while.
    async fn silent(&mut self) {
        let line = tokio::time::timeout(Duration::from_millis(300), self.output.next_line()).await;
        assert!(line.is_err(), "unexpected output: {line:?}");
    }

    /// Ends the input; the server must then finish cleanly with nothing more written.
    async fn close(self) {
        let Self {
            input,
            mut output,
            serving,
        } = self;
        drop(input);
        let rest = within(10, "the end of the output", output.next_line()).await;
        assert!(
            matches!(rest, Ok(None)),
            "output after the last answer: {rest:?}"
        );
        let served = within(10, "serve_io returning", serving).await;
        served.unwrap().unwrap();
    }
}

/// The server of [`tools`], its lines limited to 8 KiB.
fn start() -> (Pipes, Probe) {
    start_with(8 * 1024)
}

/// The server of [`tools`], its lines limited to `max_line` bytes.
fn start_with(max_line: usize) -> (Pipes, Probe) {
    let probe = Probe::default();
    let server = tools(&probe).max_message_bytes(max_line).build().unwrap();
    (Pipes::start(server), probe)
}

// ----- A flood of lines -----

/// What one line of the flood is, and so what it must get back.
enum Expect {
    /// A request: exactly one answer, with this id and this text.
    Answer(Value, String),
    /// A bad line: exactly one error without id.
    Error,
    /// A notification: nothing.
    Nothing,
}

/// Line `i` of the flood.
fn flood_line(i: usize) -> (Vec<u8>, Expect) {
    let garbage: [&[u8]; 6] = [
        b"not json at all",
        b"{\"jsonrpc\":\"2.0\",\"id\":",
        b"[1, 2, 3]",
        b"{\"jsonrpc\":\"2.0\"}",
        b"\xff\xfe\x00{}",
        b"\"just a string\"",
    ];
    if i % 50 == 7 {
        (garbage[i / 50 % garbage.len()].to_vec(), Expect::Error)
    } else if i % 500 == 13 {
        // Over the 8 KiB limit: discarded up to its newline, one error.
        let long = call(
            format!("long-{i}"),
            "echo",
            json!({"text": "x".repeat(16 * 1024)}),
        );
        (long.to_string().into_bytes(), Expect::Error)
    } else if i % 100 == 21 {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "nobody", "progress": 1}});
        (note.to_string().into_bytes(), Expect::Nothing)
    } else if i % 100 == 71 {
        // Cancelling a request that was never sent changes nothing.
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": format!("ghost-{i}")}});
        (note.to_string().into_bytes(), Expect::Nothing)
    } else {
        // Numeric and string ids, in pairs alike but for their type (`5` and `"5"`): two ids.
        let id = if i.is_multiple_of(2) {
            json!(i / 2)
        } else {
            json!((i / 2).to_string())
        };
        let echo = format!("flood {i}");
        let request = call(id.clone(), "echo", json!({"text": echo}));
        (request.to_string().into_bytes(), Expect::Answer(id, echo))
    }
}

#[tokio::test]
async fn a_flood_of_lines_gets_exactly_one_answer_per_request_and_one_error_per_bad_line() {
    const LINES: usize = 20_000;
    let (pipes, _) = start();
    let Pipes {
        mut input,
        mut output,
        serving,
    } = pipes;
    let mut flood = Vec::new();
    let mut expected = HashMap::new();
    let mut errors = 0;
    for i in 0..LINES {
        let (line, expect) = flood_line(i);
        flood.extend_from_slice(&line);
        flood.push(b'\n');
        match expect {
            Expect::Answer(id, echo) => {
                assert!(expected.insert(id.to_string(), echo).is_none());
            }
            Expect::Error => errors += 1,
            Expect::Nothing => {}
        }
        if i == LINES / 2 {
            // And one line of 1 MiB in the middle.
            flood.extend_from_slice(&vec![b'{'; 1 << 20]);
            flood.push(b'\n');
            errors += 1;
        }
    }
    // The last request has no newline: the end of input ends it.
    let last = call("last", "echo", json!({"text": "no newline"}));
    flood.extend_from_slice(last.to_string().as_bytes());
    expected.insert(json!("last").to_string(), "no newline".to_owned());
    let answers = expected.len();
    // Written as fast as the pipe takes it, while the answers are read, and closed at once:
    // what is in flight at the end of input is still answered before the output closes.
    let writer = tokio::spawn(async move {
        input.write_all(&flood).await.unwrap();
    });
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut errors_seen = 0;
    within(
        60,
        "the answers to the flood and the end of output",
        async {
            while let Some(line) = output.next_line().await.unwrap() {
                let reply: Value =
                    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if reply["id"].is_null() {
                    let code = error_code(&reply);
                    assert!([-32700, -32600].contains(&code), "{reply}");
                    errors_seen += 1;
                    continue;
                }
                let id = reply["id"].to_string();
                let echo = expected
                    .get(&id)
                    .unwrap_or_else(|| panic!("an answer to no request: {reply}"));
                assert_eq!(text(&reply), echo, "{reply}");
                *seen.entry(id).or_default() += 1;
            }
        },
    )
    .await;
    assert_eq!(errors_seen, errors);
    assert_eq!(seen.len(), answers, "requests without an answer");
    assert!(seen.values().all(|&n| n == 1), "a request answered twice");
    within(10, "the writer", writer).await.unwrap();
    within(10, "serve_io returning", serving)
        .await
        .unwrap()
        .unwrap();
}

// ----- Slow readers -----

#[tokio::test]
async fn a_client_that_does_not_read_stdout_holds_back_the_handler_and_loses_nothing() {
    const COUNT: usize = 5_000;
    const SIZE: usize = 1024;
    let (mut pipes, probe) = start();
    let message = call_with_progress(
        "flood",
        "chatter",
        json!({"count": COUNT, "size": SIZE}),
        "p",
    );
    pipes.send(&message).await;
    // Nothing is read: the handler gets some way, then waits.
    let reached = plateau(&probe.sent, COUNT).await;
    assert!(
        reached < COUNT / 2,
        "{reached} of {COUNT} notifications of {SIZE} bytes queued for a client that reads nothing"
    );
    // Reading again: every notification in order, then the response.
    for i in 0..COUNT {
        let event = pipes.next().await;
        assert_eq!(event["method"], "notifications/progress", "{event}");
        assert_eq!(event["params"]["progress"], i as f64, "{event}");
    }
    let response = pipes.next().await;
    assert_eq!(response["id"], "flood", "{response}");
    assert_eq!(text(&response), format!("sent {COUNT}"));
    let reply = pipes
        .call(&call("after", "echo", json!({"text": "after"})))
        .await;
    assert_eq!(text(&reply), "after");
    pipes.close().await;
}

#[tokio::test]
async fn requests_from_a_client_that_does_not_read_are_not_piled_up_without_bound() {
    const REQUESTS: usize = 20_000;
    let (mut pipes, probe) = start();
    // Nothing is read; each `hold` is released at once, so its answer waits for the client.
    probe.release.cancel();
    let mut written = 0;
    let lines: Vec<String> = (0..REQUESTS)
        .map(|i| format!("{}\n", call(i, "hold", json!({}))))
        .collect();
    // Writing stops being accepted once the server holds back, or all of it goes in.
    let _ = tokio::time::timeout(Duration::from_secs(3), async {
        for line in &lines {
            pipes.input.write_all(line.as_bytes()).await.unwrap();
            written += 1;
        }
    })
    .await;
    let entered = plateau(&probe.entered, REQUESTS).await;
    assert!(
        entered < REQUESTS / 4,
        "{entered} requests of {REQUESTS} taken in ({written} written) for a client that reads nothing"
    );
}

// ----- Deeply nested JSON -----

#[tokio::test]
async fn json_nested_a_hundred_thousand_deep_is_an_error_not_a_stack_overflow() {
    // Lines of up to 1 MiB, so that the nesting is parsed rather than cut off.
    let (mut pipes, _) = start_with(1 << 20);
    for (case, line) in deeply_nested_messages(100_000, 7) {
        pipes.input.write_all(line.as_bytes()).await.unwrap();
        pipes.input.write_all(b"\n").await.unwrap();
        let reply = pipes.next().await;
        let code = error_code(&reply);
        assert!([-32700, -32600, -32602].contains(&code), "{case}: {reply}");
        let echo = pipes.call(&call(case, "echo", json!({"text": case}))).await;
        assert_eq!(echo["id"], case, "{echo}");
        assert_eq!(text(&echo), case);
    }
    pipes.close().await;
}

// ----- Cancellation -----

/// `notifications/cancelled` for request `id`.
fn cancelled(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "changed my mind"}})
}

#[tokio::test]
async fn cancelled_handlers_stop_get_no_answer_and_the_others_are_served() {
    const HELD: usize = 20;
    let (mut pipes, probe) = start();
    for i in 0..HELD {
        pipes.send(&call(i, "hold", json!({}))).await;
    }
    eventually(10, "every handler entered", || {
        Probe::get(&probe.entered) == HELD
    })
    .await;
    // Cancel the even ones mid-way, plus an unknown request and a malformed cancellation.
    for i in (0..HELD).step_by(2) {
        pipes.send(&cancelled(json!(i))).await;
    }
    pipes.send(&cancelled(json!("never-sent"))).await;
    let malformed = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}});
    pipes.send(&malformed).await;
    eventually(10, "the cancelled handlers stopped", || {
        probe.cancelled() == HELD / 2 && Probe::get(&probe.stopped) == HELD / 2
    })
    .await;
    // Nothing is written for them, and the server still answers.
    pipes.silent().await;
    let reply = pipes
        .call(&call("next", "echo", json!({"text": "next"})))
        .await;
    assert_eq!(text(&reply), "next");
    // The others finish, each answered once.
    probe.release.cancel();
    let mut answered = Vec::new();
    for _ in 0..HELD / 2 {
        let reply = pipes.next().await;
        assert_eq!(text(&reply), "finished");
        answered.push(reply["id"].as_u64().unwrap());
    }
    answered.sort_unstable();
    let odd: Vec<u64> = (1..HELD as u64).step_by(2).collect();
    assert_eq!(answered, odd);
    pipes.silent().await;
    assert_eq!(probe.cancelled(), HELD / 2);
    assert_eq!(Probe::get(&probe.finished), HELD / 2);
    pipes.close().await;
}

// ----- Requests served on the reading task -----

/// Panics before it awaits anything, so on the reading task itself.
#[typemcp_server::tool]
async fn explode() -> String {
    panic!("this handler always panics")
}

#[tokio::test]
async fn a_handler_that_panics_on_the_reading_task_is_answered_and_reading_goes_on() {
    let probe = Probe::default();
    let server = crate::support::abuse::tools(&probe)
        .tool(explode)
        .build()
        .unwrap();
    let mut pipes = Pipes::start(server);
    // One that waits (it goes on as a task of its own), then a panic and a quick call, both
    // served where they are read: the panic is an error, and neither waits for the first.
    pipes.send(&call("held", "hold", json!({}))).await;
    eventually(10, "the held handler entered", || {
        Probe::get(&probe.entered) == 1
    })
    .await;
    let reply = pipes.call(&call("boom", "explode", json!({}))).await;
    assert_eq!(reply["id"], "boom");
    assert_eq!(error_code(&reply), -32603);
    assert_eq!(reply["error"]["message"], "Internal error");
    let reply = pipes
        .call(&call("after", "echo", json!({"text": "still here"})))
        .await;
    assert_eq!(text(&reply), "still here");
    // The same id again, now that the panicking request is over, is a new request.
    let reply = pipes.call(&call("boom", "explode", json!({}))).await;
    assert_eq!(error_code(&reply), -32603);
    // A request whose id is still being served is refused.
    let reply = pipes
        .call(&call("held", "echo", json!({"text": "x"})))
        .await;
    assert_eq!(error_code(&reply), -32600);
    probe.release.cancel();
    let reply = pipes.next().await;
    assert_eq!(reply["id"], "held");
    assert_eq!(text(&reply), "finished");
    pipes.close().await;
}
