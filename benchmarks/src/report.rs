//! The printed report: one table row per cell, ratios to the ceiling, rmcp vs ours.
//!
//! For each scenario, a target's ratio is its rate divided by the ceiling's
//! rate in the same scenario (bare hyper for HTTP, the echo child for stdio).
//! A target that failed its pre-flight check or answered any request wrongly
//! is shown as `BROKEN`, with no rate and no ratio: a broken target is never
//! reported as fast.

use std::fmt::Write as _;
use std::time::Duration;

use crate::runner::{Cell, Outcome, RunReport, by_scenario};
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
        "ceiling: bare-hyper for http, echo-stdio for stdio; ratio = target / ceiling\n"
    );
    let _ = writeln!(
        out,
        "{:<18} {:<12} {:>11} {:>9} {:>10} {:>10} {:>7}  status",
        "scenario", "target", "req/s", "ratio", "p50", "p99", "errors"
    );
    let groups = by_scenario(&report.cells);
    for (scenario, cells) in &groups {
        let ceiling = cells
            .iter()
            .find(|c| c.kind == TargetKind::Ceiling)
            .and_then(|c| c.healthy_rps());
        for cell in cells {
            let _ = writeln!(out, "{}", row(&scenario.to_string(), cell, ceiling));
        }
    }

    let _ = writeln!(
        out,
        "\nours vs rmcp (ours req/s / rmcp req/s; >1 means ours is faster)"
    );
    for (scenario, cells) in &groups {
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
    out
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
                format!("ok ({} replies fully validated)", stats.validated)
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
                depth: 1,
            },
            target,
            kind,
            outcome: Outcome::Measured(CellStats {
                requests,
                errors,
                validated: 1,
                window: Duration::from_secs(1),
                p50: Duration::from_micros(50),
                p99: Duration::from_millis(2),
                first_error: (errors > 0).then(|| "HTTP 400: bad".to_owned()),
            }),
        }
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
