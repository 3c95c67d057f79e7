//! Verdicts per scenario from the checks the suite saved (`checks.json`), our own summary of
//! the run, and the final assertions.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::log::{SuiteLog, tail};
use crate::{Paths, REVISION, read_to_string};

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
    fn is_success(&self) -> bool {
        self.status == "SUCCESS"
    }

    fn is_failure(&self) -> bool {
        self.status == "FAILURE"
    }

    fn is_warning(&self) -> bool {
        self.status == "WARNING"
    }

    /// The single FAILURE standing in for the checks of a scenario without `checks.json`, as
    /// the CLI itself counts a crashed scenario.
    fn stand_in(scenario: &str, message: String) -> Self {
        Self {
            id: scenario.to_owned(),
            status: "FAILURE".to_owned(),
            error_message: Some(message),
        }
    }
}

/// How a scenario's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// It saved a `checks.json`.
    Checks,
    /// `Failed to run scenario <name>: <error>`: it threw and saved nothing.
    Crashed,
    /// Neither results nor a crash message in the log (it did not run at all).
    NoResults,
}

/// The checks of every scenario the log mentions, keyed by scenario. A scenario that crashed
/// gets one FAILURE check carrying the crash message.
fn load_checks(log: &SuiteLog) -> BTreeMap<String, (Ending, Vec<Check>)> {
    let saved = log.result_dirs.iter().map(|(scenario, dir)| {
        let path = dir.join("checks.json");
        let checks = serde_json::from_str(&read_to_string(&path))
            .unwrap_or_else(|e| panic!("{path:?} is not a list of checks: {e}"));
        (scenario.clone(), (Ending::Checks, checks))
    });
    let crashed = log.crashed.iter().map(|(scenario, error)| {
        let check = Check::stand_in(scenario, format!("Failed to run scenario: {error}"));
        (scenario.clone(), (Ending::Crashed, vec![check]))
    });
    saved.chain(crashed).collect()
}

/// One scenario's verdict and check counts.
#[derive(Debug)]
struct ScenarioOutcome {
    name: String,
    /// In the requirement set of `REVISION`; `None` if scored, else why not (`extension`,
    /// `pending`, ...).
    not_scored: Option<String>,
    ending: Ending,
    passed: usize,
    failures: usize,
    warnings: usize,
    /// Its FAILURE and WARNING checks.
    failing_checks: Vec<Check>,
}

impl ScenarioOutcome {
    fn new(name: &str, not_scored: Option<String>, ending: Ending, checks: Vec<Check>) -> Self {
        let passed = checks.iter().filter(|c| c.is_success()).count();
        let failures = checks.iter().filter(|c| c.is_failure()).count();
        let warnings = checks.iter().filter(|c| c.is_warning()).count();
        let failing_checks = checks
            .into_iter()
            .filter(|c| c.is_failure() || c.is_warning())
            .collect();
        Self {
            name: name.to_owned(),
            not_scored,
            ending,
            passed,
            failures,
            warnings,
            failing_checks,
        }
    }

    fn is_scored(&self) -> bool {
        self.not_scored.is_none()
    }

    /// Saved its checks, none of them FAILURE or WARNING.
    fn is_ok(&self) -> bool {
        self.ending == Ending::Checks && self.failing_checks.is_empty()
    }

    /// `[scored]`, `[not scored: extension]`, with `, crashed` or `, no results` appended.
    fn label(&self) -> String {
        let scoring = match &self.not_scored {
            None => "scored".to_owned(),
            Some(reason) => format!("not scored: {reason}"),
        };
        match self.ending {
            Ending::Checks => format!("[{scoring}]"),
            Ending::Crashed => format!("[{scoring}, crashed]"),
            Ending::NoResults => format!("[{scoring}, no results]"),
        }
    }
}

/// The verdicts of all scenarios run, in run order.
#[derive(Debug)]
pub(crate) struct Outcome {
    scenarios: Vec<ScenarioOutcome>,
    /// The requirement set that was run (`REVISION` unless [`Outcome::with_revision`]), as
    /// named in the summary and the failure message.
    revision: String,
}

impl Outcome {
    pub(crate) fn evaluate(log: &SuiteLog, scored: &BTreeSet<String>) -> Self {
        let mut checks = load_checks(log);
        let run_order = log.summary.iter();
        // Scored scenarios that left no trace in the log still get a verdict.
        let mut names: Vec<&String> = run_order.chain(scored).collect();
        let mut seen = BTreeSet::new();
        names.retain(|name| seen.insert(*name));
        let scenarios = names
            .into_iter()
            .map(|name| {
                let (ending, scenario_checks) = checks.remove(name).unwrap_or_else(|| {
                    let message = "no results: the scenario did not run or saved nothing";
                    let check = Check::stand_in(name, message.to_owned());
                    (Ending::NoResults, vec![check])
                });
                let not_scored = (!scored.contains(name)).then(|| {
                    log.not_scored_reason(name)
                        .unwrap_or("not scored")
                        .to_owned()
                });
                ScenarioOutcome::new(name, not_scored, ending, scenario_checks)
            })
            .collect();
        Self {
            scenarios,
            revision: REVISION.to_owned(),
        }
    }

    /// The same verdicts, named after another requirement set.
    pub(crate) fn with_revision(mut self, revision: impl Into<String>) -> Self {
        self.revision = revision.into();
        self
    }

    /// How many scored scenarios pass, and how many are scored.
    pub(crate) fn scored_counts(&self) -> (usize, usize) {
        let ok = self.scored().filter(|s| s.is_ok()).count();
        (ok, self.scored().count())
    }

    fn scored(&self) -> impl Iterator<Item = &ScenarioOutcome> {
        self.scenarios.iter().filter(|s| s.is_scored())
    }

    fn not_scored(&self) -> impl Iterator<Item = &ScenarioOutcome> {
        self.scenarios.iter().filter(|s| !s.is_scored())
    }

    fn scored_failing(&self) -> impl Iterator<Item = &ScenarioOutcome> {
        self.scored().filter(|s| !s.is_ok())
    }

    /// Our own summary line, then one line per scored scenario that fails and per not-scored
    /// scenario, then the failing checks of scored scenarios. Deliberately never a bare
    /// `N passed, M failed` line.
    pub(crate) fn render(&self, exit: i32) -> String {
        let scored_total = self.scored().count();
        let scored_ok = self.scored().filter(|s| s.is_ok()).count();
        let crashed = self.scored().filter(|s| s.ending != Ending::Checks).count();
        let crashed = match crashed {
            0 => String::new(),
            n => format!(" ({n} crashed or without results)"),
        };
        let warnings: usize = self.scored().map(|s| s.warnings).sum();
        let checks_ok: usize = self.scenarios.iter().map(|s| s.passed).sum();
        let scored_failures: usize = self.scored().map(|s| s.failures).sum();
        let other_failures: usize = self.not_scored().map(|s| s.failures).sum();
        let failing = match scored_failures {
            0 => format!("{other_failures} failing"),
            n => format!("{n} failing in scored and {other_failures} failing"),
        };
        let mut out = format!(
            "conformance {}: scored scenarios {scored_ok}/{scored_total} ok{crashed}, \
             {warnings} warnings; checks {checks_ok} ok / {failing} in {} not-scored \
             scenarios; CLI exit code {exit}",
            self.revision,
            self.not_scored().count(),
        );
        for scenario in self.scored_failing().chain(self.not_scored()) {
            out += &format!(
                "\n  {} {} {}: checks {} ok, {} failing, {} warnings",
                if scenario.is_ok() { '✓' } else { '✗' },
                scenario.name,
                scenario.label(),
                scenario.passed,
                scenario.failures,
                scenario.warnings
            );
        }
        out += &quote_checks(self.scored_failing());
        out
    }

    /// Step 6: the CLI accepts the run, and every scored scenario saved its checks with no
    /// FAILURE and no WARNING among them. Not-scored scenarios never fail the test.
    pub(crate) fn assert_conforms(&self, log: &SuiteLog, exit: i32, paths: &Paths) {
        let problems = self.problems(log, exit);
        assert!(
            problems.is_empty(),
            "conformance {} does not pass:\n  - {}\n{}",
            self.revision,
            problems.join("\n  - "),
            where_to_look(paths)
        );
    }

    /// Everything that keeps the run from passing, one entry each (a scored scenario's entry
    /// quotes its FAILURE and WARNING checks); empty if the run passes.
    pub(crate) fn problems(&self, log: &SuiteLog, exit: i32) -> Vec<String> {
        let mut problems = Vec::new();
        if log.summary.is_empty() {
            problems.push("the conformance CLI printed no summary".to_owned());
        }
        for scenario in self.scored_failing() {
            let name = &scenario.name;
            problems.push(match scenario.ending {
                Ending::Crashed => format!(
                    "scored scenario `{name}` crashed (no checks.json): {}",
                    scenario
                        .failing_checks
                        .first()
                        .map_or_else(String::new, error_of)
                ),
                Ending::NoResults => {
                    format!("scored scenario `{name}` did not run (no checks.json, no log entry)")
                }
                Ending::Checks => format!(
                    "scored scenario `{name}` has {} FAILURE and {} WARNING checks \
                     (scenario / check id STATUS: errorMessage):{}",
                    scenario.failures,
                    scenario.warnings,
                    quote_checks(std::iter::once(scenario))
                ),
            });
        }
        if exit != 0 {
            problems.push(format!("the conformance CLI exited with code {exit}"));
        }
        problems
    }
}

/// The logs and results of the run, and the last lines of the CLI log.
fn where_to_look(paths: &Paths) -> String {
    format!(
        "\nfull log: {:?}; results: {:?}; server log: {:?}\nlast lines of the CLI log:\n{}",
        paths.suite_log(),
        paths.results_dir(),
        paths.server_log(),
        tail(&paths.suite_log(), 15)
    )
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
