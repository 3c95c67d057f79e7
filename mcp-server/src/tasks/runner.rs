//! A handler running as a task, on this instance: it is driven in the background until it
//! finishes, is cancelled (`tasks/cancel` here, or on another instance: the task is read
//! again every poll interval) or the server shuts down, while its lease is renewed; then
//! its outcome is written into the task: a result within the server's budget, or the
//! failure that says why not (a result too large, or no room left in the store for it).

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;
use typemcp_core::McpError;
use typemcp_core::protocol::{CallToolResult, InputRequiredResult, Outcome, TaskStatus};

use super::{ChangeFailed, Changed, OpenRound, TaskRecord, Tasks, now_ms, wire_key};

/// One run of the handler: a round of the task.
pub(crate) type TaskRun = BoxFuture<'static, Result<Outcome<CallToolResult>, McpError>>;

/// How long a cancelled handler may take to wind down before it is dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// How a run ended.
pub(crate) enum RunEnd {
    /// The handler returned.
    Finished(Result<Outcome<CallToolResult>, McpError>),
    /// The handler panicked.
    Panicked,
    /// The task was cancelled.
    Cancelled,
    /// The server shut down.
    ShutDown,
}

/// What comes after a run.
pub(crate) enum Next {
    /// Nothing: the task is settled (or waits for the client's answers).
    Settled,
    /// The handler returned a state without questions: run it again with that state.
    RunAgain(Option<String>),
}

/// Who runs a task, and what stops it.
pub(crate) struct Driver<'a> {
    pub(crate) tasks: &'a Tasks,
    pub(crate) id: &'a str,
    pub(crate) owner: Option<&'a str>,
    pub(crate) cancellation: &'a CancellationToken,
    pub(crate) shutdown: &'a CancellationToken,
}

impl Driver<'_> {
    /// Drives `run` to its end.
    pub(crate) async fn drive(&self, run: TaskRun) -> RunEnd {
        let mut run = AssertUnwindSafe(run).catch_unwind();
        let every = self
            .tasks
            .settings
            .poll_interval
            .max(Duration::from_millis(10));
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                out = &mut run => {
                    return match out {
                        Ok(out) => RunEnd::Finished(out),
                        Err(_) => RunEnd::Panicked,
                    };
                }
                () = self.cancellation.cancelled() => {
                    // Cooperative: the handler sees its cancellation and may wind down.
                    let _ = tokio::time::timeout(CANCEL_GRACE, &mut run).await;
                    return RunEnd::Cancelled;
                }
                () = self.shutdown.cancelled() => return RunEnd::ShutDown,
                _ = tick.tick() => self.watch().await,
            }
        }
    }

    /// Between polls of the handler: learns of a cancellation made on another instance, and
    /// renews the lease when a third of it is left.
    async fn watch(&self) {
        let tasks = self.tasks;
        let lease = super::millis(tasks.settings.lease);
        let renewed = tasks
            .change(self.id, self.owner, |record| {
                let now = now_ms();
                let left = record.lease_until_ms.unwrap_or(0).saturating_sub(now);
                if record.status != TaskStatus::Working || left > lease / 3 * 2 {
                    return Changed::Kept;
                }
                record.lease_until_ms = Some(tasks.lease_until(now));
                Changed::Renewed
            })
            .await;
        match renewed {
            Ok(record) if record.status != TaskStatus::Working => self.cancellation.cancel(),
            Ok(_) => {}
            // Gone (expired) is as good as cancelled; a store failure is logged, and the
            // handler goes on (the next tick tries again).
            Err(err) if err.code == typemcp_core::ErrorCode::INVALID_PARAMS => {
                self.cancellation.cancel();
            }
            Err(_) => {}
        }
    }

    /// Writes how the run ended into the task (unless it was cancelled meanwhile). An
    /// outcome the store has no room for fails the task instead.
    pub(crate) async fn settle(&self, end: RunEnd, max_rounds: u32) -> Result<Next, McpError> {
        let id = self.id;
        let max_result_bytes = self.tasks.settings.max_result_bytes;
        let mut next = Next::Settled;
        let settled = self
            .tasks
            .try_change(id, self.owner, |record| {
                next = Next::Settled;
                if record.status != TaskStatus::Working {
                    return Changed::Kept;
                }
                match &end {
                    RunEnd::Finished(Ok(Outcome::Complete(result))) => {
                        complete(record, result, max_result_bytes);
                    }
                    RunEnd::Finished(Ok(Outcome::InputRequired(asked))) => {
                        next = ask(record, asked, max_rounds);
                    }
                    RunEnd::Finished(Err(error)) => record.fail(error.clone()),
                    RunEnd::Panicked => {
                        record.fail(internal_error!(task = %id, "a task's handler panicked"));
                    }
                    RunEnd::ShutDown => record.fail(McpError::internal(
                        "The server stopped before the task finished",
                    )),
                    RunEnd::Cancelled => return Changed::Kept,
                }
                Changed::Stored
            })
            .await;
        match settled {
            Ok(_) => Ok(next),
            Err(ChangeFailed::Error(error)) => Err(error),
            Err(ChangeFailed::NoRoom) => {
                tracing::warn!(task = %id, "the task store has no room for a task's outcome");
                self.tasks
                    .change(id, self.owner, |record| {
                        if record.status != TaskStatus::Working {
                            return Changed::Kept;
                        }
                        record.fail(McpError::internal(
                            "The task's outcome did not fit in the task store",
                        ));
                        Changed::Stored
                    })
                    .await?;
                Ok(Next::Settled)
            }
        }
    }
}

/// Counts the bytes written to it.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The task completes with `result`, if its JSON is within `max_bytes`; otherwise it fails,
/// saying so (never a truncated result).
fn complete(record: &mut TaskRecord, result: &CallToolResult, max_bytes: usize) {
    let mut size = ByteCount(0);
    if serde_json::to_writer(&mut size, result).is_ok() && size.0 > max_bytes {
        tracing::warn!(
            task = %record.id,
            bytes = size.0,
            max_bytes,
            "a task's result is over the result budget; the task fails"
        );
        record.fail(McpError::internal(format!(
            "The task's result is larger than the server keeps ({max_bytes} bytes at most)"
        )));
        return;
    }
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(result)) => {
            record.settle_as(TaskStatus::Completed);
            record.result = Some(result);
        }
        _ => {
            let error =
                internal_error!(task = %record.id, "a task's result could not be serialized");
            record.fail(error);
        }
    }
}

/// The handler asked for input: the task waits for the client's answers under keys no
/// earlier round used. A state without questions means "run me again".
fn ask(record: &mut TaskRecord, asked: &InputRequiredResult, max_rounds: u32) -> Next {
    if record.rounds >= max_rounds {
        let error = internal_error!(
            task = %record.id,
            max_rounds,
            "a task asked for input too many times"
        );
        record.fail(error);
        return Next::Settled;
    }
    record.rounds += 1;
    let requests = asked.input_requests.clone().unwrap_or_default();
    if requests.is_empty() {
        return Next::RunAgain(asked.request_state.clone());
    }
    let round = record.rounds;
    record.status = TaskStatus::InputRequired;
    record.lease_until_ms = None;
    record.input = Some(OpenRound {
        pending: requests
            .into_iter()
            .map(|(key, request)| (wire_key(round, &key), request))
            .collect(),
        answers: serde_json::Map::new(),
        request_state: asked.request_state.clone(),
    });
    Next::Settled
}
