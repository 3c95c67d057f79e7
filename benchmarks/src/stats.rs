//! Per-cell counters and latency percentiles.
//!
//! Each load-generating task owns a [`Recorder`]; only requests that start and
//! complete inside the measuring window are counted, so warm-up and the tail
//! after the window do not leak into the rate. Recorders are merged into one
//! [`CellStats`] per cell.

use std::time::{Duration, Instant};

use crate::protocol::ReplyError;

/// The measuring window of a cell.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Start of the measurement (end of the warm-up).
    pub start: Instant,
    /// End of the measurement.
    pub end: Instant,
}

impl Window {
    /// A window that opens after `warmup` and lasts `measure`, counted from now.
    pub fn after(warmup: Duration, measure: Duration) -> Self {
        let start = Instant::now() + warmup;
        Self {
            start,
            end: start + measure,
        }
    }

    /// Whether a request sent at `sent` and answered at `done` lies inside the window.
    pub fn contains(&self, sent: Instant, done: Instant) -> bool {
        sent >= self.start && done <= self.end
    }

    /// Length of the window.
    pub fn duration(&self) -> Duration {
        self.end.saturating_duration_since(self.start)
    }
}

/// Counts and latencies gathered by one load-generating task.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Latencies (nanoseconds) of successful requests inside the window.
    latencies_ns: Vec<u64>,
    /// Latencies (nanoseconds) of multi-request flows completed inside the window,
    /// first request sent to last reply.
    flow_latencies_ns: Vec<u64>,
    /// Requests of the flows counted in `flow_latencies_ns`.
    flow_requests: u64,
    /// Errors seen at any time (warm-up included: a broken target is broken).
    errors: u64,
    /// Replies that passed the full validation.
    validated: u64,
    /// First error seen, for the report.
    first_error: Option<String>,
}

impl Recorder {
    /// Records one successful request.
    pub fn success(&mut self, window: &Window, sent: Instant, done: Instant) {
        if window.contains(sent, done) {
            let nanos = done.saturating_duration_since(sent).as_nanos();
            self.latencies_ns
                .push(u64::try_from(nanos).unwrap_or(u64::MAX));
        }
    }

    /// Records one flow of `requests` requests that all succeeded (three rounds; a task's
    /// creation and its polls), from its first request's send to its last reply (counted
    /// only when both lie inside the window).
    pub fn flow_success(
        &mut self,
        window: &Window,
        started: Instant,
        done: Instant,
        requests: u64,
    ) {
        if window.contains(started, done) {
            let nanos = done.saturating_duration_since(started).as_nanos();
            self.flow_latencies_ns
                .push(u64::try_from(nanos).unwrap_or(u64::MAX));
            self.flow_requests += requests;
        }
    }

    /// Records that a reply passed the full validation.
    pub fn validated(&mut self) {
        self.validated += 1;
    }

    /// Records one failed request.
    pub fn error(&mut self, error: &ReplyError) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(error.to_string());
        }
    }

    /// Number of errors recorded so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }
}

/// Result of one (target, scenario) cell.
#[derive(Debug, Clone, Default)]
pub struct CellStats {
    /// Successful requests inside the window.
    pub requests: u64,
    /// Failed requests (any time in the cell).
    pub errors: u64,
    /// Replies that passed the full validation.
    pub validated: u64,
    /// Length of the measuring window.
    pub window: Duration,
    /// Median latency.
    pub p50: Duration,
    /// 99th-percentile latency.
    pub p99: Duration,
    /// Flows (multi-request scenarios: three-round flows, tasks) completed inside the
    /// window; 0 elsewhere.
    pub flows: u64,
    /// Requests of the flows counted in `flows` (a task's: its creation and its polls).
    pub flow_requests: u64,
    /// Median latency of a whole flow.
    pub flow_p50: Duration,
    /// 99th-percentile latency of a whole flow.
    pub flow_p99: Duration,
    /// First error seen, if any.
    pub first_error: Option<String>,
    /// CPU time the server process used inside the window, when it is a child process whose
    /// accounting could be read (see [`crate::proc_stats`]).
    pub server_cpu: Option<Duration>,
    /// Peak resident set of the server process at the end of the cell, in KiB.
    pub server_peak_rss_kib: Option<u64>,
}

impl CellStats {
    /// Merges the recorders of one cell.
    pub fn merge(window: &Window, recorders: impl IntoIterator<Item = Recorder>) -> Self {
        let mut latencies = Vec::new();
        let mut flow_latencies = Vec::new();
        let mut stats = Self {
            window: window.duration(),
            ..Self::default()
        };
        for recorder in recorders {
            latencies.extend(recorder.latencies_ns);
            flow_latencies.extend(recorder.flow_latencies_ns);
            stats.flow_requests += recorder.flow_requests;
            stats.errors += recorder.errors;
            stats.validated += recorder.validated;
            if stats.first_error.is_none() {
                stats.first_error = recorder.first_error;
            }
        }
        latencies.sort_unstable();
        stats.requests = latencies.len() as u64;
        stats.p50 = Duration::from_nanos(percentile(&latencies, 50.0));
        stats.p99 = Duration::from_nanos(percentile(&latencies, 99.0));
        flow_latencies.sort_unstable();
        stats.flows = flow_latencies.len() as u64;
        stats.flow_p50 = Duration::from_nanos(percentile(&flow_latencies, 50.0));
        stats.flow_p99 = Duration::from_nanos(percentile(&flow_latencies, 99.0));
        stats
    }

    /// Completed flows per second inside the window.
    pub fn flows_per_sec(&self) -> f64 {
        let secs = self.window.as_secs_f64();
        if secs > 0.0 {
            self.flows as f64 / secs
        } else {
            0.0
        }
    }

    /// Requests per completed flow (for tasks: one creation plus the polls), if any completed.
    pub fn requests_per_flow(&self) -> Option<f64> {
        (self.flows > 0).then(|| self.flow_requests as f64 / self.flows as f64)
    }

    /// Successful requests per second inside the window.
    pub fn rps(&self) -> f64 {
        let secs = self.window.as_secs_f64();
        if secs > 0.0 {
            self.requests as f64 / secs
        } else {
            0.0
        }
    }

    /// Server CPU time per request answered in the window, when it was measured.
    pub fn cpu_per_call(&self) -> Option<Duration> {
        let cpu = self.server_cpu?;
        let requests = u32::try_from(self.requests).ok().filter(|&n| n > 0)?;
        Some(cpu / requests)
    }

    /// Whether the target answered every request correctly and at least one was measured.
    pub fn healthy(&self) -> bool {
        self.errors == 0 && self.requests > 0 && self.validated > 0
    }
}

/// Nearest-rank percentile of sorted values (0 when empty).
fn percentile(sorted: &[u64], pct: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((pct / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let values: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&values, 50.0), 50);
        assert_eq!(percentile(&values, 99.0), 99);
        assert_eq!(percentile(&[5], 99.0), 5);
        assert_eq!(percentile(&[], 50.0), 0);
    }

    #[test]
    fn counts_only_inside_window() {
        let now = Instant::now();
        let window = Window {
            start: now,
            end: now + Duration::from_secs(1),
        };
        let mut recorder = Recorder::default();
        recorder.success(&window, now, now + Duration::from_millis(2));
        recorder.success(
            &window,
            now + Duration::from_millis(999),
            now + Duration::from_secs(2),
        );
        recorder.validated();
        let stats = CellStats::merge(&window, [recorder]);
        assert_eq!(stats.requests, 1);
        assert_eq!(stats.p50, Duration::from_millis(2));
        assert!(stats.healthy());
        assert!((stats.rps() - 1.0).abs() < 1e-9);
        assert_eq!(stats.flows, 0);
        assert_eq!(stats.requests_per_flow(), None);
    }

    #[test]
    fn counts_flows_inside_window() {
        let now = Instant::now();
        let window = Window {
            start: now,
            end: now + Duration::from_secs(2),
        };
        let mut recorder = Recorder::default();
        recorder.flow_success(&window, now, now + Duration::from_millis(3), 2);
        recorder.flow_success(&window, now, now + Duration::from_millis(5), 3);
        recorder.flow_success(&window, now, now + Duration::from_secs(3), 4);
        let stats = CellStats::merge(&window, [recorder]);
        assert_eq!(stats.flows, 2);
        assert_eq!(stats.requests_per_flow(), Some(2.5));
        assert_eq!(stats.flow_p50, Duration::from_millis(3));
        assert_eq!(stats.flow_p99, Duration::from_millis(5));
        assert!((stats.flows_per_sec() - 1.0).abs() < 1e-9);
    }
}
