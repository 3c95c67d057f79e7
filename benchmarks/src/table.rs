//! The comparison table: ours, rmcp, the TypeScript and Python SDKs and the ceilings, every
//! server a child process of its own, measured for throughput, latency, CPU per call from the
//! server's own accounting, peak RSS and cold start, every ratio against a ceiling run made
//! just before it.
//!
//! Driven by `cargo bench -p mcp-benchmarks --bench table` (`benches/table.rs`), which prints
//! the table in Markdown and writes it, with a bar chart of the ratios ([`crate::plot`]) and
//! every run's figures (`runs.csv`), into `TABLE_OUT` (default `target/bench-table/`).
//!
//! # Setup
//! * Servers: `bare_http_server` and `echo_stdio` (the ceilings: bare hyper parsing the body
//!   and echoing the id; a blocking read-parse-write loop), `ours_http_server` and
//!   `ours_stdio_server`, `rmcp_http_server` and `rmcp_stdio_server` (bins of this crate), and
//!   the peers of [`crate::peers`] (skipped, saying why, when they cannot be installed).
//! * Pinning: when `taskset` exists and there are two cores ([`crate::command::can_pin`]),
//!   the harness pins itself to core 1 and every measured server runs under `taskset -c 0`.
//! * A cell: a fresh server process; for HTTP, it is polled until it answers, then 64 workers
//!   (one keep-alive connection each) send the `echo` call for the warm-up and the window;
//!   for stdio, requests are pipelined 64 or 1 deep. The server's CPU time (utime + stime)
//!   is read when the window opens and when it closes, its `VmHWM` at the end.
//! * Order: scenario by scenario (HTTP at 64 connections, stdio at 64 in flight, stdio at 1),
//!   `TABLE_RUNS` rounds; in each round every implementation's cell follows a ceiling cell of
//!   its own, and the implementation's ratios are taken against that ceiling cell. The table
//!   shows medians over the rounds: of the values, and of the paired ratios.
//! * Cold start: the time from spawning the server to the first good reply (HTTP: a real
//!   request polled every 200 µs; stdio: the request written at once and the first reply line
//!   read), median of `TABLE_COLD_STARTS`, the ceiling's just before. Not pinned (the child
//!   inherits the harness's core, which is idle while it waits): `taskset` itself would add
//!   about half a millisecond to every start.
//! * The peers speak protocol 2025-11-25 only: they are driven in session mode (`initialize`
//!   once per connection or per stdio child, then the same `echo` call under the session),
//!   while ours and rmcp get the 2026 stateless call.
//!
//! | variable | default | meaning |
//! | --- | --- | --- |
//! | `TABLE_RUNS` | `3` | rounds per scenario (the table gives medians) |
//! | `TABLE_WARMUP_MS` | `1000` | warm-up of each cell |
//! | `TABLE_MEASURE_MS` | `5000` | measuring window of each cell |
//! | `TABLE_COLD_STARTS` | `5` | cold starts per server and transport |
//! | `TABLE_IMPLS` | `ours,rmcp,typescript,python` | the columns to measure |
//! | `TABLE_CLIENT_THREADS` | `1` pinned, else `2` | worker threads of the load generator |
//! | `TABLE_PIN` | `1` | `0`: pin nothing |
//! | `TABLE_STDIO_CEILING` | `value` | the stdio ceiling: `value` (`echo_stdio_value`, each line parsed into a `serde_json::Value`) or `borrowed` (`echo_stdio`, into a borrowed struct) |
//! | `TABLE_OUT` | `target/bench-table` | where `table.md` and `ratios.png` go (relative to the workspace root) |

use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::runtime::Runtime;

use crate::bins::BinLocator;
use crate::client::{self, HttpCell, Workload};
use crate::command::{self, SERVER_CORE, ServerCommand};
use crate::peers::{self, Peer, PeerKind};
use crate::plot;
use crate::proc_stats;
use crate::stats::{CellStats, Window};
use crate::stdio_client::{self, StdioCell};

/// Settings of a table run, from `TABLE_*` environment variables.
#[derive(Debug, Clone)]
pub struct TableConfig {
    /// Rounds per scenario.
    pub runs: usize,
    /// Warm-up of each cell.
    pub warmup: Duration,
    /// Measuring window of each cell.
    pub measure: Duration,
    /// Cold starts per server and transport.
    pub cold_starts: usize,
    /// The columns to measure.
    pub columns: Vec<Column>,
    /// Worker threads of the load generator.
    pub client_threads: usize,
    /// Where the Markdown table and the plot go.
    pub out: PathBuf,
    /// Timeout of one request, and of a server's start.
    pub timeout: Duration,
    /// The stdio ceiling's bin: `echo_stdio_value` (the default) or `echo_stdio`.
    pub stdio_ceiling: &'static str,
}

impl TableConfig {
    /// Reads the configuration from the environment.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    /// Reads the configuration through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let number = |key: &str, default: u64| -> anyhow::Result<u64> {
            lookup(key).map_or(Ok(default), |v| {
                v.trim()
                    .parse()
                    .with_context(|| format!("{key}={v:?} is not a non-negative integer"))
            })
        };
        let columns = match lookup("TABLE_IMPLS") {
            None => Column::ALL.to_vec(),
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|name| {
                    Column::ALL
                        .into_iter()
                        .find(|c| c.key() == name)
                        .with_context(|| format!("TABLE_IMPLS: unknown implementation {name:?}"))
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
        };
        let pinned = command::can_pin();
        let config = Self {
            runs: usize::try_from(number("TABLE_RUNS", 3)?)?.max(1),
            warmup: Duration::from_millis(number("TABLE_WARMUP_MS", 1_000)?),
            measure: Duration::from_millis(number("TABLE_MEASURE_MS", 5_000)?),
            cold_starts: usize::try_from(number("TABLE_COLD_STARTS", 5)?)?,
            columns,
            client_threads: usize::try_from(number(
                "TABLE_CLIENT_THREADS",
                if pinned { 1 } else { 2 },
            )?)?
            .max(1),
            // Relative to the workspace root (cargo runs benches in the package's folder).
            out: workspace_root().join(
                lookup("TABLE_OUT")
                    .map_or_else(|| PathBuf::from("target/bench-table"), PathBuf::from),
            ),
            timeout: Duration::from_secs(30),
            stdio_ceiling: match lookup("TABLE_STDIO_CEILING").as_deref().map(str::trim) {
                None | Some("value") => "echo_stdio_value",
                Some("borrowed") => "echo_stdio",
                Some(other) => {
                    anyhow::bail!("TABLE_STDIO_CEILING={other:?}: expected `value` or `borrowed`")
                }
            },
        };
        anyhow::ensure!(!config.measure.is_zero(), "TABLE_MEASURE_MS must be > 0");
        Ok(config)
    }
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// An implementation under comparison: a column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// This workspace's SDK.
    Ours,
    /// rmcp 3.1.4.
    Rmcp,
    /// The official TypeScript SDK 1.x (2025-11-25 sessions).
    TypeScript,
    /// The official Python SDK 1.x (2025-11-25 sessions).
    Python,
}

impl Column {
    /// Every column, in table order.
    pub const ALL: [Self; 4] = [Self::Ours, Self::Rmcp, Self::TypeScript, Self::Python];

    /// Its name in `TABLE_IMPLS`.
    pub fn key(self) -> &'static str {
        match self {
            Self::Ours => "ours",
            Self::Rmcp => "rmcp",
            Self::TypeScript => "typescript",
            Self::Python => "python",
        }
    }

    /// Its heading in the table.
    pub fn heading(self) -> String {
        match self {
            Self::Ours => "ours".into(),
            Self::Rmcp => "rmcp 3.1.4".into(),
            Self::TypeScript => format!("TypeScript SDK {} ¹", peers::TS_SDK_VERSION),
            Self::Python => format!("Python SDK {} ¹", peers::PYTHON_SDK_VERSION),
        }
    }

    /// Whether it is driven in 2025-11-25 session mode.
    pub fn session(self) -> bool {
        matches!(self, Self::TypeScript | Self::Python)
    }
}

/// A measured scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// HTTP, 64 connections.
    Http64,
    /// stdio, 64 requests in flight.
    Stdio64,
    /// stdio, one request at a time.
    Stdio1,
}

impl Scenario {
    /// Every scenario, in run order.
    pub const ALL: [Self; 3] = [Self::Http64, Self::Stdio64, Self::Stdio1];

    fn depth(self) -> usize {
        match self {
            Self::Http64 | Self::Stdio64 => 64,
            Self::Stdio1 => 1,
        }
    }

    fn transport(self) -> Transport {
        match self {
            Self::Http64 => Transport::Http,
            Self::Stdio64 | Self::Stdio1 => Transport::Stdio,
        }
    }
}

impl std::fmt::Display for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Http64 => f.write_str("http c=64"),
            Self::Stdio64 => f.write_str("stdio inflight=64"),
            Self::Stdio1 => f.write_str("stdio inflight=1"),
        }
    }
}

/// A transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Streamable HTTP on loopback.
    Http,
    /// Newline-delimited JSON on a child's stdin/stdout.
    Stdio,
}

/// What one cell measured.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Requests per second in the window.
    pub rps: f64,
    /// Median latency.
    pub p50: Duration,
    /// 99th-percentile latency.
    pub p99: Duration,
    /// Server CPU time per call.
    pub cpu_per_call: Option<Duration>,
    /// Server peak RSS, KiB.
    pub peak_rss_kib: Option<u64>,
}

impl Sample {
    fn from_stats(stats: &CellStats) -> Result<Self, String> {
        if !stats.healthy() {
            return Err(stats.first_error.clone().unwrap_or_else(|| {
                format!(
                    "{} requests measured, {} validated",
                    stats.requests, stats.validated
                )
            }));
        }
        Ok(Self {
            rps: stats.rps(),
            p50: stats.p50,
            p99: stats.p99,
            cpu_per_call: stats.cpu_per_call(),
            peak_rss_kib: stats.server_peak_rss_kib,
        })
    }
}

/// A cell of an implementation and the ceiling cell run just before it.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The ceiling's cell.
    pub ceiling: Result<Sample, String>,
    /// The implementation's cell.
    pub subject: Result<Sample, String>,
}

/// Cold starts of an implementation and of the ceiling, run just before.
#[derive(Debug, Clone)]
pub struct ColdStarts {
    /// The ceiling's starts.
    pub ceiling: Result<Vec<Duration>, String>,
    /// The implementation's starts.
    pub subject: Result<Vec<Duration>, String>,
}

/// Everything a table run measured.
#[derive(Debug, Clone)]
pub struct TableReport {
    /// The configuration.
    pub config: TableConfig,
    /// Whether servers and generator were pinned to a core each.
    pub pinned: bool,
    /// Cores of the machine.
    pub cores: usize,
    /// 1-minute load average before and after.
    pub load_average: (Option<f64>, Option<f64>),
    /// Columns that could not run, with why.
    pub skipped: Vec<(Column, String)>,
    /// The paired cells per scenario and column, one per round.
    pub pairs: HashMap<(Scenario, Column), Vec<Pair>>,
    /// Cold starts per transport and column.
    pub cold: HashMap<(Transport, Column), ColdStarts>,
}

/// The servers of one column (or of the ceiling).
#[derive(Debug, Clone)]
struct Servers {
    /// HTTP command without the port.
    http: ServerCommand,
    stdio: ServerCommand,
    session: bool,
}

fn bin_servers(bins: &mut BinLocator, http: &str, stdio: &str) -> Result<Servers, String> {
    let locate =
        |bins: &mut BinLocator, name: &str| bins.locate(name).map_err(|e| format!("{e:#}"));
    Ok(Servers {
        http: ServerCommand::new(locate(bins, http)?),
        stdio: ServerCommand::new(locate(bins, stdio)?),
        session: false,
    })
}

fn column_servers(column: Column, bins: &mut BinLocator) -> Result<Servers, String> {
    let peer = |kind| {
        Peer::locate(kind).map(|peer| Servers {
            http: peer.http,
            stdio: peer.stdio,
            session: true,
        })
    };
    match column {
        Column::Ours => bin_servers(bins, "ours_http_server", "ours_stdio_server"),
        Column::Rmcp => bin_servers(bins, "rmcp_http_server", "rmcp_stdio_server"),
        Column::TypeScript => peer(PeerKind::TypeScript),
        Column::Python => peer(PeerKind::Python),
    }
}

/// Runs the whole table.
pub fn run(config: &TableConfig, bins: &mut BinLocator) -> anyhow::Result<TableReport> {
    // Counted before pinning, which leaves this process one core.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let pinned = command::pin_self()?;
    eprintln!(
        "{}",
        if pinned {
            "pinned: servers on core 0 (taskset -c 0), the load generator on core 1"
        } else {
            "not pinned (no taskset, fewer than two cores, or TABLE_PIN=0)"
        }
    );
    let load_before = crate::runner::load_average();
    let ceiling = bin_servers(bins, "bare_http_server", config.stdio_ceiling)
        .map_err(|why| anyhow::anyhow!("the ceilings cannot run: {why}"))?;
    let mut skipped = Vec::new();
    let mut columns = Vec::new();
    for &column in &config.columns {
        match column_servers(column, bins) {
            Ok(servers) => columns.push((column, servers)),
            Err(why) => {
                eprintln!("[{}] SKIPPED: {why}", column.key());
                skipped.push((column, why));
            }
        }
    }
    let load = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.client_threads)
        .thread_name("bench-table-load")
        .enable_all()
        .build()
        .context("cannot build the load runtime")?;

    let mut pairs: HashMap<(Scenario, Column), Vec<Pair>> = HashMap::new();
    for scenario in Scenario::ALL {
        for round in 1..=config.runs {
            for (column, servers) in &columns {
                let ceiling = measure(&load, config, scenario, &ceiling);
                progress(scenario, round, "ceiling", &ceiling);
                let subject = measure(&load, config, scenario, servers);
                progress(scenario, round, column.key(), &subject);
                pairs
                    .entry((scenario, *column))
                    .or_default()
                    .push(Pair { ceiling, subject });
            }
        }
    }
    drop(load);

    let mut cold = HashMap::new();
    if config.cold_starts > 0 {
        let probe = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot build the cold-start runtime")?;
        for transport in [Transport::Http, Transport::Stdio] {
            for (column, servers) in &columns {
                let starts = ColdStarts {
                    ceiling: cold_starts(&probe, config, transport, &ceiling),
                    subject: cold_starts(&probe, config, transport, servers),
                };
                eprintln!(
                    "[cold start {transport:?}] ceiling {}, {} {}",
                    describe_starts(&starts.ceiling),
                    column.key(),
                    describe_starts(&starts.subject)
                );
                cold.insert((transport, *column), starts);
            }
        }
    }

    Ok(TableReport {
        config: config.clone(),
        pinned,
        cores,
        load_average: (load_before, crate::runner::load_average()),
        skipped,
        pairs,
        cold,
    })
}

fn describe_starts(starts: &Result<Vec<Duration>, String>) -> String {
    match starts {
        Ok(list) => format!("median {:.2?}", median_duration(list)),
        Err(why) => format!("BROKEN ({why})"),
    }
}

fn progress(scenario: Scenario, round: usize, name: &str, sample: &Result<Sample, String>) {
    match sample {
        Ok(s) => eprintln!(
            "[{scenario} #{round}] {name:<11} {:>9.0} req/s  p50 {:>9.1?}  p99 {:>9.1?}  cpu/call {:>9}  rss {:>8}",
            s.rps,
            s.p50,
            s.p99,
            s.cpu_per_call.map_or("-".into(), |d| format!("{d:.1?}")),
            s.peak_rss_kib.map_or("-".into(), |k| format!("{k} KiB")),
        ),
        Err(why) => eprintln!("[{scenario} #{round}] {name:<11} BROKEN: {why}"),
    }
}

/// One cell: a fresh server for `scenario`, loaded for the warm-up and the window.
fn measure(
    load: &Runtime,
    config: &TableConfig,
    scenario: Scenario,
    servers: &Servers,
) -> Result<Sample, String> {
    let stats = match scenario.transport() {
        Transport::Http => http_cell(load, config, servers),
        Transport::Stdio => load.block_on(stdio_client::run(StdioCell {
            command: servers.stdio.clone().pinned(SERVER_CORE),
            session: servers.session,
            in_flight: scenario.depth(),
            warmup: config.warmup,
            measure: config.measure,
            max_requests: u64::MAX,
            timeout: config.timeout,
            sample_every: 64,
        })),
    };
    Sample::from_stats(&stats.map_err(|e| format!("{e:#}"))?)
}

fn http_cell(load: &Runtime, config: &TableConfig, servers: &Servers) -> anyhow::Result<CellStats> {
    let port = command::free_port()?;
    let server = servers
        .http
        .clone()
        .arg(port.to_string())
        .pinned(SERVER_CORE);
    let mut child = {
        let _entered = load.enter();
        server
            .tokio()
            .stdout(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", server.display()))?
    };
    let pid = child.id();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let session = servers.session;
    let result = load.block_on(async {
        let deadline = Instant::now() + config.timeout;
        while let Err(e) = client::first_reply(addr, session).await {
            anyhow::ensure!(
                Instant::now() < deadline,
                "{} did not answer within {:?}: {e:#}",
                server.display(),
                config.timeout
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let window = Window::after(config.warmup, config.measure);
        let cell = HttpCell {
            addr,
            workload: if session {
                Workload::Session
            } else {
                Workload::Echo
            },
            concurrency: Scenario::Http64.depth(),
            warmup: config.warmup,
            measure: config.measure,
            max_requests: u64::MAX,
            timeout: config.timeout,
            sample_every: 64,
        };
        let (stats, cpu) = tokio::join!(client::run(cell), proc_stats::cpu_in_window(pid, window));
        let mut stats = stats?;
        stats.server_cpu = cpu;
        stats.server_peak_rss_kib = pid.and_then(proc_stats::peak_rss_kib);
        anyhow::Ok(stats)
    });
    load.block_on(async {
        let _ = child.kill().await;
    });
    result
}

/// `config.cold_starts` cold starts of the server of `transport`; the first failure ends them.
fn cold_starts(
    probe: &Runtime,
    config: &TableConfig,
    transport: Transport,
    servers: &Servers,
) -> Result<Vec<Duration>, String> {
    (0..config.cold_starts)
        .map(|_| match transport {
            Transport::Http => cold_start_http(probe, config, servers),
            Transport::Stdio => probe.block_on(stdio_client::cold_start(
                &servers.stdio,
                servers.session,
                config.timeout,
            )),
        })
        .collect::<anyhow::Result<Vec<_>>>()
        .map_err(|e| format!("{e:#}"))
}

fn cold_start_http(
    probe: &Runtime,
    config: &TableConfig,
    servers: &Servers,
) -> anyhow::Result<Duration> {
    let port = command::free_port()?;
    let server = servers.http.clone().arg(port.to_string());
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let started = Instant::now();
    let mut child = server
        .std()
        .spawn()
        .with_context(|| format!("cannot start {}", server.display()))?;
    let result = loop {
        match probe.block_on(client::first_reply(addr, servers.session)) {
            Ok(()) => break Ok(started.elapsed()),
            Err(e) if started.elapsed() > config.timeout => {
                break Err(e.context(format!("{} never answered", server.display())));
            }
            Err(_) => std::thread::sleep(Duration::from_micros(200)),
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    result
}

// ----- Summaries -------------------------------------------------------------------------

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid]
    } else {
        f64::midpoint(values[mid - 1], values[mid])
    })
}

fn median_duration(values: &[Duration]) -> Duration {
    median(values.iter().map(Duration::as_secs_f64).collect())
        .map_or(Duration::ZERO, Duration::from_secs_f64)
}

/// A measured quantity of a sample.
#[derive(Debug, Clone, Copy)]
enum Quantity {
    Rps,
    P50,
    P99,
    Cpu,
    Rss,
}

impl Quantity {
    fn of(self, sample: &Sample) -> Option<f64> {
        match self {
            Self::Rps => Some(sample.rps),
            Self::P50 => Some(sample.p50.as_secs_f64()),
            Self::P99 => Some(sample.p99.as_secs_f64()),
            Self::Cpu => sample.cpu_per_call.map(|d| d.as_secs_f64()),
            Self::Rss => sample.peak_rss_kib.map(|k| k as f64),
        }
    }

    fn format(self, value: f64) -> String {
        match self {
            Self::Rps => rate(value),
            Self::P50 | Self::P99 => latency(value),
            Self::Cpu => micros(value),
            Self::Rss => format!("{:.1} MB", value / 1024.0),
        }
    }
}

/// A cell of the summary: the median value and the median ratio to the paired ceilings.
#[derive(Debug, Clone)]
enum Summary {
    Value { value: f64, ratio: Option<f64> },
    Missing(String),
}

impl TableReport {
    fn summary(&self, scenario: Scenario, column: Column, quantity: Quantity) -> Summary {
        if let Some((_, why)) = self.skipped.iter().find(|(c, _)| *c == column) {
            return Summary::Missing(format!("skipped: {why}"));
        }
        let Some(pairs) = self.pairs.get(&(scenario, column)) else {
            return Summary::Missing("not run".into());
        };
        if let Some(Err(why)) = pairs.iter().map(|p| &p.subject).find(|s| s.is_err()) {
            return Summary::Missing(format!("BROKEN: {why}"));
        }
        let values: Vec<f64> = pairs
            .iter()
            .filter_map(|p| p.subject.as_ref().ok())
            .filter_map(|s| quantity.of(s))
            .collect();
        let ratios: Vec<f64> = pairs
            .iter()
            .filter_map(|p| {
                let subject = quantity.of(p.subject.as_ref().ok()?)?;
                let ceiling = quantity.of(p.ceiling.as_ref().ok()?)?;
                (ceiling > 0.0).then(|| subject / ceiling)
            })
            .collect();
        match median(values) {
            Some(value) => Summary::Value {
                value,
                ratio: median(ratios),
            },
            None => Summary::Missing("not measured".into()),
        }
    }

    fn ceiling(&self, scenario: Scenario, quantity: Quantity) -> Option<f64> {
        let values = self
            .pairs
            .iter()
            .filter(|((s, _), _)| *s == scenario)
            .flat_map(|(_, pairs)| pairs)
            .filter_map(|p| p.ceiling.as_ref().ok())
            .filter_map(|s| quantity.of(s))
            .collect();
        median(values)
    }

    fn cold_summary(&self, transport: Transport, column: Column) -> Summary {
        if let Some((_, why)) = self.skipped.iter().find(|(c, _)| *c == column) {
            return Summary::Missing(format!("skipped: {why}"));
        }
        let Some(starts) = self.cold.get(&(transport, column)) else {
            return Summary::Missing("not run".into());
        };
        match &starts.subject {
            Err(why) => Summary::Missing(format!("BROKEN: {why}")),
            Ok(list) if list.is_empty() => Summary::Missing("not run".into()),
            Ok(list) => {
                let value = median_duration(list).as_secs_f64();
                let ratio = starts.ceiling.as_ref().ok().and_then(|c| {
                    let c = median_duration(c).as_secs_f64();
                    (c > 0.0).then(|| value / c)
                });
                Summary::Value { value, ratio }
            }
        }
    }

    fn cold_ceiling(&self, transport: Transport) -> Option<f64> {
        let all: Vec<Duration> = self
            .cold
            .iter()
            .filter(|((t, _), _)| *t == transport)
            .filter_map(|(_, s)| s.ceiling.as_ref().ok())
            .flatten()
            .copied()
            .collect();
        (!all.is_empty()).then(|| median_duration(&all).as_secs_f64())
    }

    /// The columns shown: the configured ones.
    fn columns(&self) -> &[Column] {
        &self.config.columns
    }
}

fn rate(rps: f64) -> String {
    if rps >= 100_000.0 {
        format!("{:.0}k", rps / 1000.0)
    } else {
        format!("{:.1}k", rps / 1000.0)
    }
}

fn latency(secs: f64) -> String {
    let ms = secs * 1000.0;
    if ms < 1.0 {
        format!("{ms:.3} ms")
    } else if ms < 100.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

fn micros(secs: f64) -> String {
    let us = secs * 1e6;
    if us < 100.0 {
        format!("{us:.1} µs")
    } else {
        format!("{us:.0} µs")
    }
}

fn ratio(r: f64) -> String {
    if r < 0.01 {
        format!("{r:.4}x")
    } else if r < 1.0 {
        format!("{r:.2}x")
    } else if r < 100.0 {
        format!("{r:.1}x")
    } else {
        format!("{r:.0}x")
    }
}

fn cell_text(summary: &Summary, quantity: Quantity, with_ratio: bool) -> String {
    match summary {
        Summary::Value { value, ratio: r } => match r.filter(|_| with_ratio) {
            Some(r) => format!("{} ({})", quantity.format(*value), ratio(r)),
            None => quantity.format(*value),
        },
        Summary::Missing(why) if why.starts_with("skipped") => "skipped ²".into(),
        Summary::Missing(why) if why.starts_with("BROKEN") => "BROKEN ²".into(),
        Summary::Missing(_) => "–".into(),
    }
}

/// The text of a row's cell for a column.
type CellText = Box<dyn Fn(&TableReport, Column) -> String>;

/// One row: a metric of one scenario.
struct Row {
    label: &'static str,
    cells: CellText,
    ceiling: Box<dyn Fn(&TableReport) -> String>,
}

fn simple_row(
    label: &'static str,
    scenario: Scenario,
    quantity: Quantity,
    with_ratio: bool,
) -> Row {
    Row {
        label,
        cells: Box::new(move |report, column| {
            cell_text(
                &report.summary(scenario, column, quantity),
                quantity,
                with_ratio,
            )
        }),
        ceiling: Box::new(move |report| {
            report
                .ceiling(scenario, quantity)
                .map_or("–".into(), |v| quantity.format(v))
        }),
    }
}

fn pair_row(
    label: &'static str,
    first: (Scenario, Quantity),
    second: (Scenario, Quantity),
    separator: &'static str,
) -> Row {
    Row {
        label,
        cells: Box::new(move |report, column| {
            let a = cell_text(&report.summary(first.0, column, first.1), first.1, true);
            let b = cell_text(&report.summary(second.0, column, second.1), second.1, true);
            format!("{a}{separator}{b}")
        }),
        ceiling: Box::new(move |report| {
            let a = report
                .ceiling(first.0, first.1)
                .map_or("–".into(), |v| first.1.format(v));
            let b = report
                .ceiling(second.0, second.1)
                .map_or("–".into(), |v| second.1.format(v));
            format!("{a}{separator}{b}")
        }),
    }
}

fn cold_row(label: &'static str, transport: Transport) -> Row {
    Row {
        label,
        cells: Box::new(move |report, column| {
            let summary = report.cold_summary(transport, column);
            match summary {
                Summary::Value { value, ratio: r } => {
                    let text = latency(value);
                    match r {
                        Some(r) => format!("{text} ({})", ratio(r)),
                        None => text,
                    }
                }
                other => cell_text(&other, Quantity::P50, false),
            }
        }),
        ceiling: Box::new(move |report| report.cold_ceiling(transport).map_or("–".into(), latency)),
    }
}

fn rows() -> Vec<Row> {
    use Quantity::{Cpu, P50, P99, Rps, Rss};
    use Scenario::{Http64, Stdio1, Stdio64};
    vec![
        simple_row(
            "HTTP req/s, 64 connections (ratio to ceiling)",
            Http64,
            Rps,
            true,
        ),
        pair_row(
            "HTTP latency at 64 connections: p50; p99",
            (Http64, P50),
            (Http64, P99),
            "; ",
        ),
        simple_row("server CPU per HTTP call (ratio)", Http64, Cpu, true),
        simple_row("stdio req/s, 64 in flight (ratio)", Stdio64, Rps, true),
        pair_row(
            "stdio latency at 64 in flight: p50; p99",
            (Stdio64, P50),
            (Stdio64, P99),
            "; ",
        ),
        simple_row(
            "stdio CPU per call at 64 in flight (ratio)",
            Stdio64,
            Cpu,
            true,
        ),
        pair_row(
            "stdio, 1 in flight: req/s; p50 latency",
            (Stdio1, Rps),
            (Stdio1, P50),
            "; ",
        ),
        simple_row("stdio, 1 in flight: p99 latency", Stdio1, P99, true),
        simple_row(
            "stdio CPU per call at 1 in flight (ratio)",
            Stdio1,
            Cpu,
            true,
        ),
        cold_row(
            "cold start to first response, HTTP (ratio)",
            Transport::Http,
        ),
        cold_row(
            "cold start to first response, stdio (ratio)",
            Transport::Stdio,
        ),
        pair_row(
            "peak RSS under load, HTTP / stdio (64)",
            (Http64, Rss),
            (Stdio64, Rss),
            " / ",
        ),
    ]
}

/// Renders the table in Markdown, with its setup and footnotes.
pub fn render(report: &TableReport) -> String {
    let mut out = String::new();
    let config = &report.config;
    let _ = writeln!(
        out,
        "One `echo` tool, `tools/call` on loopback; medians of {} run(s) of {:?} (after {:?} of \
         warm-up) with a fresh server per run; every ratio is to a ceiling run made just before \
         it (HTTP: bare hyper parsing the body and echoing the id; stdio: a blocking \
         read-parse-write loop, {}). {} cores; {}.",
        config.runs,
        config.measure,
        config.warmup,
        if config.stdio_ceiling == "echo_stdio" {
            "parsing into a borrowed struct"
        } else {
            "parsing each line into a `serde_json::Value`"
        },
        report.cores,
        if report.pinned {
            "the server pinned to core 0 (`taskset -c 0`), the load generator to core 1"
        } else {
            "nothing pinned: servers and load generator share the cores"
        }
    );
    if let (Some(before), Some(after)) = report.load_average {
        let _ = writeln!(
            out,
            "Load average {before:.2} before, {after:.2} after the run (other work on the machine \
             makes the numbers noisier)."
        );
    }
    let _ = writeln!(out);
    let columns = report.columns();
    let _ = write!(out, "| |");
    for column in columns {
        let _ = write!(out, " {} |", column.heading());
    }
    let _ = writeln!(out, " ceiling |");
    let _ = writeln!(out, "|---|{}---|", "---|".repeat(columns.len()));
    for row in rows() {
        let _ = write!(out, "| {} |", row.label);
        for column in columns {
            let _ = write!(out, " {} |", (row.cells)(report, *column));
        }
        let _ = writeln!(out, " {} |", (row.ceiling)(report));
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "¹ The TypeScript and Python SDKs 1.x speak protocol 2025-11-25 only: they are driven \
         in session mode (`initialize` once per HTTP connection or stdio child, then the same \
         `echo` call under the session), ours and rmcp with the 2026-07-28 stateless call. \
         Cold start is to the first reply: `initialize` for them, the `echo` call for the rest."
    );
    let mut notes = Vec::new();
    for (column, why) in &report.skipped {
        notes.push(format!("{}: skipped, {why}", column.key()));
    }
    for column in columns {
        for scenario in Scenario::ALL {
            if let Summary::Missing(why) = report.summary(scenario, *column, Quantity::Rps)
                && why.starts_with("BROKEN")
            {
                notes.push(format!("{} at {scenario}: {why}", column.key()));
            }
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\n² {}", notes.join("; "));
    }
    out
}

/// The ratio groups of the plot, one per metric, one ratio per column.
pub fn plot_groups(report: &TableReport) -> Vec<plot::Group> {
    use Quantity::{Cpu, P50, Rps, Rss};
    use Scenario::{Http64, Stdio1, Stdio64};
    let measured: [(&str, Scenario, Quantity, bool); 9] = [
        ("HTTP req/s", Http64, Rps, true),
        ("HTTP CPU/call", Http64, Cpu, false),
        ("stdio×64 req/s", Stdio64, Rps, true),
        ("stdio×64 CPU", Stdio64, Cpu, false),
        ("stdio×1 req/s", Stdio1, Rps, true),
        ("stdio×1 p50", Stdio1, P50, false),
        ("stdio×1 CPU", Stdio1, Cpu, false),
        ("RSS HTTP", Http64, Rss, false),
        ("RSS stdio", Stdio64, Rss, false),
    ];
    let ratio_of = |summary: Summary| match summary {
        Summary::Value { ratio, .. } => ratio,
        Summary::Missing(_) => None,
    };
    let mut groups: Vec<plot::Group> = measured
        .iter()
        .map(|&(metric, scenario, quantity, higher)| plot::Group {
            metric: metric.into(),
            higher_is_better: higher,
            ratios: report
                .columns()
                .iter()
                .map(|c| ratio_of(report.summary(scenario, *c, quantity)))
                .collect(),
        })
        .collect();
    for (metric, transport) in [
        ("cold HTTP", Transport::Http),
        ("cold stdio", Transport::Stdio),
    ] {
        groups.push(plot::Group {
            metric: metric.into(),
            higher_is_better: false,
            ratios: report
                .columns()
                .iter()
                .map(|c| ratio_of(report.cold_summary(transport, *c)))
                .collect(),
        });
    }
    groups
}

/// Every cell of the run, one line per (scenario, column, round) pair and per cold start
/// series, for checking the medians: values in req/s, µs and KiB; `error` when it failed.
pub fn runs_csv(report: &TableReport) -> String {
    let mut out = String::from(
        "scenario,implementation,round,role,req_per_s,p50_us,p99_us,cpu_per_call_us,peak_rss_kib,error\n",
    );
    let us = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1e6);
    let mut line = |scenario: &str,
                    column: Column,
                    round: usize,
                    role: &str,
                    sample: &Result<Sample, String>| {
        let _ = match sample {
            Ok(s) => writeln!(
                out,
                "{scenario},{},{round},{role},{:.0},{},{},{},{},",
                column.key(),
                s.rps,
                us(s.p50),
                us(s.p99),
                s.cpu_per_call.map_or(String::new(), us),
                s.peak_rss_kib.map_or(String::new(), |k| k.to_string()),
            ),
            Err(why) => writeln!(
                out,
                "{scenario},{},{round},{role},,,,,,\"{}\"",
                column.key(),
                why.replace('"', "'")
            ),
        };
    };
    for scenario in Scenario::ALL {
        for column in &report.config.columns {
            for (round, pair) in report
                .pairs
                .get(&(scenario, *column))
                .into_iter()
                .flatten()
                .enumerate()
            {
                let name = scenario.to_string();
                line(&name, *column, round + 1, "ceiling", &pair.ceiling);
                line(&name, *column, round + 1, "subject", &pair.subject);
            }
        }
    }
    for transport in [Transport::Http, Transport::Stdio] {
        for column in &report.config.columns {
            let Some(starts) = report.cold.get(&(transport, *column)) else {
                continue;
            };
            for (role, list) in [("ceiling", &starts.ceiling), ("subject", &starts.subject)] {
                let scenario = format!("cold start {transport:?}");
                match list {
                    Ok(list) => {
                        for (i, d) in list.iter().enumerate() {
                            let _ = writeln!(
                                out,
                                "{scenario},{},{},{role},,{},,,,",
                                column.key(),
                                i + 1,
                                us(*d)
                            );
                        }
                    }
                    Err(why) => {
                        let _ = writeln!(
                            out,
                            "{scenario},{},,{role},,,,,,\"{}\"",
                            column.key(),
                            why.replace('"', "'")
                        );
                    }
                }
            }
        }
    }
    out
}

/// Writes `table.md`, `runs.csv` and `ratios.png` into the configured output directory;
/// returns the paths of the table and the plot.
pub fn write_outputs(report: &TableReport, table: &str) -> anyhow::Result<(PathBuf, PathBuf)> {
    let dir = &report.config.out;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let markdown = dir.join("table.md");
    std::fs::write(&markdown, table)
        .with_context(|| format!("cannot write {}", markdown.display()))?;
    let csv = dir.join("runs.csv");
    std::fs::write(&csv, runs_csv(report))
        .with_context(|| format!("cannot write {}", csv.display()))?;
    let png = dir.join("ratios.png");
    let names: Vec<String> = report
        .columns()
        .iter()
        .map(|c| c.heading().trim_end_matches(" ¹").to_owned())
        .collect();
    plot::draw(
        &png,
        "tools/call echo: ratio to the ceiling (median of runs)",
        &names,
        &plot_groups(report),
    )?;
    Ok((markdown, png))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(rps: f64, cpu_us: u64) -> Sample {
        Sample {
            rps,
            p50: Duration::from_micros(100),
            p99: Duration::from_micros(300),
            cpu_per_call: Some(Duration::from_micros(cpu_us)),
            peak_rss_kib: Some(4096),
        }
    }

    fn report() -> anyhow::Result<TableReport> {
        let mut config = TableConfig::from_lookup(|_| None)?;
        config.columns = vec![Column::Ours, Column::Python];
        let mut pairs = HashMap::new();
        pairs.insert(
            (Scenario::Http64, Column::Ours),
            vec![
                Pair {
                    ceiling: Ok(sample(40_000.0, 20)),
                    subject: Ok(sample(20_000.0, 40)),
                },
                Pair {
                    ceiling: Ok(sample(50_000.0, 25)),
                    subject: Ok(sample(30_000.0, 45)),
                },
                Pair {
                    ceiling: Ok(sample(10_000.0, 20)),
                    subject: Ok(sample(9_000.0, 60)),
                },
            ],
        );
        Ok(TableReport {
            config,
            pinned: true,
            cores: 2,
            load_average: (None, None),
            skipped: vec![(Column::Python, "python3 is not on PATH".into())],
            pairs,
            cold: HashMap::new(),
        })
    }

    #[test]
    fn ratios_are_medians_of_paired_runs() -> anyhow::Result<()> {
        let report = report()?;
        let Summary::Value { value, ratio } =
            report.summary(Scenario::Http64, Column::Ours, Quantity::Rps)
        else {
            anyhow::bail!("ours was measured");
        };
        assert!((value - 20_000.0).abs() < 1e-9, "median of the values");
        // Paired ratios 0.5, 0.6, 0.9: the median is 0.6, not 20k / 40k.
        assert!(ratio.is_some_and(|r| (r - 0.6).abs() < 1e-9), "{ratio:?}");
        let table = render(&report);
        assert!(table.contains("| HTTP req/s, 64 connections (ratio to ceiling) | 20.0k (0.60x) | skipped ² | 40.0k |"), "{table}");
        assert!(
            table.contains("python: skipped, python3 is not on PATH"),
            "{table}"
        );
        Ok(())
    }

    #[test]
    fn a_broken_cell_is_never_a_number() -> anyhow::Result<()> {
        let mut report = report()?;
        if let Some(pairs) = report.pairs.get_mut(&(Scenario::Http64, Column::Ours)) {
            pairs[1].subject = Err("HTTP 500".into());
        }
        let table = render(&report);
        assert!(table.contains("| BROKEN ² |"), "{table}");
        assert!(table.contains("HTTP 500"), "{table}");
        Ok(())
    }

    #[test]
    fn reads_the_configuration() -> anyhow::Result<()> {
        let config = TableConfig::from_lookup(|key| match key {
            "TABLE_RUNS" => Some("1".into()),
            "TABLE_IMPLS" => Some("rmcp, ours".into()),
            _ => None,
        })?;
        assert_eq!(config.runs, 1);
        assert_eq!(config.columns, [Column::Rmcp, Column::Ours]);
        assert!(TableConfig::from_lookup(|k| (k == "TABLE_IMPLS").then(|| "go".into())).is_err());
        Ok(())
    }
}
