//! A server process's own accounting, read from `/proc` (Linux; `None` elsewhere).
//!
//! * CPU time: `utime + stime` of `/proc/<pid>/stat` (fields 14 and 15, every thread of the
//!   process, in clock ticks of `getconf CLK_TCK`, 100 per second here). Read at the start and
//!   at the end of the measuring window; the difference divided by the requests answered in
//!   the window is the CPU per call. Ticks are coarse (10 ms), but a 5 s window holds hundreds.
//!   (`/proc/<pid>/schedstat` counts nanoseconds but only for the main thread, and summing
//!   `task/*/schedstat` loses threads that exit, such as tokio's blocking pool.)
//! * Peak RSS: `VmHWM` of `/proc/<pid>/status`, the high-water mark of the resident set.

use std::sync::OnceLock;
use std::time::Duration;

use crate::stats::Window;

/// Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`; 100 when it cannot be run).
pub fn clock_ticks() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .filter(|&t| t > 0)
            .unwrap_or(100)
    })
}

/// CPU time (user + system, all threads) process `pid` has used so far.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_cpu_ticks(&stat).map(|ticks| ticks_to_duration(ticks, clock_ticks()))
}

/// `utime + stime` of a `/proc/<pid>/stat` line.
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // `rest` starts at field 3 (state); utime is field 14, stime 15.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

fn ticks_to_duration(ticks: u64, per_second: u64) -> Duration {
    let nanos = u128::from(ticks) * 1_000_000_000 / u128::from(per_second.max(1));
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// Peak resident set size of process `pid` so far, in KiB (`VmHWM`).
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_vm_hwm(&status)
}

fn parse_vm_hwm(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()
}

/// CPU time process `pid` uses inside `window`: read when the window opens and when it
/// closes (sleeping in between).
pub async fn cpu_in_window(pid: Option<u32>, window: Window) -> Option<Duration> {
    let pid = pid?;
    tokio::time::sleep_until(window.start.into()).await;
    let before = cpu_time(pid)?;
    tokio::time::sleep_until(window.end.into()).await;
    let after = cpu_time(pid)?;
    Some(after.saturating_sub(before))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_utime_and_stime() {
        let stat = "1234 (tokio (worker)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 3 0";
        assert_eq!(parse_cpu_ticks(stat), Some(281));
        assert_eq!(ticks_to_duration(281, 100), Duration::from_millis(2810));
        assert_eq!(parse_cpu_ticks("garbage"), None);
    }

    #[test]
    fn reads_the_high_water_mark() {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    4321 kB\nVmRSS:\t 4000 kB\n";
        assert_eq!(parse_vm_hwm(status), Some(4321));
        assert_eq!(parse_vm_hwm("Name: x\n"), None);
    }

    #[test]
    fn this_process_has_accounting() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let pid = std::process::id();
        assert!(cpu_time(pid).is_some());
        assert!(peak_rss_kib(pid).is_some_and(|kib| kib > 0));
    }
}
