//! Sampling a process's memory and open file descriptors from `/proc` (Linux only), and the
//! CSV the samples are written to.
//!
//! * RSS: `VmRSS` of `/proc/<pid>/status`, in KiB (the resident set now, not its peak);
//! * threads: `Threads` of the same file;
//! * file descriptors: the entries of `/proc/<pid>/fd`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;

/// One sample of the server processes (HTTP, and stdio when there is one), and the load's
/// counters at that moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Seconds since the load started.
    pub t: f64,
    /// Resident set, KiB.
    pub rss_kib: u64,
    /// Open file descriptors.
    pub fds: u64,
    /// Threads.
    pub threads: u64,
    /// Requests sent so far.
    pub requests: u64,
    /// Failed operations so far.
    pub failures: u64,
    /// The stdio server's resident set, KiB (0 without one).
    pub stdio_rss_kib: u64,
    /// The stdio server's open file descriptors.
    pub stdio_fds: u64,
    /// The stdio server's threads.
    pub stdio_threads: u64,
    /// Lines sent to the stdio server so far.
    pub stdio_requests: u64,
    /// Failed stdio operations so far.
    pub stdio_failures: u64,
}

/// Memory, threads and descriptors of process `pid`: `(rss_kib, threads, fds)`.
pub fn read_proc(pid: u32) -> anyhow::Result<(u64, u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("cannot read /proc/{pid}/status"))?;
    let rss = status_field(&status, "VmRSS:").context("no VmRSS in /proc/<pid>/status")?;
    let threads = status_field(&status, "Threads:").unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .with_context(|| format!("cannot list /proc/{pid}/fd"))?
        .count();
    Ok((rss, threads, fds as u64))
}

/// The number after `name` on its line of a `/proc/<pid>/status` text (`kB` ignored).
fn status_field(status: &str, name: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Writes `samples` as CSV to `path`.
pub fn write_csv(path: &Path, samples: &[Sample]) -> anyhow::Result<()> {
    let mut out = String::from(
        "t_s,rss_kib,fds,threads,requests,failures,\
         stdio_rss_kib,stdio_fds,stdio_threads,stdio_requests,stdio_failures\n",
    );
    for s in samples {
        let _ = writeln!(
            out,
            "{:.1},{},{},{},{},{},{},{},{},{},{}",
            s.t,
            s.rss_kib,
            s.fds,
            s.threads,
            s.requests,
            s.failures,
            s.stdio_rss_kib,
            s.stdio_fds,
            s.stdio_threads,
            s.stdio_requests,
            s.stdio_failures
        );
    }
    std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_status_fields() {
        let status = "Name:\tsoak_server\nVmHWM:\t  9000 kB\nVmRSS:\t    8123 kB\nThreads:\t3\n";
        assert_eq!(status_field(status, "VmRSS:"), Some(8123));
        assert_eq!(status_field(status, "Threads:"), Some(3));
        assert_eq!(status_field(status, "VmSwap:"), None);
    }

    #[test]
    fn reads_this_process() -> anyhow::Result<()> {
        let (rss, threads, fds) = read_proc(std::process::id())?;
        assert!(rss > 0 && threads > 0 && fds >= 3);
        Ok(())
    }
}
