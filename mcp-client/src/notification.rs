//! What the server says outside any answer: [`Notification`]s (progress, log messages, lists
//! that changed), handed to the function given to
//! [`ClientBuilder::on_notification`](crate::ClientBuilder::on_notification).

use serde_json::Value;
use typemcp_core::protocol::{LoggingMessageParams, ProgressParams};

/// One notification of the server's.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Notification {
    /// Its method (`notifications/progress`, `notifications/message`, …).
    pub method: String,
    /// Its params, as sent.
    pub params: Value,
}

impl Notification {
    /// The progress it reports, if it is `notifications/progress`.
    pub fn progress(&self) -> Option<ProgressParams> {
        self.typed("notifications/progress")
    }

    /// The log message it carries, if it is `notifications/message`.
    pub fn log_message(&self) -> Option<LoggingMessageParams> {
        self.typed("notifications/message")
    }

    fn typed<T: serde::de::DeserializeOwned>(&self, method: &str) -> Option<T> {
        (self.method == method)
            .then(|| serde_json::from_value(self.params.clone()).ok())
            .flatten()
    }
}
