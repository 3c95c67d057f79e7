//! Orchestration: runtimes, servers, pre-flight checks and the cells of a run.
//!
//! Servers run on one multi-thread tokio runtime (`LOAD_SERVER_THREADS`
//! workers), load generators on another (`LOAD_CLIENT_THREADS` workers); the
//! two share the machine's cores, so on a 2-core machine the load generator
//! competes with the server it measures. Ratios to the ceiling stay
//! meaningful because every target pays the same client cost; absolute
//! numbers do not transfer to bigger machines.
//!
//! Every HTTP server is started once, on its own `127.0.0.1` port, and lives
//! for the whole run; a stdio server is a fresh child process per cell. Each
//! target is checked once per transport before being measured (two requests,
//! full validation); a target that fails is reported as broken and skipped.
//! Cells run scenario by scenario, all targets of one scenario back to back,
//! so slow drift of the machine affects them alike. The three-round flow
//! scenario at a concurrency runs right after the single-call HTTP scenario at
//! the same concurrency, so the two can be compared; so does the 2025-11-25 session scenario
//! (each connection opens a session, then calls on it), compared with the single-call
//! 2026-wire cells of the same concurrency; and so does the task scenario (each worker creates a
//! task and polls it until it completes), compared with the same target's single-call cell.
//! Only targets that serve tasks ([`Target::has_tasks`]) have a task cell, each checked
//! first with one whole task. A target that cannot run on
//! this machine (the single-use flow without `redis-server`) is skipped, saying
//! why; a flow-only target (a variant of another) runs no single-call cells, and a
//! session-only target (a peer's stateful configuration) only the session cells.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

use crate::bins::BinLocator;
use crate::client::{self, HttpCell, Workload};
use crate::config::LoadConfig;
use crate::stats::CellStats;
use crate::stdio_client::{self, StdioCell};
use crate::targets::{Target, TargetKind};

/// Transport of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Streamable HTTP, stateless, one request in flight per connection.
    Http,
    /// Newline-delimited JSON over a child's stdin/stdout, pipelined.
    Stdio,
}

/// One load scenario: a transport, what is sent, and a concurrency (HTTP
/// connections) or pipelining depth (stdio).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scenario {
    /// The transport.
    pub transport: Transport,
    /// What is sent ([`Workload::Flow`], [`Workload::Session`] and [`Workload::Task`] only
    /// over HTTP).
    pub workload: Workload,
    /// Connections (HTTP) or requests in flight (stdio).
    pub depth: usize,
}

impl std::fmt::Display for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.transport, self.workload) {
            (Transport::Http, Workload::Flow) => write!(f, "flow3 http c={}", self.depth),
            (Transport::Http, Workload::Echo) => write!(f, "http c={}", self.depth),
            (Transport::Http, Workload::Session) => write!(f, "session http c={}", self.depth),
            (Transport::Http, Workload::Task) => write!(f, "task http c={}", self.depth),
            (Transport::Stdio, _) => write!(f, "stdio inflight={}", self.depth),
        }
    }
}

/// What a cell produced.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The cell ran; [`CellStats::healthy`] tells whether the target answered correctly.
    Measured(CellStats),
    /// The target failed its pre-flight check or could not be started.
    Broken(String),
}

/// One (scenario, target) result.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The scenario.
    pub scenario: Scenario,
    /// Target name.
    pub target: &'static str,
    /// Target role.
    pub kind: TargetKind,
    /// The target it is a variant of (see [`Target::baseline`]).
    pub baseline: Option<&'static str>,
    /// The result.
    pub outcome: Outcome,
}

impl Cell {
    /// Requests per second, if the cell ran and the target answered correctly.
    pub fn healthy_rps(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured(stats) if stats.healthy() => Some(stats.rps()),
            _ => None,
        }
    }
}

/// Everything a run measured.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The configuration used.
    pub config: LoadConfig,
    /// Cores available to the process.
    pub cores: usize,
    /// The cells, in run order.
    pub cells: Vec<Cell>,
    /// 1-minute load average when the run started and ended (Linux only): other
    /// work on the machine skews the numbers, the concurrency-1 cells most.
    pub load_average: (Option<f64>, Option<f64>),
}

/// The 1-minute load average from `/proc/loadavg`, where there is one.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn runtime(threads: usize, name: &str) -> anyhow::Result<Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name(name)
        .enable_all()
        .build()
        .with_context(|| format!("cannot build the {name} runtime"))
}

/// Runs every scenario of `config` against `targets`.
pub fn run(
    config: &LoadConfig,
    targets: &[Box<dyn Target>],
    bins: &mut BinLocator,
) -> anyhow::Result<RunReport> {
    let load_before = load_average();
    let servers = runtime(config.server_threads, "bench-server")?;
    let load = runtime(config.client_threads, "bench-load")?;
    let targets: Vec<&dyn Target> = targets
        .iter()
        .map(AsRef::as_ref)
        .filter(|t| config.wants(t.name()))
        .filter(|t| match t.unavailable() {
            Some(why) => {
                eprintln!("[{}] SKIPPED: {why}", t.name());
                false
            }
            None => true,
        })
        .collect();
    let shutdown = CancellationToken::new();
    let mut cells = Vec::new();

    // HTTP: start every server once, check it, then measure scenario by scenario.
    let mut http: Vec<(&dyn Target, Result<SocketAddr, String>)> = Vec::new();
    let run_http = !config.http_concurrency.is_empty()
        || !config.flow_concurrency.is_empty()
        || !config.session_concurrency.is_empty()
        || !config.task_concurrency.is_empty();
    let runs_http = |t: &dyn Target| {
        let measured = if t.flow_only() {
            t.has_flow() && !config.flow_concurrency.is_empty()
        } else if t.session_only() {
            t.has_session() && !config.session_concurrency.is_empty()
        } else {
            run_http
        };
        measured && t.has_http()
    };
    for &target in targets.iter().filter(|t| runs_http(**t)) {
        let started = start_http(&servers, target, shutdown.child_token()).and_then(|addr| {
            if target.session_only() {
                load.block_on(client::preflight_session(addr, config.request_timeout))
                    .with_context(|| format!("session pre-flight to {addr} failed"))?;
            } else {
                load.block_on(client::preflight(addr, config.request_timeout))
                    .with_context(|| format!("pre-flight request to {addr} failed"))?;
            }
            Ok(addr)
        });
        let started = started.map_err(|e| format!("{e:#}"));
        if let Err(why) = &started {
            eprintln!("[http] {} is BROKEN: {why}", target.name());
        }
        http.push((target, started));
    }
    // The flow: one whole flow per target, fully validated, before any is measured.
    let mut flow_ready: HashMap<&'static str, Result<(), String>> = HashMap::new();
    if !config.flow_concurrency.is_empty() {
        for (target, started) in http.iter().filter(|(t, _)| t.has_flow()) {
            let ready = match started {
                Err(why) => Err(why.clone()),
                Ok(addr) => load
                    .block_on(client::preflight_flow(*addr, config.request_timeout))
                    .map_err(|e| format!("flow pre-flight to {addr} failed: {e:#}")),
            };
            if let Err(why) = &ready {
                eprintln!("[flow3] {} is BROKEN: {why}", target.name());
            }
            flow_ready.insert(target.name(), ready);
        }
    }
    // Sessions: one opened, and called on twice, fully validated, per target.
    let mut session_ready: HashMap<&'static str, Result<(), String>> = HashMap::new();
    if !config.session_concurrency.is_empty() {
        for (target, started) in http.iter().filter(|(t, _)| t.has_session()) {
            let ready = match started {
                Err(why) => Err(why.clone()),
                Ok(addr) => load
                    .block_on(client::preflight_session(*addr, config.request_timeout))
                    .map_err(|e| format!("session pre-flight to {addr} failed: {e:#}")),
            };
            if let Err(why) = &ready {
                eprintln!("[session] {} is BROKEN: {why}", target.name());
            }
            session_ready.insert(target.name(), ready);
        }
    }
    // Tasks: one created and polled until it completes, fully validated, per target.
    let mut task_ready: HashMap<&'static str, Result<(), String>> = HashMap::new();
    if !config.task_concurrency.is_empty() {
        for (target, started) in http.iter().filter(|(t, _)| t.has_tasks()) {
            let ready = match started {
                Err(why) => Err(why.clone()),
                Ok(addr) => load
                    .block_on(client::preflight_task(*addr, config.request_timeout))
                    .map(drop)
                    .map_err(|e| format!("task pre-flight to {addr} failed: {e:#}")),
            };
            if let Err(why) = &ready {
                eprintln!("[task] {} is BROKEN: {why}", target.name());
            }
            task_ready.insert(target.name(), ready);
        }
    }
    for scenario in http_scenarios(config) {
        for (target, started) in &http {
            let started = match scenario.workload {
                Workload::Echo if target.flow_only() || target.session_only() => continue,
                Workload::Echo => started.clone(),
                Workload::Session => match session_ready.get(target.name()) {
                    None => continue,
                    Some(Err(why)) => Err(why.clone()),
                    Some(Ok(())) => started.clone(),
                },
                Workload::Flow => match flow_ready.get(target.name()) {
                    None => continue,
                    Some(Err(why)) => Err(why.clone()),
                    Some(Ok(())) => started.clone(),
                },
                Workload::Task => match task_ready.get(target.name()) {
                    None => continue,
                    Some(Err(why)) => Err(why.clone()),
                    Some(Ok(())) => started.clone(),
                },
            };
            let outcome = match started {
                Err(why) => Outcome::Broken(why),
                Ok(addr) => {
                    let cell = HttpCell {
                        addr,
                        workload: scenario.workload,
                        concurrency: scenario.depth,
                        warmup: config.warmup,
                        measure: config.measure,
                        max_requests: config.max_requests,
                        timeout: config.request_timeout,
                        sample_every: config.sample_every,
                    };
                    match load.block_on(client::run(cell)) {
                        Ok(stats) => Outcome::Measured(stats),
                        Err(e) => Outcome::Broken(format!("{e:#}")),
                    }
                }
            };
            cells.push(progress(Cell {
                scenario,
                target: target.name(),
                kind: target.kind(),
                baseline: target.baseline(),
                outcome,
            }));
        }
    }
    shutdown.cancel();
    servers.shutdown_timeout(Duration::from_secs(1));

    // stdio: locate and check each server once, then a fresh child per cell.
    let mut stdio: Vec<(&dyn Target, Result<std::path::PathBuf, String>)> = Vec::new();
    let run_stdio = !config.stdio_in_flight.is_empty();
    for &target in targets.iter().filter(|t| run_stdio && !t.flow_only()) {
        let Some(bin) = target.stdio_bin() else {
            continue;
        };
        let ready = bins.locate(bin).and_then(|program| {
            load.block_on(stdio_client::preflight(&program, config.request_timeout))
                .with_context(|| format!("pre-flight request to {} failed", program.display()))?;
            Ok(program)
        });
        let ready = ready.map_err(|e| format!("{e:#}"));
        match &ready {
            Ok(program) => eprintln!("[stdio] {}: {}", target.name(), program.display()),
            Err(why) => eprintln!("[stdio] {} is BROKEN: {why}", target.name()),
        }
        stdio.push((target, ready));
    }
    for &depth in &config.stdio_in_flight {
        let scenario = Scenario {
            transport: Transport::Stdio,
            workload: Workload::Echo,
            depth,
        };
        for (target, ready) in &stdio {
            let outcome = match ready {
                Err(why) => Outcome::Broken(why.clone()),
                Ok(program) => {
                    let cell = StdioCell {
                        command: crate::command::ServerCommand::new(program),
                        session: false,
                        in_flight: depth,
                        warmup: config.warmup,
                        measure: config.measure,
                        max_requests: config.max_requests,
                        timeout: config.request_timeout,
                        sample_every: config.sample_every,
                    };
                    match load.block_on(stdio_client::run(cell)) {
                        Ok(stats) => Outcome::Measured(stats),
                        Err(e) => Outcome::Broken(format!("{e:#}")),
                    }
                }
            };
            cells.push(progress(Cell {
                scenario,
                target: target.name(),
                kind: target.kind(),
                baseline: target.baseline(),
                outcome,
            }));
        }
    }
    load.shutdown_timeout(Duration::from_secs(1));

    Ok(RunReport {
        config: config.clone(),
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        cells,
        load_average: (load_before, load_average()),
    })
}

/// The HTTP scenarios in run order: for each concurrency (single-call levels first, then
/// session-only, flow-only and task-only ones), the single-call scenario, then the session
/// scenario, then the flow scenario, then the task scenario.
pub fn http_scenarios(config: &LoadConfig) -> Vec<Scenario> {
    let mut depths: Vec<usize> = config.http_concurrency.clone();
    for &depth in config
        .session_concurrency
        .iter()
        .chain(&config.flow_concurrency)
        .chain(&config.task_concurrency)
    {
        if !depths.contains(&depth) {
            depths.push(depth);
        }
    }
    let mut scenarios = Vec::new();
    for depth in depths {
        for (levels, workload) in [
            (&config.http_concurrency, Workload::Echo),
            (&config.session_concurrency, Workload::Session),
            (&config.flow_concurrency, Workload::Flow),
            (&config.task_concurrency, Workload::Task),
        ] {
            if levels.contains(&depth) {
                scenarios.push(Scenario {
                    transport: Transport::Http,
                    workload,
                    depth,
                });
            }
        }
    }
    scenarios
}

fn start_http(
    servers: &Runtime,
    target: &dyn Target,
    shutdown: CancellationToken,
) -> anyhow::Result<SocketAddr> {
    let listener = servers
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .context("cannot bind a loopback port")?;
    let addr = listener.local_addr()?;
    let _entered = servers.enter();
    target.spawn_http(listener, shutdown)?;
    Ok(addr)
}

fn progress(cell: Cell) -> Cell {
    match &cell.outcome {
        Outcome::Measured(stats) if cell.scenario.workload == Workload::Flow => eprintln!(
            "[{}] {:<12} {:>10.0} req/s  {:>9.0} flows/s  flow p50 {:>9.1?}  p99 {:>9.1?}  errors {}",
            cell.scenario,
            cell.target,
            stats.rps(),
            stats.flows_per_sec(),
            stats.flow_p50,
            stats.flow_p99,
            stats.errors
        ),
        Outcome::Measured(stats) if cell.scenario.workload == Workload::Task => eprintln!(
            "[{}] {:<12} {:>10.0} req/s  {:>9.0} tasks/s  {:.2} req/task  task p50 {:>9.1?}  p99 {:>9.1?}  errors {}",
            cell.scenario,
            cell.target,
            stats.rps(),
            stats.flows_per_sec(),
            stats.requests_per_flow().unwrap_or_default(),
            stats.flow_p50,
            stats.flow_p99,
            stats.errors
        ),
        Outcome::Measured(stats) => eprintln!(
            "[{}] {:<12} {:>10.0} req/s  p50 {:>9.1?}  p99 {:>9.1?}  errors {}",
            cell.scenario,
            cell.target,
            stats.rps(),
            stats.p50,
            stats.p99,
            stats.errors
        ),
        Outcome::Broken(why) => eprintln!("[{}] {:<12} BROKEN: {why}", cell.scenario, cell.target),
    }
    cell
}

/// Cells grouped by scenario, in run order.
pub fn by_scenario(cells: &[Cell]) -> Vec<(Scenario, Vec<&Cell>)> {
    let mut order = Vec::new();
    let mut groups: HashMap<Scenario, Vec<&Cell>> = HashMap::new();
    for cell in cells {
        groups
            .entry(cell.scenario)
            .or_insert_with(|| {
                order.push(cell.scenario);
                Vec::new()
            })
            .push(cell);
    }
    order
        .into_iter()
        .map(|s| (s, groups.remove(&s).unwrap_or_default()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_flow_and_task_scenarios_follow_their_single_call_twins() {
        let config = LoadConfig {
            http_concurrency: vec![1, 64],
            flow_concurrency: vec![64, 8],
            session_concurrency: vec![64, 4],
            task_concurrency: vec![1, 2],
            ..LoadConfig::default()
        };
        let names: Vec<String> = http_scenarios(&config)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            names,
            [
                "http c=1",
                "task http c=1",
                "http c=64",
                "session http c=64",
                "flow3 http c=64",
                "session http c=4",
                "flow3 http c=8",
                "task http c=2"
            ]
        );
        let none = LoadConfig {
            flow_concurrency: Vec::new(),
            session_concurrency: Vec::new(),
            task_concurrency: Vec::new(),
            ..LoadConfig::default()
        };
        assert!(
            http_scenarios(&none)
                .iter()
                .all(|s| s.workload == Workload::Echo)
        );
    }
}
