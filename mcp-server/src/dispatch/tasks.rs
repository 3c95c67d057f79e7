//! The tasks extension's side of dispatch: a `tools/call` that becomes a task, the rounds a
//! task runs (on this instance or whichever one the client's answers reach), and
//! `tasks/get`, `tasks/update` and `tasks/cancel`.
//!
//! A call becomes a task when the tool supports tasks, the client declared the extension on
//! this request, and the handler has not finished within the server's task grace (zero by
//! default: as soon as it would wait). The task is stored before `CreateTaskResult` is sent.
//! A handler that asks for input in a task parks it in `input_required`; the round's
//! questions go out under keys unique over the task's life (`{round}.{key}`), the state it
//! asked with stays in the store, and when `tasks/update` has answered every question the
//! instance that received the last answer runs the handler again, through the same guard as
//! a multi-round retry.
//!
//! What a task keeps is bounded: its call holds only the arguments the tool declares (the
//! handler sees the same ones in every round, so states bind alike), within the server's
//! call budget, and a caller has at most its quota of live tasks. A call whose stored call
//! would be over the budget, or that finds the store full, runs as a plain call in the
//! request (the extension lets any call answer directly); a caller over its quota gets
//! [`TASK_QUOTA_EXCEEDED`](crate::tasks::TASK_QUOTA_EXCEEDED).

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use typemcp_core::McpError;
use typemcp_core::jsonrpc::RequestId;
use typemcp_core::protocol::{
    CallToolParams, CallToolResult, CreateTaskResult, DetailedTask, EmptyResult, Outcome,
    TASKS_EXTENSION, TaskIdParams, TaskStatus, UpdateTaskParams, methods,
};

use super::guard::Rounds;
use super::parse_params;
use crate::context::TransportInfo;
use crate::outbound::Outbound;
use crate::registry::ToolRoute;
use crate::tasks::runner::{Driver, Next, RunEnd, TaskRun};
use crate::tasks::{
    Admitted, Changed, StoredCall, TaskRecord, Tasks, caller_key, handler_key, now_ms, orphaned,
};
use crate::{RequestContext, Server};

use typemcp_core::jsonrpc::Params;

/// What a `tools/call` on the 2026-07-28 wire answers.
pub(crate) enum Called {
    /// The tool's outcome.
    Now(Outcome<CallToolResult>),
    /// A task that goes on in the background.
    Task(CreateTaskResult),
}

/// `requiredCapabilities` naming the tasks extension.
pub(super) fn tasks_required() -> McpError {
    McpError::missing_client_capability(serde_json::json!({
        "extensions": { TASKS_EXTENSION: {} }
    }))
}

impl Server {
    /// Runs a call that may become a task (see the module documentation).
    pub(super) async fn start_task(
        &self,
        ctx: RequestContext,
        route: &ToolRoute,
        params: CallToolParams,
    ) -> Result<Called, McpError> {
        let cancellation = CancellationToken::new();
        let request = ctx.cancellation().clone();
        // The task outlives the request: its handler gets a cancellation of its own.
        let ctx = ctx.for_task(cancellation.clone());
        let arguments = params.arguments.unwrap_or_default();
        // Validated as sent; the handler sees, in every round, only what the tool declares.
        let checked = route.check_arguments(&Params::from_object(arguments.clone()));
        let call = StoredCall::declared(&route.tool().input_schema, arguments, ctx.meta().clone());
        // A later round consumes its (single-use) state before the handler runs: such a call
        // is never refused once it started, since its retry would be refused as a replay.
        let resumes_a_flow = params.request_state.is_some();
        let rounds = Rounds::new(
            as_params(&call.arguments),
            params.input_responses,
            params.request_state,
        );
        let (invocation, guard) = self.guard(ctx.clone(), route, rounds).await?;
        if let Err(message) = checked {
            return Ok(Called::Now(Outcome::Complete(CallToolResult::error(
                message,
            ))));
        }
        let mut run: TaskRun = Box::pin(guard.run(route.call(invocation)));
        let grace = self.tasks().settings.grace;
        let first = tokio::select! {
            biased;
            out = first_wait(&mut run, grace) => out,
            () = request.cancelled() => {
                // Cancelled before it became a task: the handler sees it, as on any call.
                cancellation.cancel();
                Some((&mut run).await)
            }
        };
        if let Some(outcome) = first {
            return outcome.map(Called::Now);
        }
        let tasks = self.tasks();
        let call = call.to_raw()?;
        let max_call_bytes = tasks.settings.max_call_bytes;
        if call.get().len() > max_call_bytes {
            tracing::debug!(
                tool = %params.name,
                bytes = call.get().len(),
                max_call_bytes,
                "a call is over the task call budget: it runs as a plain call"
            );
            return run_directly(run, &cancellation, &request).await;
        }
        let now = now_ms();
        let owner = ctx.auth().map(|a| a.subject().to_owned());
        let caller = ctx.transport().caller();
        let record = TaskRecord {
            id: Tasks::new_id()?,
            tool: params.name,
            owner: owner.clone(),
            caller: Some(caller_key(&caller)),
            status: TaskStatus::Working,
            status_message: ctx.take_early_status(),
            created_ms: now,
            updated_ms: now,
            ttl_ms: tasks.ttl_ms(),
            poll_interval_ms: tasks.poll_interval_ms(),
            result: None,
            error: None,
            input: None,
            call: Some(call),
            lease_until_ms: Some(tasks.lease_until(now)),
            rounds: 0,
        };
        match tasks.create(&record).await {
            Ok(Admitted::Stored) => {}
            Ok(Admitted::NoRoom) => return run_directly(run, &cancellation, &request).await,
            Err(error) if error.code == crate::tasks::TASK_QUOTA_EXCEEDED && resumes_a_flow => {
                tracing::warn!(
                    %caller,
                    "a caller is at its quota of live tasks: a later round of its flow runs as a plain call"
                );
                return run_directly(run, &cancellation, &request).await;
            }
            Err(error) => {
                if error.code == crate::tasks::TASK_QUOTA_EXCEEDED {
                    tracing::warn!(%caller, "a caller is at its quota of live tasks");
                }
                // The handler is dropped: it sees its cancellation first.
                cancellation.cancel();
                return Err(error);
            }
        }
        ctx.attach_task(&record.id);
        tokio::spawn(self.clone().run_task(
            record.id.clone(),
            owner,
            run,
            cancellation,
            ctx.transport().clone(),
            ctx.request_id().clone(),
        ));
        Ok(Called::Task(record.created()))
    }

    /// Runs a task's handler (spawned in the background) until the task settles.
    async fn run_task(
        self,
        id: String,
        owner: Option<String>,
        mut run: TaskRun,
        cancellation: CancellationToken,
        transport: TransportInfo,
        request_id: RequestId,
    ) {
        let (id, owner) = (id.as_str(), owner.as_deref());
        let tasks = self.tasks();
        tasks.started(id, cancellation.clone());
        let driver = Driver {
            tasks,
            id,
            owner,
            cancellation: &cancellation,
            shutdown: self.shutdown_token(),
        };
        loop {
            let end = driver.drive(run).await;
            let state = match driver.settle(end, self.config().max_rounds).await {
                Ok(Next::RunAgain(state)) => state,
                Ok(Next::Settled) | Err(_) => break,
            };
            let next = async {
                let (record, _) = tasks.load(id, owner).await?;
                self.task_round(
                    &record,
                    state,
                    Map::new(),
                    transport.clone(),
                    cancellation.clone(),
                    request_id.clone(),
                )
                .await
            }
            .await;
            match next {
                Ok(next) => run = next,
                Err(error) => {
                    let _ = driver
                        .settle(RunEnd::Finished(Err(error)), self.config().max_rounds)
                        .await;
                    break;
                }
            }
        }
        tasks.stopped(id);
    }

    /// The handler's next run in a task: the stored call, with the round's answers (handler
    /// keys) and the state it asked with, through the multi-round guard.
    async fn task_round(
        &self,
        record: &TaskRecord,
        request_state: Option<String>,
        answers: Map<String, Value>,
        transport: TransportInfo,
        cancellation: CancellationToken,
        request_id: RequestId,
    ) -> Result<TaskRun, McpError> {
        let registry = self.snapshot();
        let Some(route) = registry.tools.get(&record.tool) else {
            tracing::warn!(task = %record.id, tool = %record.tool, "a task's tool was removed");
            return Err(McpError::internal("The task's tool is no longer served"));
        };
        let Some(call) = record.call.as_deref() else {
            return Err(internal_error!(task = %record.id, "a live task has no stored call"));
        };
        let call = StoredCall::from_raw(call)?;
        let ctx = RequestContext::new(
            request_id,
            methods::TOOLS_CALL,
            call.meta,
            cancellation,
            Outbound::Discard,
            transport,
            self.clone(),
        );
        ctx.attach_task(&record.id);
        let rounds = Rounds::new(
            as_params(&call.arguments),
            Some(Value::Object(answers)),
            request_state,
        );
        let (invocation, guard) = self.guard(ctx, &**route, rounds).await?;
        Ok(Box::pin(guard.run(route.call(invocation))))
    }

    /// `tasks/get`: the task as it stands. A working task whose instance stopped renewing
    /// its lease has failed.
    pub(super) async fn get_task(
        &self,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<DetailedTask, McpError> {
        let TaskIdParams { task_id, .. } = parse_params(&params)?;
        let owner = owner(ctx);
        let tasks = self.tasks();
        let (record, _) = tasks.load(&task_id, owner).await?;
        if !orphaned(&record, now_ms()) {
            return Ok(record.into_detailed());
        }
        let record = tasks
            .change(&task_id, owner, |record| {
                if !orphaned(record, now_ms()) {
                    return Changed::Kept;
                }
                tracing::warn!(task = %record.id, "a task's instance stopped before it finished");
                record.fail(McpError::internal("The server running the task stopped"));
                Changed::Stored
            })
            .await?;
        Ok(record.into_detailed())
    }

    /// `tasks/update`: takes the answers to open questions (others are ignored); once every
    /// question of the round is answered, runs the handler's next round here.
    pub(super) async fn update_task(
        &self,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<EmptyResult, McpError> {
        let UpdateTaskParams {
            task_id,
            input_responses,
            ..
        } = parse_params(&params)?;
        let owner = owner(ctx);
        let tasks = self.tasks();
        let max_answer_bytes = tasks.settings.max_call_bytes;
        let mut resume = None;
        let mut too_large = false;
        let record = tasks
            .change(&task_id, owner, |record| {
                resume = None;
                too_large = false;
                if record.status != TaskStatus::InputRequired {
                    return Changed::Kept;
                }
                let Some(round) = record.input.as_mut() else {
                    return Changed::Kept;
                };
                let mut took = false;
                for (key, answer) in &input_responses {
                    if round.pending.shift_remove(key).is_some() {
                        round.answers.insert(key.clone(), answer.clone());
                        took = true;
                    }
                }
                if !took {
                    return Changed::Kept;
                }
                if serde_json::to_string(&round.answers).map_or(usize::MAX, |json| json.len())
                    > max_answer_bytes
                {
                    too_large = true;
                    return Changed::Kept;
                }
                if round.pending.is_empty() {
                    record.status = TaskStatus::Working;
                    record.lease_until_ms = Some(tasks.lease_until(now_ms()));
                    resume = record.input.take();
                }
                Changed::Stored
            })
            .await?;
        if too_large {
            return Err(McpError::invalid_params(format!(
                "The answers are larger than a task keeps ({max_answer_bytes} bytes at most)"
            )));
        }
        if let Some(round) = resume {
            let answers = round
                .answers
                .into_iter()
                .filter_map(|(key, answer)| {
                    handler_key(record.rounds, &key).map(|key| (key.to_owned(), answer))
                })
                .collect();
            let cancellation = CancellationToken::new();
            let next = self
                .task_round(
                    &record,
                    round.request_state,
                    answers,
                    ctx.transport().clone(),
                    cancellation.clone(),
                    ctx.request_id().clone(),
                )
                .await;
            let owner = record.owner.clone();
            match next {
                Ok(run) => {
                    tokio::spawn(self.clone().run_task(
                        record.id,
                        owner,
                        run,
                        cancellation,
                        ctx.transport().clone(),
                        ctx.request_id().clone(),
                    ));
                }
                Err(error) => {
                    let driver = Driver {
                        tasks,
                        id: &record.id,
                        owner: owner.as_deref(),
                        cancellation: &cancellation,
                        shutdown: self.shutdown_token(),
                    };
                    driver
                        .settle(RunEnd::Finished(Err(error)), self.config().max_rounds)
                        .await?;
                }
            }
        }
        Ok(EmptyResult::default())
    }

    /// `tasks/cancel`: a task not finished yet is cancelled (its handler, wherever it runs,
    /// sees its cancellation); a finished one is left as it is. Either way, an empty ack.
    pub(super) async fn cancel_task(
        &self,
        ctx: &RequestContext,
        params: Params,
    ) -> Result<EmptyResult, McpError> {
        let TaskIdParams { task_id, .. } = parse_params(&params)?;
        let tasks = self.tasks();
        tasks
            .change(&task_id, owner(ctx), |record| {
                if record.status.is_terminal() {
                    return Changed::Kept;
                }
                record.settle_as(TaskStatus::Cancelled);
                record.status_message = Some("Cancelled by the client".to_owned());
                Changed::Stored
            })
            .await?;
        tasks.cancel_local(&task_id);
        Ok(EmptyResult::default())
    }

    /// A task's new status message (from its handler), while it works.
    pub(crate) async fn set_task_status(
        &self,
        id: &str,
        owner: Option<&str>,
        message: String,
    ) -> bool {
        self.tasks()
            .change(id, owner, |record| {
                if record.status != TaskStatus::Working
                    || record.status_message.as_deref() == Some(message.as_str())
                {
                    return Changed::Kept;
                }
                record.status_message = Some(message.clone());
                Changed::Stored
            })
            .await
            .is_ok()
    }
}

/// Runs the call for the grace: its outcome if it finished, `None` if it goes on. With no
/// grace, the call is polled once: it becomes a task as soon as it would wait.
async fn first_wait(
    run: &mut TaskRun,
    grace: std::time::Duration,
) -> Option<Result<Outcome<CallToolResult>, McpError>> {
    if grace.is_zero() {
        let polled = std::future::poll_fn(|cx| std::task::Poll::Ready(run.as_mut().poll(cx)));
        match polled.await {
            std::task::Poll::Ready(out) => Some(out),
            std::task::Poll::Pending => None,
        }
    } else {
        tokio::time::timeout(grace, run).await.ok()
    }
}

/// Runs a call that cannot become a task (over the call budget, or no room in the store) to
/// its end in the request, as a plain call.
async fn run_directly(
    mut run: TaskRun,
    cancellation: &CancellationToken,
    request: &CancellationToken,
) -> Result<Called, McpError> {
    let outcome = tokio::select! {
        biased;
        out = &mut run => out,
        () = request.cancelled() => {
            cancellation.cancel();
            (&mut run).await
        }
    };
    outcome.map(Called::Now)
}

/// Whose tasks a request may see: its authenticated subject (`None`: no authentication).
fn owner(ctx: &RequestContext) -> Option<&str> {
    ctx.auth().map(|a| a.subject())
}

/// A stored call's arguments (an object) as the text a round reads.
fn as_params(arguments: &Value) -> Params {
    Params::from_object(arguments.as_object().cloned().unwrap_or_default())
}
