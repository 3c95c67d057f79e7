//! The peer SDKs of the comparison table, pinned, installed on first use:
//!
//! * the official TypeScript SDK, `@modelcontextprotocol/sdk` 1.32.2 (the version the
//!   workspace's interoperability tests pin in `interop/ts-legacy`), from
//!   `benchmarks/peers/ts/` (`package.json` + `package-lock.json`, installed with `npm ci`),
//!   serving with `node server.mjs stdio | http <port>`;
//! * the official Python SDK, `mcp` 1.30.0 with every dependency pinned (the pins of
//!   `interop/python-legacy`), from `benchmarks/peers/python/requirements.txt`, installed
//!   with pip into a venv under `target/bench-peers/python/`, serving with
//!   `python server.py stdio | http <port>`.
//!
//! Both speak protocol 2025-11-25 (`initialize` and a session), not the 2026 stateless wire:
//! the table drives them with the session-mode client. When Node/npm or Python/venv/PyPI is
//! missing, the peer is skipped with the reason ([`Peer::locate`] returns `Err`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::command::ServerCommand;

/// A peer SDK's servers: the HTTP command takes the port as a last argument.
#[derive(Debug, Clone)]
pub struct Peer {
    /// `node server.mjs http` or `python server.py http` (the port is appended).
    pub http: ServerCommand,
    /// `node server.mjs stdio` or `python server.py stdio`.
    pub stdio: ServerCommand,
}

/// Which peer SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerKind {
    /// `@modelcontextprotocol/sdk` from npm.
    TypeScript,
    /// `mcp` from PyPI.
    Python,
}

/// The pinned TypeScript SDK version (`peers/ts/package.json`).
pub const TS_SDK_VERSION: &str = "1.32.2";
/// The pinned Python SDK version (`peers/python/requirements.txt`).
pub const PYTHON_SDK_VERSION: &str = "1.30.0";

impl Peer {
    /// Installs (when needed) and returns the peer's servers, or why it cannot run here.
    pub fn locate(kind: PeerKind) -> Result<Self, String> {
        match kind {
            PeerKind::TypeScript => typescript(),
            PeerKind::Python => python(),
        }
    }
}

fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peers")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
        },
        PathBuf::from,
    )
}

/// Runs `command`, its output discarded unless it fails; `Err` says what went wrong.
fn run_quietly(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let log = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = log.lines().rev().take(8).collect();
    Err(format!(
        "{what} failed ({}): {}",
        output.status,
        tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
    ))
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn typescript() -> Result<Peer, String> {
    let dir = peers_dir().join("ts");
    if !on_path("node") || !on_path("npm") {
        return Err("node and npm are not both on PATH".into());
    }
    let manifest = dir
        .join("node_modules")
        .join("@modelcontextprotocol")
        .join("sdk")
        .join("package.json");
    let installed = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|v| v["version"] == TS_SDK_VERSION);
    if !installed {
        eprintln!("[typescript] npm ci in {}", dir.display());
        run_quietly(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&dir),
            "npm ci",
        )?;
    }
    let base = ServerCommand::new("node").arg("server.mjs").in_dir(&dir);
    Ok(Peer {
        http: base.clone().arg("http"),
        stdio: base.arg("stdio"),
    })
}

fn python() -> Result<Peer, String> {
    let dir = peers_dir().join("python");
    let requirements = dir.join("requirements.txt");
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    let out = target_dir().join("bench-peers").join("python");
    let venv = out.join("venv");
    let python = venv.join("bin").join("python");
    let stamp = out.join("installed.txt");
    let installed = python.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted);
    if !installed {
        if !on_path("python3") {
            return Err("python3 is not on PATH".into());
        }
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("[python] installing the pinned SDK into {}", venv.display());
        run_quietly(
            Command::new("python3")
                .args(["-m", "venv", "--clear"])
                .arg(&venv),
            "python3 -m venv",
        )?;
        run_quietly(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--no-input",
                    "-q",
                    "-r",
                ])
                .arg(&requirements),
            "pip install",
        )?;
        std::fs::write(&stamp, &wanted).map_err(|e| format!("{}: {e}", stamp.display()))?;
    }
    let base = ServerCommand::new(python).arg("server.py").in_dir(&dir);
    Ok(Peer {
        http: base.clone().arg("http"),
        stdio: base.arg("stdio"),
    })
}
