//! Reading what the conformance CLI prints: `conformance list` and the run log.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// What the CLI log says (ANSI escapes removed).
#[derive(Debug, Default)]
pub(crate) struct SuiteLog {
    /// `(scenario, results dir)` in run order, from `Results saved to <dir>`.
    pub(crate) result_dirs: Vec<(String, PathBuf)>,
    /// `(scenario, error)` from `Failed to run scenario <name>: <error>` (no results saved).
    pub(crate) crashed: Vec<(String, String)>,
    /// Scenarios of the `✓|✗ <scenario>: N passed, M failed` summary lines, in run order
    /// (for a run of one `--scenario`, which prints `Test Results:` instead, that scenario).
    pub(crate) summary: Vec<String>,
    /// `(scenario, reason)` listed under `Not scored for <rev>`, e.g. `("tasks-lifecycle",
    /// "extension")`.
    pub(crate) not_scored: Vec<(String, String)>,
}

impl SuiteLog {
    pub(crate) fn parse(raw: &str) -> Self {
        let text = strip_ansi(raw);
        let mut log = Self::default();
        let mut scenario: Option<&str> = None;
        // The scenario of a run of one `--scenario`, which has no `=== Running` header.
        let mut alone: Option<&str> = None;
        let mut in_not_scored = false;
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("=== Running scenario: ") {
                scenario = Some(name.trim_end_matches(" ===").trim());
            } else if let Some(rest) = line.strip_prefix("Running client scenario '") {
                let name = rest.split_once('\'').map_or(rest, |(name, _)| name);
                scenario = Some(name);
                alone = Some(name);
            } else if line.trim() == "Test Results:" {
                log.summary.extend(alone.map(str::to_owned));
            } else if let Some(dir) = line.strip_prefix("Results saved to ") {
                if let Some(name) = scenario.take() {
                    log.result_dirs
                        .push((name.to_owned(), PathBuf::from(dir.trim())));
                }
            } else if let Some(rest) = line.strip_prefix("Failed to run scenario ") {
                let (name, error) = rest.split_once(": ").unwrap_or((rest, "(no message)"));
                log.crashed.push((name.to_owned(), error.to_owned()));
            } else if line.starts_with("Not scored for ") {
                in_not_scored = true;
            } else if line.trim().is_empty() {
                in_not_scored = false;
            } else if let Some(name) = parse_summary_line(line) {
                log.summary.push(name);
            } else if let (true, Some(item)) = (in_not_scored, parse_not_scored_item(line)) {
                log.not_scored.push(item);
            }
        }
        log
    }

    /// Why the CLI did not score `scenario` (`extension`, `pending`, ...), if it says so.
    pub(crate) fn not_scored_reason(&self, scenario: &str) -> Option<&str> {
        self.not_scored
            .iter()
            .find(|(name, _)| name == scenario)
            .map(|(_, reason)| reason.as_str())
    }
}

/// `✓ name: 3 passed, 0 failed` (unindented, in the summary block) → `name`.
fn parse_summary_line(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("✓ ")
        .or_else(|| line.strip_prefix("✗ "))?;
    let (scenario, counts) = rest.split_once(": ")?;
    parse_counts(counts)?;
    Some(scenario.to_owned())
}

/// `  ✓ name (reason)`, `  ✗ name (reason)` → `(name, reason)`.
fn parse_not_scored_item(line: &str) -> Option<(String, String)> {
    let item = line.strip_prefix("  ")?;
    let item = item
        .strip_prefix("✓ ")
        .or_else(|| item.strip_prefix("✗ "))?;
    let (name, reason) = item.split_once(" (").unwrap_or((item, ""));
    let name = name.trim();
    let reason = reason.trim_end().trim_end_matches(')');
    (!name.is_empty()).then(|| (name.to_owned(), reason.to_owned()))
}

/// `N passed, M failed` → `(N, M)`.
fn parse_counts(text: &str) -> Option<(u32, u32)> {
    let (passed, failed) = text.trim().split_once(", ")?;
    let passed = passed.strip_suffix(" passed")?.parse().ok()?;
    let failed = failed.strip_suffix(" failed")?.parse().ok()?;
    Some((passed, failed))
}

/// Removes ANSI escape sequences (`ESC [ ... final-byte`).
pub(crate) fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads the `  - name` lines of the "Server scenarios" block of `conformance list`.
pub(crate) fn parse_scored_listing(listing: &str) -> BTreeSet<String> {
    listing
        .lines()
        .skip_while(|line| !line.starts_with("Server scenarios"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::to_owned)
        .collect()
}

/// The last `lines` lines of a log file (ANSI escapes removed), for panic messages. Count
/// lines such as `Total: 3 passed, 1 failed` are reworded so that they cannot be mistaken for
/// the closing line of a test runner.
pub(crate) fn tail(path: &Path, lines: usize) -> String {
    let text = strip_ansi(&fs::read_to_string(path).unwrap_or_default());
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|line| reword_counts(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `<prefix>: N passed, M failed` → `<prefix>: N ok / M failing`; other lines unchanged.
pub(crate) fn reword_counts(line: &str) -> String {
    let (prefix, counts) = line.rsplit_once(": ").unwrap_or(("", line));
    match parse_counts(counts) {
        Some((passed, failed)) => format!("{prefix}: {passed} ok / {failed} failing"),
        None => line.to_owned(),
    }
}
