//! Finding the stdio server executables (`[[bin]]` targets of this crate).
//!
//! In order:
//! 1. a path the bench got at compile time (cargo sets `CARGO_BIN_EXE_<name>`
//!    when it compiles benchmarks and integration tests, and builds the bins
//!    first), passed in through [`BinLocator::with_known`];
//! 2. the profile directory of the running executable (`target/<profile>/`,
//!    the parent of the bench's `deps/` directory);
//! 3. `$CARGO build -p mcp-benchmarks --bins --release` (once), then 2 again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

/// Resolves bin names to executable paths.
#[derive(Debug, Default)]
pub struct BinLocator {
    known: HashMap<&'static str, PathBuf>,
    built: bool,
}

impl BinLocator {
    /// A locator that knows `name` lives at `path` (when `path` is `Some`).
    pub fn with_known(mut self, name: &'static str, path: Option<&str>) -> Self {
        if let Some(path) = path {
            self.known.insert(name, PathBuf::from(path));
        }
        self
    }

    /// The executable of bin `name`, building the crate's bins if needed.
    pub fn locate(&mut self, name: &str) -> anyhow::Result<PathBuf> {
        if let Some(path) = self.known.get(name).filter(|p| p.is_file()) {
            return Ok(path.clone());
        }
        if let Some(path) = beside_current_exe(name)? {
            return Ok(path);
        }
        if !self.built {
            self.built = true;
            build_bins()?;
            if let Some(path) = beside_current_exe(name)? {
                return Ok(path);
            }
        }
        bail!(
            "cannot find the `{name}` executable; run `cargo build -p mcp-benchmarks --bins --release`"
        )
    }
}

fn exe_name(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

fn beside_current_exe(name: &str) -> anyhow::Result<Option<PathBuf>> {
    let exe = std::env::current_exe().context("cannot resolve the current executable")?;
    let candidates = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir: &Path| dir.join(exe_name(name)));
    Ok(candidates.into_iter().find(|p| p.is_file()))
}

fn build_bins() -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("building the stdio servers: cargo build -p mcp-benchmarks --bins --release");
    let status = Command::new(cargo)
        .args(["build", "-p", "mcp-benchmarks", "--bins", "--release"])
        .status()
        .context("cannot run cargo to build the stdio servers")?;
    if !status.success() {
        bail!("building the stdio servers failed: {status}");
    }
    Ok(())
}
