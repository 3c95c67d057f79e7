//! The pinned Python clients of the interoperability tests: a folder of the workspace (for
//! example `interop/python`) holds a `requirements.txt` pinning a client and everything it
//! pulls in, and [`python`] installs it into a virtual environment under
//! `target/<folder with - for />/venv` (with `python3 -m venv` and pip, once per requirements
//! file: a stamp records what was installed), under an exclusive lock so that two test
//! binaries never install the same folder at once.
//!
//! When Python, venv or PyPI is unavailable outside CI, [`python`] returns `None` after a loud
//! message and the test skips itself; under `CI=true` that is a failure.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::{ChildGuard, out_dir, root_dir, tail};

/// How long creating the venv and installing the requirements may take.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// How long one client run (start, connect, every round) may take.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `command` to completion within `timeout`, its output in `log`; whether it succeeded.
fn run_logged(command: &mut Command, log: &Path, timeout: Duration) -> Result<(), String> {
    let mut child = match super::spawn_logged(command, log) {
        Ok(child) => ChildGuard { child },
        Err(e) => return Err(format!("cannot run {command:?}: {e}")),
    };
    match child.wait_timeout(timeout) {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(format!("{command:?} failed ({status}):\n{}", tail(log, 30))),
        None => Err(format!("{command:?} took over {timeout:?}")),
    }
}

/// The directory under `target/` of the client pinned in `folder`.
pub fn out(folder: &str) -> PathBuf {
    out_dir(&folder.replace('/', "-"))
}

/// The venv's Python with the requirements of `folder` installed; `Err` with why it could
/// not be made.
fn install(folder: &str) -> Result<PathBuf, String> {
    let dir = out(folder);
    let lock_path = dir.join("install.lock");
    let lock = File::create(&lock_path).map_err(|e| format!("{lock_path:?}: {e}"))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {lock_path:?}: {e}"))?;
    let requirements = root_dir().join(folder).join("requirements.txt");
    let wanted = fs::read_to_string(&requirements).map_err(|e| format!("{requirements:?}: {e}"))?;
    let venv = dir.join("venv");
    let python = venv.join("bin").join("python");
    let stamp = dir.join("installed.txt");
    if python.exists() && fs::read_to_string(&stamp).is_ok_and(|done| done == wanted) {
        return Ok(python);
    }
    let log = dir.join("install.log");
    let mut create = Command::new("python3");
    create.args(["-m", "venv", "--clear"]).arg(&venv);
    run_logged(&mut create, &log, INSTALL_TIMEOUT)?;
    let mut pip = Command::new(&python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "-r",
    ])
    .arg(&requirements);
    run_logged(&mut pip, &log, INSTALL_TIMEOUT)?;
    fs::write(&stamp, &wanted).map_err(|e| format!("{stamp:?}: {e}"))?;
    Ok(python)
}

/// The Python of the client pinned in `folder`, or `None` (after a loud message) when it
/// cannot be installed outside CI.
pub fn python(folder: &str) -> Option<PathBuf> {
    match install(folder) {
        Ok(python) => Some(python),
        Err(why) if std::env::var_os("CI").is_none() => {
            eprintln!(
                "\n*** SKIPPED: the Python MCP client of {folder} could not be installed \
                 (python3, venv, pip or PyPI unavailable):\n{why}\n*** Under CI=true this fails.\n"
            );
            None
        }
        Err(why) => panic!("the Python MCP client of {folder} could not be installed: {why}"),
    }
}

/// Runs `python script args…` within [`RUN_TIMEOUT`], its output in `target/<folder>/<name>.*`,
/// and returns the JSON report it printed; panics with its output if it failed.
pub fn run_report(python: &Path, folder: &str, script: &str, args: &[&str], name: &str) -> Value {
    let out = out(folder);
    let stdout_path = out.join(format!("{name}.json"));
    let stderr_path = out.join(format!("{name}.stderr"));
    let mut command = Command::new(python);
    command
        .arg(root_dir().join(folder).join(script))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(File::create(&stdout_path).expect("a report file"))
        .stderr(File::create(&stderr_path).expect("a log file"));
    let mut child = ChildGuard::spawn(&mut command);
    let status = child
        .wait_timeout(RUN_TIMEOUT)
        .unwrap_or_else(|| panic!("the Python client ({name}) ran over {RUN_TIMEOUT:?}"));
    let stdout = fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
    assert!(
        status.success(),
        "the Python client ({name}) failed ({status}):\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("the Python client ({name}) printed no JSON report ({e}):\n{stdout}\n{stderr}")
    })
}
