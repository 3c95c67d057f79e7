//! Load harness comparing MCP server implementations on one `tools/call` request.
//!
//! The harness measures requests per second and latency of the same
//! protocol-revision `2026-07-28` stateless `tools/call` request (see [`protocol`])
//! against several [`targets`]:
//!
//! * a bare hyper 1.x endpoint that parses the JSON-RPC body and echoes the id
//!   (the HTTP ceiling for any framework),
//! * a newline-delimited JSON echo child process (the stdio ceiling),
//! * rmcp 3.1.4, the official Rust SDK, over Streamable HTTP and stdio,
//! * this workspace's `typemcp-server`, over Streamable HTTP and stdio.
//!
//! A second HTTP scenario, the three-round flow (`flow3`), measures a multi-round
//! `tools/call` (SEP-2322) on rmcp and ours: round 1 asks a question and returns a signed
//! `requestState`, round 2 answers it with the echoed state and gets a second question,
//! round 3 answers that and completes (see [`protocol::flow_request_body`]). It reports
//! flows/s and flows/s × 3 against the same target's single-call rate. The same flow on
//! ours with single-use states shared through Redis ([`targets::ours_redis`], against a
//! `redis-server` the harness starts itself, see [`redis`]) is reported as a ratio to the
//! flow without it.
//!
//! A third HTTP scenario, the session mode (`session http`), is the older protocol era
//! (2025-11-25) on ours and on rmcp's stateful configuration (`rmcp-session`): each
//! connection opens a session (`initialize`, `notifications/initialized`) and then sends the
//! same `echo` call on it under its `Mcp-Session-Id`. It is reported as a ratio to bare
//! hyper's and to the same SDK's 2026-wire rate at the same concurrency.
//!
//! A fourth HTTP scenario, tasks (`task http`), runs the tasks extension on ours: each
//! worker creates a task (a `tools/call` of `task_echo` declaring the extension, answered with
//! a `CreateTaskResult`), polls it with `tasks/get` back to back until it is `completed`, and
//! checks the echoed result (see [`protocol::task_request_body`]). It reports tasks/s,
//! requests per task and whole-task latency, and tasks/s against the same target's
//! single-call rate at the same concurrency.
//!
//! Servers run on their own multi-thread tokio runtime, the load generators on
//! another ([`runner`]); traffic stays on `127.0.0.1` and every cell is bounded
//! in time and in request count ([`config`]). The bench target
//! `benches/load.rs` drives everything and prints a table ([`report`]).
//!
//! The comparison table of `docs/benchmarks/README.md` ([`table`], `benches/table.rs`) runs
//! every server as a process of its own instead (the HTTP servers are the bins of
//! [`http_process`]), pinned to one core while the load generator runs on the other
//! ([`command`]), and adds the server's CPU time per call and peak RSS from its own
//! accounting ([`proc_stats`]), cold start, and the TypeScript and Python SDKs ([`peers`]),
//! with a bar chart of the ratios ([`plot`]).

pub mod bins;
pub mod client;
pub mod command;
pub mod config;
pub mod http_process;
pub mod peers;
pub mod plot;
pub mod proc_stats;
pub mod protocol;
pub mod redis;
pub mod report;
pub mod runner;
pub mod soak;
pub mod stats;
pub mod stdio_client;
pub mod table;
pub mod targets;
