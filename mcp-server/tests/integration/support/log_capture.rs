//! Captures what the server logs, per test thread: each `#[tokio::test]` runs on its own
//! thread with a current-thread runtime, so the lines a test reads are its own.

use std::cell::RefCell;
use std::sync::Once;

use tracing_subscriber::fmt::format::FmtSpan;

thread_local! {
    /// What was logged on this thread.
    static LOG: RefCell<Vec<u8>> = RefCell::default();
}

/// A writer into this thread's [`LOG`].
struct ThreadLog;

impl std::io::Write for ThreadLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        LOG.with_borrow_mut(|log| log.extend_from_slice(bytes));
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Installs (once per process) a `tracing_subscriber::fmt` subscriber writing every event
/// and span, at every level, into the log of the thread it happens on.
pub fn capture_logs() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        tracing_subscriber::fmt()
            .with_writer(|| ThreadLog)
            .with_ansi(false)
            .without_time()
            .with_max_level(tracing::Level::TRACE)
            .with_span_events(FmtSpan::NEW | FmtSpan::CLOSE)
            .init();
    });
}

/// The lines logged on this thread so far (`LEVEL target: message field=value ...`).
pub fn log_lines() -> Vec<String> {
    LOG.with_borrow(|log| {
        String::from_utf8_lossy(log)
            .lines()
            .map(str::to_owned)
            .collect()
    })
}

/// Forgets what this thread logged so far.
pub fn clear_log() {
    LOG.with_borrow_mut(Vec::clear);
}
