//! A table export that runs as a task (the tasks extension, `io.modelcontextprotocol/tasks`):
//! `tools/call` of `export_table` answers at once with a task; the export reports its
//! progress in the task's status message, asks one question halfway through (whether to
//! anonymize e-mail addresses: `tasks/get` shows it under `inputRequests`, `tasks/update`
//! answers it), and finishes; `tasks/get` then holds its result. A client that did not
//! declare the extension waits for the result instead, answering the same question as an
//! ordinary multi-round request.
//!
//! ```text
//! cargo run --example long_task                       # stdio
//! cargo run --example long_task -- --http 3000        # Streamable HTTP on 127.0.0.1:3000/mcp
//! # Two instances behind a load balancer: one task store (Redis), one state key.
//! export MCP_REQUEST_STATE_KEY=$(head -c 32 /dev/urandom | base64)
//! cargo run --example long_task -- --http 3000 --redis redis://127.0.0.1:6379/
//! cargo run --example long_task -- --http 3001 --redis redis://127.0.0.1:6379/
//! ```
//!
//! Flags:
//!
//! - `--http PORT`: serve Streamable HTTP on `127.0.0.1:PORT/mcp` (without it, stdio).
//! - `--redis URL`: keep tasks in the Redis at `URL`, so that any instance using it answers
//!   `tasks/get`, `tasks/update` and `tasks/cancel` for a task another one runs (the second
//!   half of an export runs on the instance that received the answer). Without it, tasks
//!   live in this process's memory.
//! - `--step-ms MS`: how long each quarter of an export takes (default 250).
//!
//! With `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes), the state of the question
//! verifies on every instance sharing the key; without it, the server draws a key for its
//! own lifetime.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use typemcp_server::state::{Continuation, Reply, RequestStateSigner, Round, Step};
use typemcp_server::tasks::{MemoryTaskStore, RedisTaskStore, TaskStore};
use typemcp_server::{ElicitForm, RequestContext, Server, ServerBuilder, State, tool};

/// How long each quarter of an export takes.
#[derive(Clone, Copy)]
struct Pace(Duration);

/// How to treat personal data in the rest of the export.
#[derive(ElicitForm)]
struct Anonymize {
    /// Replace e-mail addresses with hashes in the rows still to export?
    anonymize: bool,
}

/// Where an export stands.
#[derive(Serialize, Deserialize, Clone, Continuation)]
enum ExportFlow {
    /// Half of the rows are written; the rest waits for the answer.
    #[awaits(choice: Anonymize)]
    Halfway { rows: u64 },
}

/// Export a table to CSV. Runs as a task: poll it with tasks/get; it asks one question
/// halfway through.
#[tool(task, read_only)]
async fn export_table(
    /// The table to export.
    table: String,
    ctx: RequestContext,
    round: Round<ExportFlow>,
    State(pace): State<Pace>,
) -> Step<ExportFlow, String> {
    match round.resume() {
        None => {
            for quarter in 1..=2 {
                if !work(&ctx, &table, quarter, pace).await {
                    return cancelled(&table);
                }
            }
            round.ask(ExportFlowAsking::Halfway {
                rows: 5_000,
                choice: format!(
                    "Half of {table} is exported. Anonymize e-mail addresses in the rest?"
                )
                .into(),
            })
        }
        Some(ExportFlowAnswered::Halfway {
            choice: Reply::Accepted(Anonymize { anonymize }),
            rows,
        }) => {
            for quarter in 3..=4 {
                if !work(&ctx, &table, quarter, pace).await {
                    return cancelled(&table);
                }
            }
            eprintln!("export finished: {table}");
            let note = if anonymize {
                " (e-mail addresses anonymized)"
            } else {
                ""
            };
            Step::done(format!(
                "Exported {} rows of {table} to {table}.csv{note}.",
                rows * 2
            ))
        }
        Some(ExportFlowAnswered::Halfway { .. }) => {
            Step::done(format!("Export of {table} stopped halfway."))
        }
    }
}

/// The step of an export that was cancelled.
fn cancelled(table: &str) -> Step<ExportFlow, String> {
    eprintln!("export cancelled: {table}");
    Step::done(format!("Export of {table} cancelled."))
}

/// Exports one quarter of the table, reporting progress; `false` if cancelled meanwhile.
async fn work(ctx: &RequestContext, table: &str, quarter: u32, Pace(pace): Pace) -> bool {
    let message = format!("Exporting {table}, quarter {quarter} of 4");
    ctx.report_progress(f64::from(quarter - 1), Some(4.0), Some(message))
        .await;
    tokio::select! {
        () = tokio::time::sleep(pace) => true,
        () = ctx.cancellation().cancelled() => false,
    }
}

/// What the command line asks for.
struct Options {
    http: Option<u16>,
    redis: Option<String>,
    pace: Duration,
}

const USAGE: &str = "[--http PORT] [--redis URL] [--step-ms MS]";

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        redis: None,
        pace: Duration::from_millis(250),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--http" => {
                let port = value("--http")?;
                options.http = Some(port.parse().map_err(|_| "--http takes a port")?);
            }
            "--redis" => options.redis = Some(value("--redis")?),
            "--step-ms" => {
                let ms: u64 = value("--step-ms")?
                    .parse()
                    .map_err(|_| "--step-ms takes milliseconds")?;
                options.pace = Duration::from_millis(ms);
            }
            other => return Err(format!("unknown argument {other:?} (expected {USAGE})")),
        }
    }
    Ok(options)
}

/// The server: the export tool, its tasks kept in `store`.
fn server(
    store: impl TaskStore,
    pace: Duration,
) -> Result<ServerBuilder, Box<dyn std::error::Error>> {
    let signer = if std::env::var_os("MCP_REQUEST_STATE_KEY").is_some() {
        RequestStateSigner::from_env("MCP_REQUEST_STATE_KEY")?
    } else {
        RequestStateSigner::generate()?
    };
    Ok(Server::builder()
        .name("long-task")
        .version("1.0.0")
        .request_state_signer(signer)
        .state(Pace(pace))
        .tool(export_table)
        .task_store(store)
        .task_poll_interval(Duration::from_millis(200)))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr (stdout carries the protocol over stdio); `RUST_LOG=typemcp_server=debug`
    // shows every request served.
    typemcp_server::logging::init();
    let options = options()?;
    let builder = match &options.redis {
        // The URL may hold a password: it is not printed.
        Some(url) => server(RedisTaskStore::connect(url).await?, options.pace)?,
        None => server(MemoryTaskStore::new(), options.pace)?,
    };
    let server = builder.build()?;
    match options.http {
        Some(port) => {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
            server
                .serve_http_on(
                    listener,
                    Default::default(),
                    typemcp_server::transport::shutdown_signal(),
                )
                .await?;
        }
        None => server.serve_stdio().await?,
    }
    Ok(())
}
