//! Run configuration, read from `LOAD_*` environment variables.
//!
//! | variable | default | meaning |
//! | --- | --- | --- |
//! | `LOAD_WARMUP_MS` | `2000` | warm-up per cell, not measured |
//! | `LOAD_MEASURE_MS` | `5000` | measuring window per cell |
//! | `LOAD_HTTP_CONCURRENCY` | `1,64` | HTTP workers per cell, one keep-alive connection each (`none`: skip HTTP) |
//! | `LOAD_FLOW_CONCURRENCY` | `1,64` | HTTP workers of the three-round flow scenario (`none`: skip it) |
//! | `LOAD_SESSION_CONCURRENCY` | `1,64` | HTTP workers of the 2025-11-25 session scenario, one session per connection (`none`: skip it) |
//! | `LOAD_TASK_CONCURRENCY` | `1,64` | HTTP workers of the task scenario, each creating a task and polling it to completion (`none`: skip it) |
//! | `LOAD_STDIO_IN_FLIGHT` | `1,64` | stdio requests pipelined per cell (`none`: skip stdio) |
//! | `LOAD_SERVER_THREADS` | `2` | worker threads of the servers' runtime |
//! | `LOAD_CLIENT_THREADS` | `2` | worker threads of the load generator's runtime |
//! | `LOAD_MAX_REQUESTS` | `10000000` | hard cap on requests sent per cell (warm-up included) |
//! | `LOAD_TIMEOUT_MS` | `5000` | one request's timeout; a timeout counts as an error |
//! | `LOAD_SAMPLE_EVERY` | `64` | full validation of every N-th response (all get a cheap check) |
//! | `LOAD_TARGETS` | all | comma-separated target names to run, e.g. `bare-hyper,rmcp` (`ours-redis`: the flow with single use over Redis) |

use std::time::Duration;

use anyhow::{Context as _, bail};

/// Settings of one harness run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// Warm-up duration of each cell.
    pub warmup: Duration,
    /// Measuring window of each cell.
    pub measure: Duration,
    /// Concurrency levels of the HTTP scenarios.
    pub http_concurrency: Vec<usize>,
    /// Concurrency levels of the three-round flow scenario (HTTP).
    pub flow_concurrency: Vec<usize>,
    /// Concurrency levels of the 2025-11-25 session scenario (HTTP).
    pub session_concurrency: Vec<usize>,
    /// Concurrency levels of the task scenario (HTTP, the tasks extension).
    pub task_concurrency: Vec<usize>,
    /// Pipelining depths of the stdio scenarios.
    pub stdio_in_flight: Vec<usize>,
    /// Worker threads given to the servers' runtime.
    pub server_threads: usize,
    /// Worker threads given to the load generator's runtime.
    pub client_threads: usize,
    /// Upper bound on requests sent in one cell.
    pub max_requests: u64,
    /// Timeout of one request.
    pub request_timeout: Duration,
    /// Every N-th response is validated in full.
    pub sample_every: u64,
    /// When set, only targets with these names run.
    pub targets: Option<Vec<String>>,
}

impl Default for LoadConfig {
    fn default() -> Self {
        Self {
            warmup: Duration::from_millis(2_000),
            measure: Duration::from_millis(5_000),
            http_concurrency: vec![1, 64],
            flow_concurrency: vec![1, 64],
            session_concurrency: vec![1, 64],
            task_concurrency: vec![1, 64],
            stdio_in_flight: vec![1, 64],
            server_threads: 2,
            client_threads: 2,
            max_requests: 10_000_000,
            request_timeout: Duration::from_millis(5_000),
            sample_every: 64,
            targets: None,
        }
    }
}

impl LoadConfig {
    /// Reads the configuration from the environment, falling back to defaults.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    /// Reads the configuration through `lookup` (the environment in production).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let defaults = Self::default();
        let millis = |key: &str, default: Duration| -> anyhow::Result<Duration> {
            match lookup(key) {
                Some(v) => Ok(Duration::from_millis(parse_u64(key, &v)?)),
                None => Ok(default),
            }
        };
        let number = |key: &str, default: u64| -> anyhow::Result<u64> {
            match lookup(key) {
                Some(v) => parse_u64(key, &v),
                None => Ok(default),
            }
        };
        let list = |key: &str, default: &[usize]| -> anyhow::Result<Vec<usize>> {
            match lookup(key) {
                Some(v) => parse_list(key, &v),
                None => Ok(default.to_vec()),
            }
        };
        let config = Self {
            warmup: millis("LOAD_WARMUP_MS", defaults.warmup)?,
            measure: millis("LOAD_MEASURE_MS", defaults.measure)?,
            http_concurrency: list("LOAD_HTTP_CONCURRENCY", &defaults.http_concurrency)?,
            flow_concurrency: list("LOAD_FLOW_CONCURRENCY", &defaults.flow_concurrency)?,
            session_concurrency: list("LOAD_SESSION_CONCURRENCY", &defaults.session_concurrency)?,
            task_concurrency: list("LOAD_TASK_CONCURRENCY", &defaults.task_concurrency)?,
            stdio_in_flight: list("LOAD_STDIO_IN_FLIGHT", &defaults.stdio_in_flight)?,
            server_threads: to_usize(number("LOAD_SERVER_THREADS", 2)?)?,
            client_threads: to_usize(number("LOAD_CLIENT_THREADS", 2)?)?,
            max_requests: number("LOAD_MAX_REQUESTS", defaults.max_requests)?,
            request_timeout: millis("LOAD_TIMEOUT_MS", defaults.request_timeout)?,
            sample_every: number("LOAD_SAMPLE_EVERY", defaults.sample_every)?.max(1),
            targets: lookup("LOAD_TARGETS").map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            }),
        };
        if config.measure.is_zero() {
            bail!("LOAD_MEASURE_MS must be greater than 0");
        }
        if config.server_threads == 0 || config.client_threads == 0 {
            bail!("LOAD_SERVER_THREADS and LOAD_CLIENT_THREADS must be at least 1");
        }
        Ok(config)
    }

    /// Whether the target called `name` is selected by `LOAD_TARGETS`.
    pub fn wants(&self, name: &str) -> bool {
        self.targets
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }
}

fn parse_u64(key: &str, value: &str) -> anyhow::Result<u64> {
    value
        .trim()
        .parse()
        .with_context(|| format!("{key}={value:?} is not a non-negative integer"))
}

fn to_usize(value: u64) -> anyhow::Result<usize> {
    usize::try_from(value).context("value does not fit in usize")
}

fn parse_list(key: &str, value: &str) -> anyhow::Result<Vec<usize>> {
    if value.trim().is_empty() || value.trim() == "none" {
        return Ok(Vec::new());
    }
    let items = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| parse_u64(key, s).and_then(to_usize))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if items.is_empty() || items.contains(&0) {
        bail!("{key}={value:?} must list positive integers");
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_without_environment() -> anyhow::Result<()> {
        let config = LoadConfig::from_lookup(|_| None)?;
        assert_eq!(config.warmup, Duration::from_secs(2));
        assert_eq!(config.measure, Duration::from_secs(5));
        assert_eq!(config.http_concurrency, vec![1, 64]);
        assert_eq!(config.flow_concurrency, vec![1, 64]);
        assert_eq!(config.session_concurrency, vec![1, 64]);
        assert_eq!(config.task_concurrency, vec![1, 64]);
        assert!(config.wants("rmcp"));
        Ok(())
    }

    #[test]
    fn reads_overrides() -> anyhow::Result<()> {
        let config = LoadConfig::from_lookup(|key| match key {
            "LOAD_WARMUP_MS" => Some("10".into()),
            "LOAD_MEASURE_MS" => Some("20".into()),
            "LOAD_HTTP_CONCURRENCY" => Some("2, 8".into()),
            "LOAD_TARGETS" => Some("bare-hyper".into()),
            "LOAD_FLOW_CONCURRENCY" => Some("none".into()),
            "LOAD_SESSION_CONCURRENCY" => Some("64".into()),
            "LOAD_TASK_CONCURRENCY" => Some("none".into()),
            _ => None,
        })?;
        assert_eq!(config.session_concurrency, vec![64]);
        assert!(config.task_concurrency.is_empty());
        assert!(config.flow_concurrency.is_empty());
        assert_eq!(config.warmup, Duration::from_millis(10));
        assert_eq!(config.measure, Duration::from_millis(20));
        assert_eq!(config.http_concurrency, vec![2, 8]);
        assert!(config.wants("bare-hyper"));
        assert!(!config.wants("rmcp"));
        Ok(())
    }

    #[test]
    fn rejects_bad_values() {
        assert!(LoadConfig::from_lookup(|k| (k == "LOAD_MEASURE_MS").then(|| "x".into())).is_err());
        assert!(
            LoadConfig::from_lookup(|k| (k == "LOAD_HTTP_CONCURRENCY").then(|| "0".into()))
                .is_err()
        );
        assert!(
            LoadConfig::from_lookup(|k| (k == "LOAD_HTTP_CONCURRENCY").then(|| "none".into()))
                .is_ok_and(|c| c.http_concurrency.is_empty())
        );
    }
}
