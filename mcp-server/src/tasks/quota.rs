//! The per-caller quota of live tasks: the key a caller's tasks count under in the store, and
//! the error a caller over its quota gets.

use typemcp_core::{ErrorCode, McpError};

use crate::caller::Caller;

/// The code of the error a caller gets when it has as many live tasks (working or waiting
/// for input) as [`max_live_tasks_per_caller`](crate::ServerBuilder::max_live_tasks_per_caller)
/// allows: `-32029`, in the range JSON-RPC leaves to servers. Its `data` carries the quota as
/// `maxLiveTasks`. The caller may retry once one of its tasks settles (or after cancelling one).
pub const TASK_QUOTA_EXCEEDED: ErrorCode = ErrorCode(-32029);

/// The key the store counts `caller`'s live tasks under (opaque; the Redis store hashes it).
pub(crate) fn caller_key(caller: &Caller) -> String {
    match caller {
        Caller::Subject(subject) => format!("subject:{subject}"),
        Caller::Address(ip) => format!("address:{ip}"),
        Caller::Anonymous => "anonymous".to_owned(),
    }
}

/// The error for a caller that has `max_live` live tasks already.
pub(crate) fn exceeded(max_live: usize) -> McpError {
    McpError::new(
        TASK_QUOTA_EXCEEDED,
        format!(
            "Too many live tasks: at most {max_live} working or input_required tasks per caller; \
             wait for one to finish, or cancel one"
        ),
    )
    .with_data(serde_json::json!({ "maxLiveTasks": max_live }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callers_of_each_kind_have_distinct_keys_and_the_error_names_the_limit() {
        let keys = [
            caller_key(&Caller::Subject("1.2.3.4".into())),
            caller_key(&Caller::Address([1, 2, 3, 4].into())),
            caller_key(&Caller::Anonymous),
        ];
        assert_eq!(keys, ["subject:1.2.3.4", "address:1.2.3.4", "anonymous"]);
        let error = exceeded(7);
        assert_eq!(error.code, ErrorCode(-32029));
        assert!(error.message.contains("at most 7"), "{}", error.message);
        assert_eq!(error.data, Some(serde_json::json!({"maxLiveTasks": 7})));
    }
}
