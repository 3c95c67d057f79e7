//! The printed report: one table row per cell, ratios to the ceiling, rmcp vs ours.
//!
//! For each scenario, a target's ratio is its rate divided by the ceiling's
//! rate in the same scenario (bare hyper for HTTP, the echo child for stdio).
//! A target that failed its pre-flight check or answered any request wrongly
//! is shown as `BROKEN`, with no rate and no ratio: a broken target is never
//! reported as fast.
//!
//! The three-round flow scenario (`flow3`) has no ceiling: in the main table
//! its rows give requests per second and per-request latency; its own section gives
//! completed flows per second, whole-flow latency, and flows/s × 3 divided by
//! the same target's single-call `tools/call` rate at the same concurrency in
//! the same run: the share of the single-call rate that survives when every
//! request carries, verifies and re-mints a signed `requestState` and reads a
//! form answer (1.00x would mean re-entry costs nothing).
//!
//! A variant of a target (ours with single-use states over Redis) runs only the flow; its
//! single-call basis is its baseline's, and a section of its own gives its flows/s divided
//! by the baseline's flows/s at the same concurrency in the same run: the share of the flow
//! rate that survives the variant's extra work (1.00x: it costs nothing).
//!
//! The task scenario (`task http`, the tasks extension) has no ceiling and no peer: in the
//! main table its rows give requests per second (creations and polls alike) and per-request
//! latency; its own section gives completed tasks per second, requests per task (one creation
//! plus the polls), whole-task latency (creation sent to the `completed` poll answered), and
//! tasks/s divided by the same target's single-call `tools/call` rate at the same concurrency
//! in the same run: how many plain calls one task costs (0.50x would mean a task costs two
//! plain calls, a creation and a single poll).
//!
//! The 2025-11-25 session scenario (`session http`) sends the same `echo` call on a session
//! opened per connection. It has no ceiling of its own: in the main table its ratio is to
//! bare hyper's 2026-wire rate at the same concurrency in the same run, and its own section
//! also divides it by the same SDK's 2026-wire rate (ours by ours, `rmcp-session` by rmcp).

use std::fmt::Write as _;
use std::time::Duration;

use crate::client::Workload;
use crate::runner::{Cell, Outcome, RunReport, Scenario, Transport, by_scenario};
use crate::targets::TargetKind;

/// Renders the whole report as text.
pub fn render(report: &RunReport) -> String {
    let mut out = String::new();
    let config = &report.config;
    let _ = writeln!(
        out,
        "\nMCP tools/call load (protocol 2026-07-28, stateless; loopback 127.0.0.1)"
    );
    let _ = writeln!(
        out,
        "warm-up {:?}, window {:?} per cell; server runtime {} threads, load runtime {} threads, {} cores available",
        config.warmup, config.measure, config.server_threads, config.client_threads, report.cores
    );
    if report.cores <= 2 {
        let _ = writeln!(
            out,
            "caveat: servers and load generator share {} core(s); absolute rates are bounded by the \
             generator's own CPU use, compare ratios rather than raw numbers",
            report.cores
        );
    }
    if let (Some(before), Some(after)) = report.load_average {
        let _ = writeln!(
            out,
            "load average: {before:.2} before, {after:.2} after the run{}",
            if before > 1.0 {
                " (other work was running: expect noisy numbers, the c=1 cells most)"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        out,
        "request (identical for every target): POST /mcp, MCP-Protocol-Version: 2026-07-28, \
         Mcp-Method: tools/call, Mcp-Name: echo, _meta protocolVersion + clientCapabilities; \
         stdio sends the same body as one line"
    );
    let _ = writeln!(
        out,
        "session http: initialize + notifications/initialized once per connection, then the same \
         echo call without _meta, Mcp-Session-Id + MCP-Protocol-Version: 2025-11-25"
    );
    if report
        .cells
        .iter()
        .any(|c| c.scenario.workload == Workload::Task)
    {
        let _ = writeln!(
            out,
            "task http: tools/call of task_echo declaring io.modelcontextprotocol/tasks in \
             clientCapabilities.extensions, then tasks/get (Mcp-Method: tasks/get, Mcp-Name: the \
             task id) until completed; no ceiling"
        );
    }
    let _ = writeln!(
        out,
        "ceiling: bare-hyper for http (its 2026-wire cell for session http), echo-stdio for \
         stdio; ratio = target / ceiling\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<12} {:>11} {:>9} {:>10} {:>10} {:>7}  status",
        "scenario", "target", "req/s", "ratio", "p50", "p99", "errors"
    );
    let groups = by_scenario(&report.cells);
    for (scenario, cells) in &groups {
        let ceiling = ceiling_rps(report, *scenario);
        for cell in cells {
            let _ = writeln!(out, "{}", row(&scenario.to_string(), cell, ceiling));
        }
    }

    let _ = writeln!(
        out,
        "\nours vs rmcp (ours req/s / rmcp req/s; >1 means ours is faster)"
    );
    for (scenario, cells) in &groups {
        if scenario.workload == Workload::Task {
            let _ = writeln!(
                out,
                "{:<18} n/a (rmcp serves no tasks)",
                scenario.to_string()
            );
            continue;
        }
        let rate = |kind| {
            cells
                .iter()
                .find(|c| c.kind == kind)
                .map(|c| (c.healthy_rps(), c))
        };
        let text = match (rate(TargetKind::Rmcp), rate(TargetKind::Ours)) {
            (Some((Some(rmcp), _)), Some((Some(ours), _))) if rmcp > 0.0 => {
                format!("{:.2}x", ours / rmcp)
            }
            (_, None) => "n/a (ours not wired in yet: see targets/ours.rs)".to_owned(),
            (None, _) => "n/a (rmcp not run)".to_owned(),
            _ => "n/a (a target is broken)".to_owned(),
        };
        let _ = writeln!(out, "{:<18} {text}", scenario.to_string());
    }
    session_section(&mut out, report);
    flow_section(&mut out, report);
    variant_section(&mut out, report);
    task_section(&mut out, report);
    out
}

/// The healthy rate of the target called `target` on the 2026 wire (single call over HTTP,
/// or the scenario's own transport) at `scenario`'s depth.
fn twin_rps(report: &RunReport, scenario: Scenario, target: &str) -> Option<f64> {
    let twin = match scenario.transport {
        Transport::Http => Scenario {
            workload: Workload::Echo,
            ..scenario
        },
        Transport::Stdio => scenario,
    };
    report
        .cells
        .iter()
        .find(|c| c.scenario == twin && c.target == target)
        .and_then(Cell::healthy_rps)
}

/// The ceiling's healthy rate for `scenario`: its own ceiling cell, or for the session
/// scenario bare hyper's 2026-wire cell at the same concurrency.
fn ceiling_rps(report: &RunReport, scenario: Scenario) -> Option<f64> {
    let twin = match scenario.workload {
        Workload::Session => Scenario {
            workload: Workload::Echo,
            ..scenario
        },
        _ => scenario,
    };
    report
        .cells
        .iter()
        .find(|c| c.scenario == twin && c.kind == TargetKind::Ceiling)
        .and_then(Cell::healthy_rps)
}

/// The 2025-11-25 session section (nothing when the scenario did not run).
fn session_section(out: &mut String, report: &RunReport) {
    let sessions = cells_of(report, Workload::Session);
    if sessions.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n2025-11-25 session mode (one session per connection, opened before the window; the \
         same echo call on it)"
    );
    let _ = writeln!(
        out,
        "vs bare-hyper = req/s / bare-hyper's 2026-wire req/s; vs 2026 wire = req/s / the same \
         SDK's 2026-wire req/s (ours: ours, rmcp-session: rmcp); vs memory = req/s / the \
         baseline's session req/s (ours-redis-sessions: ours, sessions in its memory); same \
         concurrency, same run\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<20} {:>11} {:>13} {:>12} {:>10} {:>10} {:>10}",
        "scenario", "target", "req/s", "vs bare-hyper", "vs 2026 wire", "vs memory", "p50", "p99"
    );
    for cell in &sessions {
        let scenario = cell.scenario.to_string();
        let Some(rps) = cell.healthy_rps() else {
            let _ = writeln!(
                out,
                "{scenario:<18} {:<20} BROKEN: see the table above",
                cell.target
            );
            continue;
        };
        let ratio = |basis: Option<f64>| match basis {
            Some(basis) if basis > 0.0 => format!("{:.2}x", rps / basis),
            _ => "-".to_owned(),
        };
        let modern = twin_rps(report, cell.scenario, cell.baseline.unwrap_or(cell.target));
        let memory = cell.baseline.and_then(|baseline| {
            sessions
                .iter()
                .find(|c| c.scenario == cell.scenario && c.target == baseline)
                .and_then(|c| c.healthy_rps())
        });
        let (p50, p99) = match &cell.outcome {
            Outcome::Measured(stats) => (latency(stats.p50), latency(stats.p99)),
            Outcome::Broken(_) => ("-".to_owned(), "-".to_owned()),
        };
        let _ = writeln!(
            out,
            "{scenario:<18} {:<20} {rps:>11.0} {:>13} {:>12} {:>10} {p50:>10} {p99:>10}",
            cell.target,
            ratio(ceiling_rps(report, cell.scenario)),
            ratio(modern),
            ratio(memory),
        );
    }
}

/// The variants' flows against their baselines' (nothing when no variant ran).
fn variant_section(out: &mut String, report: &RunReport) {
    let variants: Vec<&Cell> = report
        .cells
        .iter()
        .filter(|c| c.scenario.workload == Workload::Flow && c.baseline.is_some())
        .collect();
    if variants.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nthree-round flow, variant vs baseline (ours-redis: each resuming round consumes its \
         state once in Redis, SET NX EXAT, before the handler runs)"
    );
    let _ = writeln!(
        out,
        "ratio = the variant's flows/s / its baseline's flows/s at the same concurrency in this \
         run (1.00x: the variant costs nothing)\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<12} {:<10} {:>9} {:>13} {:>9} {:>10} {:>13}",
        "scenario",
        "target",
        "baseline",
        "flows/s",
        "base flows/s",
        "ratio",
        "flow p50",
        "base flow p50"
    );
    for cell in variants {
        let baseline = cell.baseline.unwrap_or_default();
        let base = report
            .cells
            .iter()
            .find(|c| c.scenario == cell.scenario && c.target == baseline);
        let healthy = |c: &Cell| match &c.outcome {
            Outcome::Measured(stats) if stats.healthy() => Some(stats.clone()),
            _ => None,
        };
        let scenario = cell.scenario.to_string();
        let line = match (healthy(cell), base.and_then(healthy)) {
            (Some(ours), Some(base)) => {
                let ratio = if base.flows_per_sec() > 0.0 {
                    format!("{:.2}x", ours.flows_per_sec() / base.flows_per_sec())
                } else {
                    "-".to_owned()
                };
                format!(
                    "{scenario:<18} {:<12} {baseline:<10} {:>9.0} {:>13.0} {ratio:>9} {:>10} {:>13}",
                    cell.target,
                    ours.flows_per_sec(),
                    base.flows_per_sec(),
                    latency(ours.flow_p50),
                    latency(base.flow_p50),
                )
            }
            (None, _) => format!(
                "{scenario:<18} {:<12} {baseline:<10} n/a (the variant is broken: see above)",
                cell.target
            ),
            (Some(_), None) => format!(
                "{scenario:<18} {:<12} {baseline:<10} n/a (no healthy {baseline} flow in this \
                 scenario: run both, e.g. LOAD_TARGETS=ours,ours-redis)",
                cell.target
            ),
        };
        let _ = writeln!(out, "{line}");
    }
}

/// `per_sec` as a ratio to the same target's single-call req/s in the same scenario (`-`
/// without a healthy single-call cell), and the status naming that basis.
fn against_single(report: &RunReport, cell: &Cell, per_sec: f64) -> (String, String) {
    let single = single_call_rps(report, cell);
    let ratio = match single {
        Some(single) if single > 0.0 => format!("{:.2}x", per_sec / single),
        _ => "-".to_owned(),
    };
    let basis = single.map_or_else(
        || "no healthy single-call cell to compare with".to_owned(),
        |single| format!("ok (single-call: {single:.0} req/s)"),
    );
    (ratio, basis)
}

/// The cells of `workload`.
fn cells_of(report: &RunReport, workload: Workload) -> Vec<&Cell> {
    report
        .cells
        .iter()
        .filter(|c| c.scenario.workload == workload)
        .collect()
}

/// The three-round flow section (nothing when the scenario did not run).
fn flow_section(out: &mut String, report: &RunReport) {
    let flows = cells_of(report, Workload::Flow);
    if flows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nthree-round flow (tool `flow`: asks a name, then a colour, completes on round 3; \
         each retry is a new JSON-RPC id echoing the previous reply's requestState)"
    );
    let _ = writeln!(
        out,
        "flows x3 / single = flows/s x 3 / the same target's single-call tools/call req/s at the \
         same concurrency in this run (1.00x: state and re-entry cost nothing)\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<12} {:>9} {:>11} {:>10} {:>10} {:>17}  status",
        "scenario", "target", "flows/s", "req/s", "flow p50", "flow p99", "flows x3 / single"
    );
    for cell in flows {
        let scenario = cell.scenario.to_string();
        let line = match &cell.outcome {
            Outcome::Measured(stats) if stats.healthy() => {
                let (ratio, basis) = against_single(report, cell, stats.flows_per_sec() * 3.0);
                format!(
                    "{scenario:<18} {:<12} {:>9.0} {:>11.0} {:>10} {:>10} {ratio:>17}  {basis}",
                    cell.target,
                    stats.flows_per_sec(),
                    stats.rps(),
                    latency(stats.flow_p50),
                    latency(stats.flow_p99),
                )
            }
            Outcome::Measured(stats) => format!(
                "{scenario:<18} {:<12} {:>9} {:>11} {:>10} {:>10} {:>17}  BROKEN: {} errors, first: {}",
                cell.target,
                "-",
                "-",
                "-",
                "-",
                "-",
                stats.errors,
                stats
                    .first_error
                    .as_deref()
                    .unwrap_or("no flow completed in the window")
            ),
            Outcome::Broken(why) => format!(
                "{scenario:<18} {:<12} {:>9} {:>11} {:>10} {:>10} {:>17}  BROKEN: {why}",
                cell.target, "-", "-", "-", "-", "-"
            ),
        };
        let _ = writeln!(out, "{line}");
    }
}

/// The task section (nothing when the scenario did not run).
fn task_section(out: &mut String, report: &RunReport) {
    let tasks = cells_of(report, Workload::Task);
    if tasks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\ntasks (tool `task_echo`, the echo tool as a task: tools/call declaring \
         io.modelcontextprotocol/tasks answers a task, tasks/get polls it back to back until \
         completed; every reply checked)"
    );
    let _ = writeln!(
        out,
        "tasks / single = tasks/s / the same target's single-call tools/call req/s at the same \
         concurrency in this run (1.00x: a task costs one plain call)\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<12} {:>9} {:>11} {:>8} {:>10} {:>10} {:>14}  status",
        "scenario",
        "target",
        "tasks/s",
        "req/s",
        "req/task",
        "task p50",
        "task p99",
        "tasks / single"
    );
    for cell in tasks {
        let scenario = cell.scenario.to_string();
        let line = match &cell.outcome {
            Outcome::Measured(stats) if stats.healthy() && stats.flows > 0 => {
                let (ratio, basis) = against_single(report, cell, stats.flows_per_sec());
                format!(
                    "{scenario:<18} {:<12} {:>9.0} {:>11.0} {:>8.2} {:>10} {:>10} {ratio:>14}  {basis}",
                    cell.target,
                    stats.flows_per_sec(),
                    stats.rps(),
                    stats.requests_per_flow().unwrap_or_default(),
                    latency(stats.flow_p50),
                    latency(stats.flow_p99),
                )
            }
            Outcome::Measured(stats) => format!(
                "{scenario:<18} {:<12} {:>9} {:>11} {:>8} {:>10} {:>10} {:>14}  BROKEN: {} errors, first: {}",
                cell.target,
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
                stats.errors,
                stats
                    .first_error
                    .as_deref()
                    .unwrap_or("no task completed in the window")
            ),
            Outcome::Broken(why) => format!(
                "{scenario:<18} {:<12} {:>9} {:>11} {:>8} {:>10} {:>10} {:>14}  BROKEN: {why}",
                cell.target, "-", "-", "-", "-", "-", "-"
            ),
        };
        let _ = writeln!(out, "{line}");
    }
}

/// The healthy single-call HTTP rate of `cell`'s target (or of its baseline, for a variant)
/// at `cell`'s concurrency: the basis of the flow and task ratios.
fn single_call_rps(report: &RunReport, cell: &Cell) -> Option<f64> {
    let target = cell.baseline.unwrap_or(cell.target);
    let twin = Scenario {
        transport: Transport::Http,
        workload: Workload::Echo,
        depth: cell.scenario.depth,
    };
    report
        .cells
        .iter()
        .find(|c| c.scenario == twin && c.target == target)
        .and_then(Cell::healthy_rps)
}

fn row(scenario: &str, cell: &Cell, ceiling: Option<f64>) -> String {
    match &cell.outcome {
        Outcome::Broken(why) => format!(
            "{scenario:<18} {:<12} {:>11} {:>9} {:>10} {:>10} {:>7}  BROKEN: {why}",
            cell.target, "-", "-", "-", "-", "-"
        ),
        Outcome::Measured(stats) => {
            let healthy = stats.healthy();
            let rps = if healthy {
                format!("{:.0}", stats.rps())
            } else {
                "-".to_owned()
            };
            let ratio = match (healthy, ceiling) {
                (true, Some(ceiling)) if ceiling > 0.0 => {
                    format!("{:.2}x", stats.rps() / ceiling)
                }
                _ => "-".to_owned(),
            };
            let status = if healthy {
                let what = match cell.scenario.workload {
                    Workload::Echo | Workload::Session => "replies",
                    Workload::Flow => "flows",
                    Workload::Task => "tasks",
                };
                format!("ok ({} {what} fully validated)", stats.validated)
            } else if stats.errors > 0 {
                format!(
                    "BROKEN: {} errors, first: {}",
                    stats.errors,
                    stats.first_error.as_deref().unwrap_or("?")
                )
            } else {
                "BROKEN: no request completed in the window".to_owned()
            };
            format!(
                "{scenario:<18} {:<12} {rps:>11} {ratio:>9} {:>10} {:>10} {:>7}  {status}",
                cell.target,
                latency(stats.p50),
                latency(stats.p99),
                stats.errors
            )
        }
    }
}

/// `12.3µs` below a millisecond, `4.56ms` above.
fn latency(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{:.1}µs", d.as_secs_f64() * 1e6)
    } else {
        format!("{:.2}ms", d.as_secs_f64() * 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LoadConfig;
    use crate::runner::{Scenario, Transport};
    use crate::stats::CellStats;

    fn measured(target: &'static str, kind: TargetKind, requests: u64, errors: u64) -> Cell {
        Cell {
            scenario: Scenario {
                transport: Transport::Http,
                workload: Workload::Echo,
                depth: 1,
            },
            target,
            kind,
            baseline: None,
            outcome: Outcome::Measured(CellStats {
                requests,
                errors,
                validated: 1,
                window: Duration::from_secs(1),
                p50: Duration::from_micros(50),
                p99: Duration::from_millis(2),
                first_error: (errors > 0).then(|| "HTTP 400: bad".to_owned()),
                ..CellStats::default()
            }),
        }
    }

    fn flow(target: &'static str, kind: TargetKind, flows: u64) -> Cell {
        Cell {
            scenario: Scenario {
                transport: Transport::Http,
                workload: Workload::Flow,
                depth: 1,
            },
            target,
            kind,
            baseline: (kind == TargetKind::Variant).then_some("ours"),
            outcome: Outcome::Measured(CellStats {
                requests: flows * 3,
                validated: 1,
                window: Duration::from_secs(1),
                flows,
                flow_p50: Duration::from_micros(300),
                flow_p99: Duration::from_millis(3),
                ..CellStats::default()
            }),
        }
    }

    #[test]
    fn flow_ratio_is_against_the_same_targets_single_call_rate() {
        let report = RunReport {
            config: LoadConfig::default(),
            cores: 2,
            load_average: (None, None),
            cells: vec![
                measured("bare-hyper", TargetKind::Ceiling, 1000, 0),
                measured("rmcp", TargetKind::Rmcp, 400, 0),
                measured("ours", TargetKind::Ours, 600, 0),
                flow("rmcp", TargetKind::Rmcp, 100),
                flow("ours", TargetKind::Ours, 150),
            ],
        };
        let text = render(&report);
        let line = |target: &str| {
            text.lines()
                .find(|l| {
                    l.starts_with("flow3 http c=1")
                        && l.contains(target)
                        && l.contains("single-call:")
                })
                .map(str::to_owned)
                .unwrap_or_default()
        };
        // ours: 150 flows/s x 3 / 600 req/s; rmcp: 100 x 3 / 400.
        assert!(line("ours").contains("0.75x"), "{text}");
        assert!(line("rmcp").contains("0.75x"), "{text}");
        assert!(line("ours").contains("300.0µs"), "{text}");
        // ours vs rmcp on the flow scenario: 450 / 300 req/s.
        assert!(text.contains("flow3 http c=1     1.50x"), "{text}");
    }

    #[test]
    fn task_ratio_is_against_the_same_targets_single_call_rate() {
        let task = |target: &'static str, depth: usize, tasks: u64, polls: u64| Cell {
            scenario: Scenario {
                transport: Transport::Http,
                workload: Workload::Task,
                depth,
            },
            target,
            kind: TargetKind::Ours,
            baseline: None,
            outcome: Outcome::Measured(CellStats {
                requests: tasks + polls,
                validated: tasks,
                window: Duration::from_secs(1),
                flows: tasks,
                flow_requests: tasks + polls,
                flow_p50: Duration::from_micros(250),
                flow_p99: Duration::from_millis(4),
                ..CellStats::default()
            }),
        };
        let mut at_64 = measured("ours", TargetKind::Ours, 2000, 0);
        at_64.scenario.depth = 64;
        let report = RunReport {
            config: LoadConfig::default(),
            cores: 2,
            load_average: (None, None),
            cells: vec![
                measured("bare-hyper", TargetKind::Ceiling, 1000, 0),
                measured("ours", TargetKind::Ours, 800, 0),
                task("ours", 1, 200, 300),
                at_64,
                task("ours", 64, 0, 0),
            ],
        };
        let text = render(&report);
        let line = text
            .lines()
            .find(|l| l.starts_with("task http c=1") && l.contains("single-call: 800"))
            .unwrap_or_default();
        // 200 tasks/s / 800 req/s; (200 creations + 300 polls) / 200 tasks.
        assert!(line.contains("0.25x"), "{text}");
        assert!(line.contains("2.50"), "{text}");
        assert!(
            line.contains("250.0µs") && line.contains("4.00ms"),
            "{text}"
        );
        // The main table counts the tasks validated.
        assert!(text.contains("ok (200 tasks fully validated)"), "{text}");
        // No task completed at 64: broken, never a rate.
        assert!(
            text.lines().any(|l| l.starts_with("task http c=64")
                && l.contains("no task completed in the window")),
            "{text}"
        );
        assert!(
            text.contains("task http c=1      n/a (rmcp serves no tasks)"),
            "{text}"
        );
    }

    #[test]
    fn a_variant_flow_is_a_ratio_to_its_baselines_flow() {
        let report = RunReport {
            config: LoadConfig::default(),
            cores: 2,
            load_average: (None, None),
            cells: vec![
                measured("ours", TargetKind::Ours, 600, 0),
                flow("ours", TargetKind::Ours, 150),
                flow("ours-redis", TargetKind::Variant, 75),
            ],
        };
        let text = render(&report);
        let line = text
            .lines()
            .find(|l| {
                l.starts_with("flow3 http c=1") && l.contains("ours-redis") && l.contains(" ours ")
            })
            .unwrap_or_default();
        // 75 flows/s against ours' 150.
        assert!(line.contains("0.50x"), "{text}");
        // Its single-call basis is ours': 75 x 3 / 600.
        let flow = text
            .lines()
            .find(|l| l.contains("ours-redis") && l.contains("single-call: 600"))
            .unwrap_or_default();
        assert!(flow.contains("0.38x"), "{text}");
    }

    #[test]
    fn session_cells_are_ratios_to_bare_hyper_and_to_the_2026_wire() {
        let session = |target: &'static str, kind, baseline, requests| {
            let mut cell = measured(target, kind, requests, 0);
            cell.scenario.workload = Workload::Session;
            cell.baseline = baseline;
            cell
        };
        let report = RunReport {
            config: LoadConfig::default(),
            cores: 2,
            load_average: (None, None),
            cells: vec![
                measured("bare-hyper", TargetKind::Ceiling, 1000, 0),
                measured("rmcp", TargetKind::Rmcp, 400, 0),
                measured("ours", TargetKind::Ours, 800, 0),
                session("rmcp-session", TargetKind::Rmcp, Some("rmcp"), 200),
                session("ours", TargetKind::Ours, None, 600),
            ],
        };
        let text = render(&report);
        let line = |target: &str| {
            text.lines()
                .rfind(|l| l.starts_with("session http c=1") && l.contains(target))
                .map(str::to_owned)
                .unwrap_or_default()
        };
        // ours: 600 / 1000 against bare hyper, 600 / 800 against its own 2026 wire.
        assert!(line("ours").contains("0.60x"), "{text}");
        assert!(line("ours").contains("0.75x"), "{text}");
        // rmcp-session: 200 / 1000, and 200 / rmcp's 400.
        assert!(line("rmcp-session").contains("0.20x"), "{text}");
        assert!(line("rmcp-session").contains("0.50x"), "{text}");
        // The main table divides by bare hyper's 2026-wire cell too.
        assert!(
            text.lines().any(|l| l.starts_with("session http c=1")
                && l.contains("ok (1 replies")
                && l.contains("0.60x")),
            "{text}"
        );
        // ours vs rmcp on the session scenario: 600 / 200.
        assert!(text.contains("session http c=1   3.00x"), "{text}");
    }

    #[test]
    fn ratios_and_broken_targets() {
        let report = RunReport {
            config: LoadConfig::default(),
            cores: 2,
            load_average: (Some(0.5), Some(2.0)),
            cells: vec![
                measured("bare-hyper", TargetKind::Ceiling, 1000, 0),
                measured("rmcp", TargetKind::Rmcp, 250, 0),
                measured("ours", TargetKind::Ours, 5000, 3),
            ],
        };
        let text = render(&report);
        assert!(text.contains("0.25x"), "{text}");
        assert!(text.contains("BROKEN: 3 errors"), "{text}");
        assert!(
            !text.contains("5000"),
            "a broken target shows no rate: {text}"
        );
        assert!(text.contains("n/a (a target is broken)"), "{text}");
        assert!(text.contains("50.0µs") && text.contains("2.00ms"), "{text}");
        assert!(
            text.contains("load average: 0.50 before, 2.00 after"),
            "{text}"
        );
    }
}
