//! The suite's client scenarios, run against `examples/conformance_client.rs` (a client built
//! on `typemcp-client`, in its automatic era selection): the suite starts a mock server per
//! scenario and runs the client against it. Every scenario in [`CLIENT_SCENARIOS`] must save
//! its `checks.json` with no FAILURE and no WARNING check and at least one SUCCESS, and the
//! CLI must exit with 0. Results land in `target/conformance/client/<scenario>/`, the CLI's
//! output in `target/conformance/client-<scenario>.log`.
//!
//! The OAuth scenarios (`auth/*`) are not run: the client has no OAuth yet.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::common::{self, ChildGuard};
use crate::log::tail;

/// Every client scenario of 0.2.0-alpha.12 outside OAuth.
pub(crate) const CLIENT_SCENARIOS: [&str; 15] = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

/// Upper bound for one scenario (the suite's own client timeout is 30 s).
const SCENARIO_TIMEOUT: Duration = Duration::from_mins(1);

/// What one scenario's checks came to.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) success: usize,
    pub(crate) skipped: usize,
    /// `id: message` of each FAILURE or WARNING check.
    pub(crate) bad: Vec<String>,
}

/// Counts the checks of every `checks.json` under `dir`.
pub(crate) fn tally(dir: &Path) -> Tally {
    tally_where(dir, "")
}

/// Counts the checks of every `checks.json` under `dir` whose folder's name starts with
/// `prefix` (the suite names a scenario's folder `server-<scenario>-<time>`).
pub(crate) fn tally_where(dir: &Path, prefix: &str) -> Tally {
    let mut tally = Tally::default();
    let chosen = checks_files(dir).into_iter().filter(|file| {
        file.parent()
            .and_then(Path::file_name)
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with(prefix))
    });
    for file in chosen {
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {file:?}: {e}"));
        let checks: Vec<Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file:?} is not a list: {e}"));
        for check in checks {
            let field = |name: &str| check.get(name).and_then(Value::as_str).unwrap_or_default();
            match field("status") {
                "SUCCESS" => tally.success += 1,
                "SKIPPED" => tally.skipped += 1,
                "FAILURE" | "WARNING" => tally.bad.push(format!(
                    "{} {}: {}",
                    field("status"),
                    field("id"),
                    field("errorMessage")
                )),
                _ => {}
            }
        }
    }
    tally
}

fn checks_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(checks_files(&path));
        } else if path.file_name().is_some_and(|name| name == "checks.json") {
            found.push(path);
        }
    }
    found
}

/// Runs `scenario` against the client at `client`; the CLI's exit code.
fn run_scenario(command: &mut std::process::Command, scenario: &str, out: &Path) -> i32 {
    let results = out.join("client").join(scenario);
    if results.exists() {
        fs::remove_dir_all(&results).unwrap_or_else(|e| panic!("clear {results:?}: {e}"));
    }
    let log = out.join(format!("client-{}.log", scenario.replace('/', "_")));
    command
        .args(["--scenario", scenario])
        .arg("-o")
        .arg(&results);
    let mut cli = ChildGuard::spawn_logged(command, &log);
    let Some(status) = cli.wait_timeout(SCENARIO_TIMEOUT) else {
        panic!(
            "client scenario {scenario} did not finish within {SCENARIO_TIMEOUT:?}:\n{}",
            tail(&log, 40)
        );
    };
    status.code().unwrap_or(-1)
}

/// Runs every scenario of [`CLIENT_SCENARIOS`]; `cli` makes a fresh `conformance` command.
pub(crate) fn run_all(cli: impl Fn() -> std::process::Command, out: &Path) -> Vec<String> {
    let client = common::example_binary("conformance_client");
    let mut problems = Vec::new();
    let mut lines = Vec::new();
    for scenario in CLIENT_SCENARIOS {
        let mut command = cli();
        command.arg("client").arg("--command").arg(&client);
        let exit = run_scenario(&mut command, scenario, out);
        let tally = tally(&out.join("client").join(scenario));
        lines.push(format!(
            "  {scenario}: checks {} ok, {} skipped, {} failing or warning; CLI exit code {exit}",
            tally.success,
            tally.skipped,
            tally.bad.len()
        ));
        if exit != 0 || tally.success == 0 || !tally.bad.is_empty() {
            problems.push(format!(
                "{scenario}: exit {exit}, {} ok, {:?} (log {:?})",
                tally.success,
                tally.bad,
                out.join(format!("client-{scenario}.log"))
            ));
        }
    }
    let passed = CLIENT_SCENARIOS.len() - problems.len();
    lines.insert(
        0,
        format!(
            "conformance client (typemcp-client, automatic era): {passed}/{} scenarios ok",
            CLIENT_SCENARIOS.len()
        ),
    );
    crate::report(&lines.join("\n"));
    problems
}
