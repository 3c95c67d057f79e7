//! How a server process is started: a program, its arguments, and where it is pinned.
//!
//! The comparison table ([`crate::table`]) runs every server as a child process so that its
//! CPU time and memory can be read from `/proc` ([`crate::proc_stats`]). On a machine with two
//! cores or more and `taskset` (util-linux) on `PATH`, the server is started under
//! `taskset -c 0` and the load generator pins itself to core 1 ([`pin_self`]), the setup of
//! the issue that asked for the table; elsewhere nothing is pinned and the report says so.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use anyhow::Context as _;

/// The core servers are pinned to, when pinning is possible.
pub const SERVER_CORE: usize = 0;
/// The core the load generator pins itself to, when pinning is possible.
pub const LOAD_CORE: usize = 1;

/// A command line that starts a server.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Its working directory (the caller's when `None`).
    pub dir: Option<PathBuf>,
}

impl ServerCommand {
    /// `program` with no arguments.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            dir: None,
        }
    }

    /// This command with one more argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// This command run in `dir`.
    #[must_use]
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// This command pinned to `core` with `taskset -c`, when [`can_pin`]; unchanged otherwise.
    #[must_use]
    pub fn pinned(self, core: usize) -> Self {
        let Some(taskset) = taskset().filter(|_| can_pin()) else {
            return self;
        };
        let mut args = vec![
            OsString::from("-c"),
            core.to_string().into(),
            self.program.into_os_string(),
        ];
        args.extend(self.args);
        Self {
            program: taskset.to_path_buf(),
            args,
            dir: self.dir,
        }
    }

    /// A tokio command with piped stdin and stdout, stderr inherited, killed when dropped.
    pub fn tokio(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }

    /// A std command with piped stdin, stdout discarded, stderr inherited.
    pub fn std(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }

    /// The command line, for messages.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|s| s.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `taskset` on `PATH`, if there is one.
pub fn taskset() -> Option<&'static Path> {
    static TASKSET: OnceLock<Option<PathBuf>> = OnceLock::new();
    TASKSET
        .get_or_init(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|dir| dir.join("taskset"))
                .find(|p| p.is_file())
        })
        .as_deref()
}

/// Whether servers and the load generator can get a core each: `taskset` exists, the machine
/// has at least two cores, and `TABLE_PIN` is not `0`.
pub fn can_pin() -> bool {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let wanted = !matches!(std::env::var("TABLE_PIN").as_deref(), Ok("0"));
    wanted && cores >= 2 && taskset().is_some()
}

/// Pins this process (its threads so far, and so every thread and child it starts later) to
/// [`LOAD_CORE`] with `taskset -a -p`; returns whether it did.
pub fn pin_self() -> anyhow::Result<bool> {
    let Some(taskset) = taskset().filter(|_| can_pin()) else {
        return Ok(false);
    };
    let status = std::process::Command::new(taskset)
        .args(["-a", "-p", "-c", &LOAD_CORE.to_string()])
        .arg(std::process::id().to_string())
        .stdout(Stdio::null())
        .status()
        .context("cannot run taskset")?;
    anyhow::ensure!(status.success(), "taskset -a -p failed: {status}");
    Ok(true)
}

/// A loopback port that was free a moment ago (bound, then released), for a server process
/// to listen on.
pub fn free_port() -> anyhow::Result<u16> {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").context("cannot bind a loopback port")?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_wraps_the_command_in_taskset() {
        let command = ServerCommand::new("/bin/server").arg("http").arg("80");
        assert_eq!(command.display(), "/bin/server http 80");
        let pinned = command.clone().pinned(0);
        if can_pin() {
            assert!(
                pinned
                    .display()
                    .ends_with("taskset -c 0 /bin/server http 80")
            );
        } else {
            assert_eq!(pinned.display(), command.display());
        }
    }
}
