//! Whether memory and descriptors stayed flat: the numbers of the summary and the pass/fail
//! rules.
//!
//! For a series (RSS, fds) over the samples taken under load:
//! * start: the first sample;
//! * after warm-up: the mean of the 10 s following the warm-up;
//! * end: the mean of the last 10 s of load;
//! * max, and the least-squares slope per minute after the warm-up.
//!
//! The run passes when RSS at the end is at most [`MAX_RSS_GROWTH`] above its value after
//! warm-up, fds at the end at most [`FD_SLACK`] above theirs, fds once the load has stopped
//! at most [`FD_SLACK`] above those before it started, and no operation failed.

use super::sample::Sample;

/// Largest RSS growth allowed after the warm-up, as a fraction (0.2: 20%).
pub const MAX_RSS_GROWTH: f64 = 0.2;
/// Largest growth of open descriptors allowed (connections come and go under load).
pub const FD_SLACK: f64 = 8.0;
/// Seconds averaged for the "after warm-up" and "end" values.
const WINDOW_S: f64 = 10.0;

/// The course of one series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trend {
    /// First sample.
    pub start: f64,
    /// Mean over the window after the warm-up.
    pub warm: f64,
    /// Mean over the last window.
    pub end: f64,
    /// Largest sample.
    pub max: f64,
    /// Least-squares slope after the warm-up, per minute.
    pub slope_per_min: f64,
}

impl Trend {
    /// The trend of `value` over `samples` (sorted by time), the warm-up ending at
    /// `warmup_s`. `None` without samples after the warm-up.
    pub fn of(samples: &[Sample], warmup_s: f64, value: impl Fn(&Sample) -> f64) -> Option<Self> {
        let first = samples.first()?;
        let last_t = samples.last()?.t;
        let after: Vec<(f64, f64)> = samples
            .iter()
            .filter(|s| s.t >= warmup_s)
            .map(|s| (s.t, value(s)))
            .collect();
        if after.is_empty() {
            return None;
        }
        let warm = mean(after.iter().filter(|(t, _)| *t < warmup_s + WINDOW_S))?;
        let end = mean(after.iter().filter(|(t, _)| *t > last_t - WINDOW_S))?;
        let max = samples.iter().map(&value).fold(f64::MIN, f64::max);
        Some(Self {
            start: value(first),
            warm,
            end,
            max,
            slope_per_min: slope(&after) * 60.0,
        })
    }

    /// `end` relative to `warm` (0.1: 10% more).
    pub fn growth(&self) -> f64 {
        if self.warm > 0.0 {
            self.end / self.warm - 1.0
        } else {
            0.0
        }
    }
}

fn mean<'a>(points: impl Iterator<Item = &'a (f64, f64)>) -> Option<f64> {
    let (sum, n) = points.fold((0.0, 0_u32), |(sum, n), (_, v)| (sum + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// Least-squares slope of `points` (value per unit of time); 0 with fewer than two times.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mean_t = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_v = points.iter().map(|p| p.1).sum::<f64>() / n;
    let (cov, var) = points.iter().fold((0.0, 0.0), |(cov, var), (t, v)| {
        (
            cov + (t - mean_t) * (v - mean_v),
            var + (t - mean_t) * (t - mean_t),
        )
    });
    if var > 0.0 { cov / var } else { 0.0 }
}

/// The pass/fail rules applied to a run; each broken rule is one message.
pub fn problems(
    rss: &Trend,
    fds: &Trend,
    fds_before: u64,
    fds_after: u64,
    failures: u64,
) -> Vec<String> {
    let mut problems = Vec::new();
    if rss.growth() > MAX_RSS_GROWTH {
        problems.push(format!(
            "RSS grew {:.1}% after warm-up ({:.0} -> {:.0} KiB), more than {:.0}%",
            rss.growth() * 100.0,
            rss.warm,
            rss.end,
            MAX_RSS_GROWTH * 100.0
        ));
    }
    if fds.end - fds.warm > FD_SLACK {
        problems.push(format!(
            "open fds grew from {:.1} after warm-up to {:.1} at the end (more than {FD_SLACK})",
            fds.warm, fds.end
        ));
    }
    if fds_after as f64 > fds_before as f64 + FD_SLACK {
        problems.push(format!(
            "{fds_after} fds open once the load stopped, against {fds_before} before it"
        ));
    }
    if failures > 0 {
        problems.push(format!("{failures} operations got an unexpected answer"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(values: &[u64]) -> Vec<Sample> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| Sample {
                t: i as f64,
                rss_kib: v,
                fds: 10,
                threads: 3,
                requests: 0,
                failures: 0,
                stdio_rss_kib: 0,
                stdio_fds: 0,
                stdio_threads: 0,
                stdio_requests: 0,
                stdio_failures: 0,
            })
            .collect()
    }

    #[test]
    fn flat_series_pass() -> anyhow::Result<()> {
        let mut values = vec![1000; 5];
        values.extend(std::iter::repeat_n(2000, 60));
        let s = samples(&values);
        let rss = Trend::of(&s, 5.0, |s| s.rss_kib as f64).ok_or(anyhow::anyhow!("no trend"))?;
        assert_eq!(
            (rss.start, rss.warm, rss.end, rss.max),
            (1000.0, 2000.0, 2000.0, 2000.0)
        );
        assert!(rss.slope_per_min.abs() < 1e-9);
        let fds = Trend::of(&s, 5.0, |s| s.fds as f64).ok_or(anyhow::anyhow!("no trend"))?;
        assert!(problems(&rss, &fds, 10, 10, 0).is_empty());
        Ok(())
    }

    #[test]
    fn growth_fails() -> anyhow::Result<()> {
        let values: Vec<u64> = (0..120).map(|i| 1000 + i * 10).collect();
        let s = samples(&values);
        let rss = Trend::of(&s, 10.0, |s| s.rss_kib as f64).ok_or(anyhow::anyhow!("no trend"))?;
        assert!((rss.slope_per_min - 600.0).abs() < 1e-6);
        assert!(rss.growth() > MAX_RSS_GROWTH);
        let fds = Trend::of(&s, 10.0, |s| s.fds as f64).ok_or(anyhow::anyhow!("no trend"))?;
        let found = problems(&rss, &fds, 10, 30, 2);
        assert_eq!(found.len(), 3, "{found:?}");
        Ok(())
    }
}
