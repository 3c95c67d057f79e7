//! Verdicts per scenario from the checks the suite saved, our own summary of the run, and
//! the final assertions.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::baseline::Baseline;
use crate::log::{SuiteLog, tail};
use crate::{BASELINE_PREFIX, Paths, REVISION, read_to_string};

/// How many failing checks to quote in output and panic messages.
const MAX_QUOTED_CHECKS: usize = 60;

/// One entry of a scenario's `checks.json`.
#[derive(Debug, Deserialize)]
struct Check {
    id: String,
    status: String,
    #[serde(rename = "errorMessage")]
    error_message: Option<String>,
}

impl Check {
    fn is_failure(&self) -> bool {
        self.status == "FAILURE"
    }

    fn is_warning(&self) -> bool {
        self.status == "WARNING"
    }
}

/// The checks of every scenario run, keyed by scenario. A scenario that crashed gets one
/// FAILURE check carrying the crash message, as the CLI itself counts it.
fn load_checks(log: &SuiteLog) -> BTreeMap<String, Vec<Check>> {
    let saved = log.result_dirs.iter().map(|(scenario, dir)| {
        let path = dir.join("checks.json");
        let checks = serde_json::from_str(&read_to_string(&path))
            .unwrap_or_else(|e| panic!("{path:?} is not a list of checks: {e}"));
        (scenario.clone(), checks)
    });
    let crashed = log.crashed.iter().map(|(scenario, error)| {
        let check = Check {
            id: scenario.clone(),
            status: "FAILURE".to_owned(),
            error_message: Some(format!("failed to run scenario: {error}")),
        };
        (scenario.clone(), vec![check])
    });
    saved.chain(crashed).collect()
}

/// How a scenario counts for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Scored, not in the baseline, no FAILURE and no WARNING.
    Ok,
    /// Scored, in the baseline, failing (FAILURE or WARNING) as expected.
    Baseline,
    /// Scored, not in the baseline, failing or without results.
    Unexpected,
    /// Scored, in the baseline, but passing: the entry must go.
    Stale,
    /// Run and reported, never scored (extensions, pending scenarios).
    NotScored,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Baseline => "baseline",
            Self::Unexpected => "UNEXPECTED",
            Self::Stale => "STALE baseline entry",
            Self::NotScored => "not scored",
        }
    }
}

/// One scenario's verdict and check counts, from its checks.json.
#[derive(Debug)]
struct ScenarioOutcome {
    name: String,
    verdict: Verdict,
    passed: usize,
    warnings: usize,
    /// Its FAILURE and WARNING checks.
    failing_checks: Vec<Check>,
}

impl ScenarioOutcome {
    fn new(name: &str, checks: Vec<Check>, scored: bool, listed: bool) -> Self {
        let passed = checks.iter().filter(|c| c.status == "SUCCESS").count();
        let warnings = checks.iter().filter(|c| c.is_warning()).count();
        let failing_checks: Vec<Check> = checks
            .into_iter()
            .filter(|c| c.is_failure() || c.is_warning())
            .collect();
        let failing = !failing_checks.is_empty();
        let verdict = match (scored, listed, failing) {
            (false, _, _) => Verdict::NotScored,
            (true, false, false) => Verdict::Ok,
            (true, true, true) => Verdict::Baseline,
            (true, false, true) => Verdict::Unexpected,
            (true, true, false) => Verdict::Stale,
        };
        Self {
            name: name.to_owned(),
            verdict,
            passed,
            warnings,
            failing_checks,
        }
    }

    fn failures(&self) -> usize {
        self.failing_checks.len() - self.warnings
    }
}

/// The verdicts of all scenarios run, in run order.
#[derive(Debug)]
pub(crate) struct Outcome {
    scenarios: Vec<ScenarioOutcome>,
}

impl Outcome {
    pub(crate) fn evaluate(log: &SuiteLog, scored: &BTreeSet<String>, baseline: &Baseline) -> Self {
        let mut checks = load_checks(log);
        let run_order = log.summary.iter().map(|line| &line.scenario);
        // Scored scenarios that left no trace in the log still get a verdict.
        let mut names: Vec<&String> = run_order.chain(scored).collect();
        let mut seen = BTreeSet::new();
        names.retain(|name| seen.insert(*name));
        let scenarios = names
            .into_iter()
            .map(|name| {
                let scenario_checks = checks
                    .remove(name)
                    .unwrap_or_else(|| vec![no_results(name)]);
                let is_scored = scored.contains(name) && !log.not_scored.contains(name);
                ScenarioOutcome::new(name, scenario_checks, is_scored, baseline.lists(name))
            })
            .collect();
        Self { scenarios }
    }

    fn with(&self, verdict: Verdict) -> impl Iterator<Item = &ScenarioOutcome> {
        self.scenarios.iter().filter(move |s| s.verdict == verdict)
    }

    fn names(&self, verdict: Verdict) -> Vec<&str> {
        self.with(verdict).map(|s| s.name.as_str()).collect()
    }

    /// Our own summary plus the failing scenarios and checks. Deliberately never a bare
    /// `N passed, M failed` line.
    pub(crate) fn render(&self, log: &SuiteLog, exit: i32) -> String {
        let (checks_ok, checks_failing) = log.total.unwrap_or_default();
        let not_scored_failing = self.with(Verdict::NotScored).filter(|s| s.failures() > 0);
        let mut out = format!(
            "conformance {REVISION}: scored scenarios {} ok, {} expected-failing (baseline), {} \
             unexpected, {} stale baseline entries; checks {checks_ok} ok / {checks_failing} \
             failing (incl. {} not-scored scenarios, {} of them failing); CLI exit code {exit}",
            self.with(Verdict::Ok).count(),
            self.with(Verdict::Baseline).count(),
            self.with(Verdict::Unexpected).count(),
            self.with(Verdict::Stale).count(),
            self.with(Verdict::NotScored).count(),
            not_scored_failing.count(),
        );
        for scenario in &self.scenarios {
            let mark = match scenario.verdict {
                Verdict::Ok => continue,
                Verdict::NotScored if scenario.failures() == 0 => continue,
                Verdict::Stale => '✓',
                _ => '✗',
            };
            out += &format!(
                "\n  {mark} {} [{}]: checks {} ok, {} failing, {} warnings",
                scenario.name,
                scenario.verdict.label(),
                scenario.passed,
                scenario.failures(),
                scenario.warnings
            );
        }
        let scored_failing = [Verdict::Unexpected, Verdict::Baseline];
        out += &quote_checks(
            self.scenarios
                .iter()
                .filter(|s| scored_failing.contains(&s.verdict)),
        );
        out
    }

    /// Step 6: the CLI must accept the run and nothing outside the baseline may fail.
    pub(crate) fn assert_conforms(&self, log: &SuiteLog, exit: i32, paths: &Paths) {
        let details = || self.failure_details(log, paths);
        assert!(
            !log.summary.is_empty(),
            "the conformance CLI printed no summary\n{}",
            details()
        );
        let unexpected = self.names(Verdict::Unexpected);
        let off_limits: Vec<_> = unexpected
            .iter()
            .filter(|name| !name.starts_with(BASELINE_PREFIX))
            .collect();
        assert!(
            off_limits.is_empty(),
            "scored scenarios outside {BASELINE_PREFIX}* fail (FAILURE or WARNING): \
             {off_limits:?}\n{}",
            details()
        );
        assert!(
            unexpected.is_empty(),
            "scored scenarios fail but are not in the baseline: {unexpected:?}\n{}",
            details()
        );
        let warnings: usize = self.with(Verdict::Unexpected).map(|s| s.warnings).sum();
        assert_eq!(
            warnings,
            0,
            "WARNING checks in scored scenarios outside the baseline\n{}",
            details()
        );
        let stale = self.names(Verdict::Stale);
        assert!(
            stale.is_empty(),
            "baseline entries now pass; remove them from {:?}: {stale:?}\n{}",
            paths.baseline(),
            details()
        );
        assert_eq!(
            exit,
            0,
            "the conformance CLI rejected the run\n{}",
            details()
        );
    }

    fn failure_details(&self, log: &SuiteLog, paths: &Paths) -> String {
        let mut out = String::new();
        for (title, list) in [
            ("unexpected failures", &log.unexpected),
            ("stale entries", &log.stale),
        ] {
            if !list.is_empty() {
                out += &format!("CLI baseline verdict, {title}: {}\n", list.join(", "));
            }
        }
        out += &quote_checks(self.with(Verdict::Unexpected));
        out += &format!(
            "\nfull log: {:?}; results: {:?}; server log: {:?}\nlast lines of the CLI log:\n{}",
            paths.suite_log(),
            paths.results_dir(),
            paths.server_log(),
            tail(&paths.suite_log(), 15)
        );
        out
    }
}

/// A FAILURE standing in for the checks of a scenario that saved no results.
fn no_results(scenario: &str) -> Check {
    Check {
        id: scenario.to_owned(),
        status: "FAILURE".to_owned(),
        error_message: Some("no results: the scenario did not run or saved nothing".to_owned()),
    }
}

/// One line per failing check (`scenario / check-id STATUS: errorMessage`), capped.
fn quote_checks<'a>(scenarios: impl Iterator<Item = &'a ScenarioOutcome>) -> String {
    let checks: Vec<(&str, &Check)> = scenarios
        .flat_map(|s| s.failing_checks.iter().map(move |c| (s.name.as_str(), c)))
        .collect();
    let mut out = String::new();
    for (scenario, check) in checks.iter().take(MAX_QUOTED_CHECKS) {
        out += &format!(
            "\n    {scenario} / {} {}: {}",
            check.id,
            check.status,
            error_of(check)
        );
    }
    if checks.len() > MAX_QUOTED_CHECKS {
        out += &format!(
            "\n    ... {} more failing checks",
            checks.len() - MAX_QUOTED_CHECKS
        );
    }
    out
}

/// The check's errorMessage on one line, shortened.
fn error_of(check: &Check) -> String {
    let message = check
        .error_message
        .as_deref()
        .unwrap_or("(no errorMessage)");
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}
