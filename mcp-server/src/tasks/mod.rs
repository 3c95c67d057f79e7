//! Tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663), for tools that run long.
//! The parts: [`store`] (where tasks live), `record` (a task as stored), `quota` (each
//! caller's share of live tasks), `runner` (a handler running as a task: cancellation, lease,
//! outcome), `clock` (timestamps); the methods themselves are the dispatcher's
//! (`dispatch/tasks.rs`).
//!
#![doc = include_str!("../docs/tasks.md")]

mod clock;
mod quota;
mod record;
pub(crate) mod runner;
pub mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use typemcp_core::McpError;
use typemcp_core::protocol::TaskStatus;

pub(crate) use clock::now_ms;
pub use quota::TASK_QUOTA_EXCEEDED;
pub(crate) use quota::caller_key;
pub(crate) use record::{OpenRound, StoredCall, TaskRecord, handler_key, wire_key};
#[cfg(feature = "redis")]
pub use store::RedisTaskStore;
pub use store::{MemoryTaskStore, TaskEntry, TaskShare, TaskStore, TaskStoreError};

/// Whether a tool runs as a task.
///
/// ```
/// use typemcp_server::ToolRoute;
/// use typemcp_server::tasks::TaskSupport;
///
/// let route = ToolRoute::new("export", || async { "done" }).task();
/// assert_eq!(route.task_support(), TaskSupport::Optional);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: every call is answered with the tool's result.
    #[default]
    Never,
    /// For a client that declared the tasks extension on its request, a call that does not
    /// finish within the server's [`task_grace`](crate::ServerBuilder::task_grace) becomes a
    /// task; any other client gets the result when it is ready.
    Optional,
    /// Only for clients that can take a task: one that did not declare the extension gets
    /// `-32021`; for the others, as [`Optional`](Self::Optional) (a call done before the
    /// grace is over still answers at once, as the extension allows).
    Required,
}

/// How long tasks live, how they are polled, and what they may hold (builder settings).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskSettings {
    /// How long after creation a task is kept (`ttlMs`).
    pub(crate) ttl: Duration,
    /// How often clients should poll (`pollIntervalMs`).
    pub(crate) poll_interval: Duration,
    /// How long a call may run before it becomes a task.
    pub(crate) grace: Duration,
    /// How long the running instance vouches for a working task without renewing.
    pub(crate) lease: Duration,
    /// The most bytes of a task's stored call (declared arguments and `_meta`), and of the
    /// answers of one open round.
    pub(crate) max_call_bytes: usize,
    /// The most bytes of a task's result.
    pub(crate) max_result_bytes: usize,
    /// The most live tasks of one caller.
    pub(crate) max_live_per_caller: usize,
    /// The most `taskIds` one `subscriptions/listen` may name.
    pub(crate) max_listen_task_ids: usize,
}

impl TaskSettings {
    /// Default of [`max_call_bytes`](Self::max_call_bytes): 64 KiB.
    pub(crate) const MAX_CALL_BYTES: usize = 64 * 1024;
    /// Default of [`max_result_bytes`](Self::max_result_bytes): 1 MiB.
    pub(crate) const MAX_RESULT_BYTES: usize = 1024 * 1024;
    /// Default of [`max_live_per_caller`](Self::max_live_per_caller).
    pub(crate) const MAX_LIVE_PER_CALLER: usize = 100;
    /// Default of [`max_listen_task_ids`](Self::max_listen_task_ids).
    pub(crate) const MAX_LISTEN_TASK_IDS: usize = 256;
}

impl Default for TaskSettings {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            grace: Duration::ZERO,
            lease: Duration::from_secs(30),
            max_call_bytes: Self::MAX_CALL_BYTES,
            max_result_bytes: Self::MAX_RESULT_BYTES,
            max_live_per_caller: Self::MAX_LIVE_PER_CALLER,
            max_listen_task_ids: Self::MAX_LISTEN_TASK_IDS,
        }
    }
}

/// How many times a change is retried when another instance changed the task meanwhile.
const CHANGE_ATTEMPTS: usize = 16;

/// How many task changes a slow listener may fall behind.
const CHANGE_BACKLOG: usize = 1024;

/// The tasks of a server: its store, its settings, and the tasks running on this instance.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    pub(crate) settings: TaskSettings,
    /// Cancellation of each task whose handler runs on this instance.
    running: Mutex<HashMap<String, CancellationToken>>,
    /// The id of every task changed through this instance.
    changes: broadcast::Sender<String>,
}

debug_fields!(Tasks, settings);

/// Whether a new task was stored.
pub(crate) enum Admitted {
    /// Stored: every instance sharing the store finds it.
    Stored,
    /// The store is full (its count or its bytes): the call is to run as a plain call.
    NoRoom,
}

/// Why a change was not stored.
pub(crate) enum ChangeFailed {
    /// The changed task does not fit in the store's byte budget.
    NoRoom,
    /// Any other reason, as the request's error.
    Error(McpError),
}

/// What a change did to a task.
pub(crate) enum Changed {
    /// Nothing: the record stays as it was.
    Kept,
    /// The record was changed in place and is to be stored, with a new `lastUpdatedAt`.
    Stored,
    /// Bookkeeping only (the lease): stored, but the task the client sees did not change.
    Renewed,
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, settings: TaskSettings) -> Self {
        let (changes, _) = broadcast::channel(CHANGE_BACKLOG);
        Self {
            store,
            settings,
            running: Mutex::new(HashMap::new()),
            changes,
        }
    }

    /// A new, unguessable task id: 128 random bits, hex.
    pub(crate) fn new_id() -> Result<String, McpError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|err| internal_error!(error = %err, "no randomness for a task id"))?;
        Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Stores a new task; once this returns `Stored`, every instance sharing the store finds
    /// it. A caller over its quota gets [`TASK_QUOTA_EXCEEDED`].
    pub(crate) async fn create(&self, record: &TaskRecord) -> Result<Admitted, McpError> {
        let entry = record.to_entry(1)?;
        let share = self.share_of(record);
        match self.store.create(&record.id, entry, &share).await {
            Ok(true) => {
                self.announce(&record.id);
                Ok(Admitted::Stored)
            }
            Ok(false) => Err(internal_error!("a new task id was taken already")),
            Err(TaskStoreError::CallerQuota { max_live }) => Err(quota::exceeded(max_live)),
            Err(err @ (TaskStoreError::Full { .. } | TaskStoreError::OutOfBytes { .. })) => {
                tracing::warn!(error = %err, "no room for a new task: the call runs as a plain call");
                Ok(Admitted::NoRoom)
            }
            Err(err) => Err(store_failed(&err)),
        }
    }

    /// The share of the caller `record` counts against, as it stands.
    fn share_of(&self, record: &TaskRecord) -> TaskShare {
        TaskShare::new(
            record.caller.clone().unwrap_or_default(),
            record.is_live(),
            self.settings.max_live_per_caller,
        )
    }

    /// The task `id`, if it exists and `owner` may see it (`-32602` otherwise, the same for
    /// both, so that ids of other owners cannot be probed).
    pub(crate) async fn load(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<(TaskRecord, u64), McpError> {
        if !minted(id) {
            return Err(unknown_task());
        }
        let entry = self
            .store
            .load(id)
            .await
            .map_err(|err| store_failed(&err))?
            .ok_or_else(unknown_task)?;
        let record = TaskRecord::from_entry(&entry)?;
        if record.owner.as_deref() != owner {
            tracing::warn!(task = %id, "a task was asked for by another subject than its owner");
            return Err(unknown_task());
        }
        Ok((record, entry.version))
    }

    /// The tasks `ids` that exist and `owner` may see, in one read of the store, each with
    /// its version (`None` for the others).
    pub(crate) async fn load_many(
        &self,
        ids: &[String],
        owner: Option<&str>,
    ) -> Result<Vec<Option<(TaskRecord, u64)>>, McpError> {
        let asked: Vec<String> = ids.iter().filter(|id| minted(id)).cloned().collect();
        let entries = self
            .store
            .load_many(&asked)
            .await
            .map_err(|err| store_failed(&err))?;
        let mut found = asked.iter().zip(entries);
        let mut next = found.next();
        let mut records = Vec::with_capacity(ids.len());
        for id in ids {
            let Some((asked_id, entry)) = next.as_ref().filter(|(asked, _)| *asked == id) else {
                records.push(None);
                continue;
            };
            let record = entry
                .as_ref()
                .and_then(|entry| Some((TaskRecord::from_entry(entry).ok()?, entry.version)))
                .filter(|(record, _)| record.id == **asked_id && record.owner.as_deref() == owner);
            records.push(record);
            next = found.next();
        }
        Ok(records)
    }

    /// Applies `change` to the task `id` and stores the result, reading again and retrying
    /// when another instance changed it meanwhile. Returns the record as it stands after.
    pub(crate) async fn change(
        &self,
        id: &str,
        owner: Option<&str>,
        change: impl FnMut(&mut TaskRecord) -> Changed,
    ) -> Result<TaskRecord, McpError> {
        self.try_change(id, owner, change)
            .await
            .map_err(|failed| match failed {
                ChangeFailed::NoRoom => {
                    internal_error!(task = %id, "a changed task does not fit in the task store")
                }
                ChangeFailed::Error(error) => error,
            })
    }

    /// [`change`](Self::change), telling a store without room for the change apart.
    pub(crate) async fn try_change(
        &self,
        id: &str,
        owner: Option<&str>,
        mut change: impl FnMut(&mut TaskRecord) -> Changed,
    ) -> Result<TaskRecord, ChangeFailed> {
        for _ in 0..CHANGE_ATTEMPTS {
            let (mut record, version) = self.load(id, owner).await.map_err(ChangeFailed::Error)?;
            let visible = match change(&mut record) {
                Changed::Kept => return Ok(record),
                Changed::Stored => true,
                Changed::Renewed => false,
            };
            if visible {
                record.updated_ms = now_ms().max(record.updated_ms);
            }
            let entry = record
                .to_entry(version.saturating_add(1))
                .map_err(ChangeFailed::Error)?;
            let share = self.share_of(&record);
            match self.store.replace(id, version, entry, &share).await {
                Ok(true) => {
                    if visible {
                        self.announce(id);
                    }
                    return Ok(record);
                }
                Ok(false) => {}
                Err(TaskStoreError::OutOfBytes { .. }) => return Err(ChangeFailed::NoRoom),
                Err(err) => return Err(ChangeFailed::Error(store_failed(&err))),
            }
        }
        Err(ChangeFailed::Error(internal_error!(
            task = %id,
            "a task kept changing under an update; giving up"
        )))
    }

    /// Registers the cancellation of a task whose handler now runs on this instance.
    pub(crate) fn started(&self, id: &str, cancellation: CancellationToken) {
        self.running_tasks().insert(id.to_owned(), cancellation);
    }

    /// The task's handler no longer runs here.
    pub(crate) fn stopped(&self, id: &str) {
        self.running_tasks().remove(id);
    }

    /// Cancels the handler of task `id` if it runs on this instance.
    pub(crate) fn cancel_local(&self, id: &str) {
        if let Some(token) = self.running_tasks().get(id) {
            token.cancel();
        }
    }

    fn running_tasks(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hears the id of every task changed through this instance from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.changes.subscribe()
    }

    fn announce(&self, id: &str) {
        // No receivers simply means nobody listens.
        let _ = self.changes.send(id.to_owned());
    }

    /// A new record's timing fields, from the settings.
    pub(crate) fn ttl_ms(&self) -> u64 {
        millis(self.settings.ttl)
    }

    pub(crate) fn poll_interval_ms(&self) -> u64 {
        millis(self.settings.poll_interval)
    }

    pub(crate) fn lease_until(&self, now: u64) -> u64 {
        now.saturating_add(millis(self.settings.lease))
    }
}

/// A working task whose lease ran out: its instance stopped without settling it.
pub(crate) fn orphaned(record: &TaskRecord, now: u64) -> bool {
    record.status == TaskStatus::Working && record.lease_until_ms.is_some_and(|until| until < now)
}

pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Whether `id` is one this SDK could have minted (see [`Tasks::new_id`]): any other is
/// unknown without asking the store.
fn minted(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The error for a task id that does not exist, expired, or belongs to someone else.
pub(crate) fn unknown_task() -> McpError {
    McpError::invalid_params("Unknown or expired task")
}

/// A store failure: logged, answered `-32603`.
fn store_failed(err: &TaskStoreError) -> McpError {
    internal_error!(error = %err, "the task store failed")
}
