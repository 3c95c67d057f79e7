//! Reading what the conformance CLI prints: `conformance list`, the run log and its summary.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// One `✓|✗ <scenario>: N passed, M failed` line of the CLI summary.
#[derive(Debug)]
pub(crate) struct SummaryLine {
    pub(crate) scenario: String,
    pub(crate) ok: bool,
    pub(crate) passed: u32,
    pub(crate) failed: u32,
}

/// What the CLI log says (ANSI escapes removed).
#[derive(Debug, Default)]
pub(crate) struct SuiteLog {
    /// `(scenario, results dir)` in run order, from `Results saved to <dir>`.
    pub(crate) result_dirs: Vec<(String, PathBuf)>,
    /// `(scenario, error)` from `Failed to run scenario <name>: <error>` (no results saved).
    pub(crate) crashed: Vec<(String, String)>,
    pub(crate) summary: Vec<SummaryLine>,
    /// The `Total: N passed, M failed` line (checks, scored or not).
    pub(crate) total: Option<(u32, u32)>,
    /// Scenarios listed under `Not scored for <rev>` (printed only without a baseline).
    pub(crate) not_scored: Vec<String>,
    /// Baseline verdicts: expected failures, stale entries, unexpected failures.
    pub(crate) expected: Vec<String>,
    pub(crate) stale: Vec<String>,
    pub(crate) unexpected: Vec<String>,
}

/// The list section of the log an indented line belongs to.
#[derive(Clone, Copy)]
enum Section {
    NotScored,
    Expected,
    Stale,
    Unexpected,
}

impl SuiteLog {
    pub(crate) fn parse(raw: &str) -> Self {
        let text = strip_ansi(raw);
        let mut log = Self::default();
        let mut scenario: Option<&str> = None;
        let mut section = None;
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("=== Running scenario: ") {
                scenario = Some(name.trim_end_matches(" ===").trim());
            } else if let Some(dir) = line.strip_prefix("Results saved to ") {
                if let Some(name) = scenario.take() {
                    log.result_dirs
                        .push((name.to_owned(), PathBuf::from(dir.trim())));
                }
            } else if let Some(rest) = line.strip_prefix("Failed to run scenario ") {
                let (name, error) = rest.split_once(": ").unwrap_or((rest, "(no message)"));
                log.crashed.push((name.to_owned(), error.to_owned()));
            } else if let Some(rest) = line.strip_prefix("Total: ") {
                log.total = parse_counts(rest);
            } else if let Some(header) = section_header(line) {
                section = Some(header);
            } else if line.trim().is_empty() {
                section = None;
            } else if let Some(summary) = parse_summary_line(line) {
                log.summary.push(summary);
            } else if let (Some(section), Some(item)) = (section, parse_list_item(line)) {
                log.list_mut(section).push(item);
            }
        }
        log
    }

    fn list_mut(&mut self, section: Section) -> &mut Vec<String> {
        match section {
            Section::NotScored => &mut self.not_scored,
            Section::Expected => &mut self.expected,
            Section::Stale => &mut self.stale,
            Section::Unexpected => &mut self.unexpected,
        }
    }
}

fn section_header(line: &str) -> Option<Section> {
    if line.starts_with("Not scored for ") {
        Some(Section::NotScored)
    } else if line.starts_with("Expected failures (in baseline)") {
        Some(Section::Expected)
    } else if line.starts_with("Stale baseline entries") {
        Some(Section::Stale)
    } else if line.starts_with("Unexpected failures (not in baseline)") {
        Some(Section::Unexpected)
    } else {
        None
    }
}

/// `✓ name: 3 passed, 0 failed` (unindented, in the summary block).
fn parse_summary_line(line: &str) -> Option<SummaryLine> {
    let (ok, rest) = if let Some(rest) = line.strip_prefix("✓ ") {
        (true, rest)
    } else {
        (false, line.strip_prefix("✗ ")?)
    };
    let (scenario, counts) = rest.split_once(": ")?;
    let (passed, failed) = parse_counts(counts)?;
    Some(SummaryLine {
        scenario: scenario.to_owned(),
        ok,
        passed,
        failed,
    })
}

/// `  ~ entry`, `  ✓ entry`, `  ✗ entry (reason)` → `entry`.
fn parse_list_item(line: &str) -> Option<String> {
    let item = line.strip_prefix("  ")?;
    let item = ["~ ", "✓ ", "✗ "]
        .iter()
        .find_map(|mark| item.strip_prefix(mark))?;
    let name = item.split(" (").next().unwrap_or(item).trim();
    (!name.is_empty()).then(|| name.to_owned())
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
