//! Time for tasks: Unix milliseconds, and their ISO 8601 spelling on the wire.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in Unix milliseconds.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `ms` (Unix milliseconds) as ISO 8601 in UTC, to the millisecond: `2026-12-01T10:00:00.000Z`.
pub(crate) fn iso8601(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_iso8601_with_milliseconds() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_764_583_200_123), "2025-12-01T10:00:00.123Z");
        assert!(now_ms() > 1_764_583_200_000);
    }
}
