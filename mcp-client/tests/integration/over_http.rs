//! The client against a server of this workspace over Streamable HTTP on a loopback port, in
//! both eras: listing, plain calls, a two-round flow (2026-07-28 `input_required` rounds, and
//! in a 2025-11-25 session the questions pushed on the call's event stream and answered by
//! `POST`s of their own), arguments mirrored into `Mcp-Param-*` headers (the server refuses a
//! call without them), a stream the server closes mid-call resumed with `Last-Event-ID`,
//! progress on a call's event stream, a `subscriptions/listen` stream and its filter, `ping`,
//! completion, and a session deleted by `close`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::json;
use tokio::net::TcpListener;
use typemcp_client::typemcp_core::protocol::{CompletionReference, SubscriptionFilter};
use typemcp_client::{Client, ClientError, Era, EraChoice, Reply, Scripted, ToolResultExt};
use typemcp_server::state::{Continuation, Reply as Answered, Round, Step};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{CompletionRequest, ElicitForm, RequestContext, Server, prompt, tool};

/// Confirm the deploy.
#[derive(ElicitForm, Serialize)]
pub(crate) struct Confirm {
    /// Go ahead?
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
pub(crate) enum Flow {
    #[awaits(confirm: Confirm)]
    Confirming,
}

/// Deploys once confirmed.
#[tool]
async fn deploy(target: String, round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: format!("Deploy to {target}?").into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Answered::Accepted(Confirm { ok: true }),
        }) => Step::done(format!("Deployed to {target}.")),
        Some(FlowAnswered::Confirming { .. }) => Step::done("Not deployed."),
    }
}

/// Runs a query in a region, the region mirrored as `Mcp-Param-Region`.
#[tool]
async fn query(
    /// Where to run.
    #[arg(header = "Region")]
    region: String,
    /// Whether to only plan it, mirrored as `Mcp-Param-Dry-Run`.
    #[arg(header = "Dry-Run")]
    dry_run: Option<bool>,
) -> String {
    format!("region={region} dry_run={}", dry_run.unwrap_or(false))
}

/// Closes the call's event stream before it answers (a no-op on the 2026-07-28 wire).
#[tool]
async fn interrupted(ctx: RequestContext) -> &'static str {
    ctx.close_sse_stream().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    "answered after the stream was resumed"
}

/// Counts to three, reporting each step as progress.
#[tool]
async fn count(ctx: RequestContext) -> &'static str {
    for step in 1..=3 {
        ctx.report_progress(f64::from(step), Some(3.0), None).await;
    }
    "counted"
}

/// Changes what the server offers, as far as its clients can tell.
#[tool]
async fn grow(ctx: RequestContext) -> &'static str {
    ctx.server().notify_prompts_list_changed();
    ctx.server().notify_tools_list_changed();
    "grown"
}

/// Adds two numbers, as a task when the client takes tasks.
#[tool(task)]
async fn add_later(a: i64, b: i64) -> i64 {
    tokio::time::sleep(Duration::from_millis(50)).await;
    a + b
}

async fn cities(request: CompletionRequest) -> Vec<String> {
    ["paris", "parma", "oslo"]
        .iter()
        .filter(|city| city.starts_with(&request.value))
        .map(|city| (*city).to_owned())
        .collect()
}

/// Plans a trip.
#[prompt(complete(city = cities))]
async fn trip(
    /// Where to.
    city: String,
) -> String {
    format!("Plan a trip to {city}.")
}

/// The test server.
fn test_server() -> Server {
    Server::builder()
        .tool(deploy)
        .tool(query)
        .tool(interrupted)
        .tool(count)
        .tool(grow)
        .tool(add_later)
        .prompt(trip)
        .build()
        .unwrap()
}

/// Serves the test server on a loopback port; its `/mcp` URL.
async fn serve() -> String {
    serve_server(test_server()).await
}

/// Serves `server` on a loopback port; its `/mcp` URL.
async fn serve_server(server: Server) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let config = HttpConfig::default().sse_retry(Duration::from_millis(200));
    tokio::spawn(server.serve_http_on(listener, config, std::future::pending()));
    url
}

async fn connect(url: &str, era: EraChoice) -> Client {
    Client::builder()
        .era(era)
        .answers(Scripted::new().reply("confirm", Reply::accept(&Confirm { ok: true })))
        .connect_http(url)
        .await
        .unwrap()
}

#[tokio::test]
async fn both_eras_list_call_and_run_a_two_round_flow_over_http() {
    let url = serve().await;
    for (choice, era) in [
        (EraChoice::Automatic, Era::Modern),
        (EraChoice::Session, Era::Session),
    ] {
        let client = connect(&url, choice).await;
        assert_eq!(client.era(), era);
        let tools: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|tool| tool.name)
            .collect();
        assert_eq!(
            tools,
            [
                "deploy",
                "query",
                "interrupted",
                "count",
                "grow",
                "add_later"
            ],
            "{era:?}"
        );
        let done = client
            .call_tool("deploy", json!({"target": "staging"}))
            .await
            .unwrap();
        assert_eq!(done.text(), "Deployed to staging.", "{era:?}");
        client.ping().await.unwrap();
    }
}

#[tokio::test]
async fn mirrored_arguments_travel_as_headers_the_server_checks() {
    let url = serve().await;
    // Not listed first: the client lists the tools itself to learn what to mirror.
    let client = connect(&url, EraChoice::Modern).await;
    for (region, dry_run) in [("eu-west-1", true), ("Région du Nord ", false)] {
        let answer = client
            .call_tool("query", json!({"region": region, "dry_run": dry_run}))
            .await
            .unwrap();
        assert!(!answer.is_tool_error(), "{answer:?}");
        assert_eq!(answer.text(), format!("region={region} dry_run={dry_run}"));
    }
}

/// Told once [`slow`]'s handler was stopped.
static STOPPED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Tells [`STOPPED`] when dropped.
struct Stopped;

impl Drop for Stopped {
    fn drop(&mut self) {
        STOPPED.notify_one();
    }
}

/// Never answers on its own: waits to be cancelled.
#[tool]
async fn slow(ctx: RequestContext) -> String {
    let _stopped = Stopped;
    ctx.cancellation().cancelled().await;
    "cancelled".to_owned()
}

#[tokio::test]
async fn a_call_past_its_timeout_is_cancelled_in_each_eras_way() {
    let server = test_server();
    server.add_tool(slow).unwrap();
    let url = serve_server(server).await;
    // 2026-07-28: by closing the call's stream (HTTP has no cancellation notification there);
    // 2025-11-25: by `notifications/cancelled`.
    for era in [EraChoice::Modern, EraChoice::Session] {
        let client = Client::builder()
            .era(era)
            .request_timeout(Duration::from_millis(300))
            .connect_http(&url)
            .await
            .unwrap();
        let error = client.call_tool("slow", json!({})).await.unwrap_err();
        assert!(
            matches!(error, ClientError::TimedOut { .. }),
            "{era:?}: {error:?}"
        );
        tokio::time::timeout(Duration::from_secs(5), STOPPED.notified())
            .await
            .unwrap_or_else(|_| panic!("{era:?}: the server never stopped the call"));
        let listed = client.list_tools().await.unwrap();
        assert!(
            listed.iter().any(|tool| tool.name == "slow"),
            "{era:?}: serves on"
        );
    }
}

/// `query` as the server has it once it changed.
mod changed {
    use typemcp_server::state::{Round, Step};
    use typemcp_server::tool;

    use super::Flow;

    /// Runs a query in a zone, mirrored as `Mcp-Param-Zone`.
    #[tool]
    pub(crate) async fn query(
        /// Where to run.
        #[arg(header = "Zone")]
        zone: String,
    ) -> String {
        format!("zone={zone}")
    }

    /// [`super::plan_job`], its region now mirrored as `Mcp-Param-Zone`.
    #[tool]
    pub(crate) async fn plan_job(
        /// Where to plan it.
        #[arg(header = "Zone")]
        region: String,
        round: Round<Flow>,
    ) -> Step<Flow, String> {
        super::plan(region, round)
    }
}

/// Plans a job in a region, mirrored as `Mcp-Param-Region`, once confirmed.
#[tool]
async fn plan_job(
    /// Where to plan it.
    #[arg(header = "Region")]
    region: String,
    round: Round<Flow>,
) -> Step<Flow, String> {
    plan(region, round)
}

/// The flow of both `plan_job`s.
fn plan(region: String, round: Round<Flow>) -> Step<Flow, String> {
    match round.resume() {
        None => round.ask(FlowAsking::Confirming {
            confirm: format!("Plan in {region}?").into(),
        }),
        Some(FlowAnswered::Confirming {
            confirm: Answered::Accepted(Confirm { ok: true }),
        }) => Step::done(format!("planned in {region}")),
        Some(FlowAnswered::Confirming { .. }) => Step::done("not planned".to_owned()),
    }
}

/// Confirms, and while the user answers, the server's `plan_job` changes its header.
struct ConfirmsWhileTheToolChanges {
    server: Server,
    asked: std::sync::atomic::AtomicUsize,
}

impl typemcp_client::Answers for ConfirmsWhileTheToolChanges {
    fn answer<'a>(
        &'a self,
        _question: typemcp_client::Question<'a>,
    ) -> futures_util::future::BoxFuture<'a, Result<Reply, ClientError>> {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert!(self.server.remove_tool("plan_job"));
        self.server.add_tool(changed::plan_job).unwrap();
        Box::pin(async { Ok(Reply::accept(&Confirm { ok: true })) })
    }
}

#[tokio::test]
async fn a_tool_whose_header_changed_between_rounds_is_resent_in_the_same_round() {
    let server = Server::builder().tool(plan_job).build().unwrap();
    let url = serve_server(server.clone()).await;
    let answers = Arc::new(ConfirmsWhileTheToolChanges {
        server,
        asked: Default::default(),
    });
    let client = Client::builder()
        .era(EraChoice::Modern)
        .answers(Arc::clone(&answers))
        .connect_http(&url)
        .await
        .unwrap();
    // Round 2 goes with the old header, is refused (-32020), and goes again with the new one
    // and the same answer and state: the user is not asked twice.
    let done = client
        .call_tool("plan_job", json!({"region": "eu"}))
        .await
        .unwrap();
    assert_eq!(done.text(), "planned in eu");
    assert_eq!(answers.asked.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// Runs a report for a team, mirrored as `Mcp-Param-Team`: a tool the server adds later.
#[tool]
async fn report(
    /// Whose report.
    #[arg(header = "Team")]
    team: String,
) -> String {
    format!("report for {team}")
}

#[tokio::test]
async fn tools_added_or_changed_since_they_were_listed_get_the_headers_they_have_now() {
    let server = test_server();
    let url = serve_server(server.clone()).await;
    let client = connect(&url, EraChoice::Modern).await;
    let listed = client.list_tools().await.unwrap();
    assert!(!listed.iter().any(|tool| tool.name == "report"));
    // Added after the listing: not in the client's table, so the tools are listed again.
    server.add_tool(report).unwrap();
    let answer = client
        .call_tool("report", json!({"team": "ops"}))
        .await
        .unwrap();
    assert_eq!(answer.text(), "report for ops", "{answer:?}");
    // Changed after the listing: the old headers are refused (-32020), the tools listed
    // again, and the call sent once more with the new ones.
    assert!(server.remove_tool("query"));
    server.add_tool(changed::query).unwrap();
    let answer = client
        .call_tool("query", json!({"zone": "north"}))
        .await
        .unwrap();
    assert_eq!(answer.text(), "zone=north", "{answer:?}");
}

#[tokio::test]
async fn a_session_stream_closed_mid_call_is_resumed_with_last_event_id() {
    let url = serve().await;
    let client = connect(&url, EraChoice::Session).await;
    let answer = client.call_tool("interrupted", json!({})).await.unwrap();
    assert_eq!(answer.text(), "answered after the stream was resumed");
}

#[tokio::test]
async fn completion_over_http() {
    let url = serve().await;
    let client = connect(&url, EraChoice::Automatic).await;
    let reference = CompletionReference::Prompt {
        name: "trip".to_owned(),
        title: None,
    };
    let completed = client
        .complete(reference, "city", "par", None)
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["paris", "parma"]);
}

/// The status line of a raw `POST` of `tools/list` in the session `session` to `url`.
async fn status_in_session(url: &str, session: &str) -> String {
    raw_in_session(url, "POST", session).await
}

/// The status line of a raw `method` (`POST` of `tools/list`, or `DELETE`) in the session
/// `session` to `url`.
async fn raw_in_session(url: &str, method: &str, session: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    let body = if method == "POST" { body } else { "" };
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Mcp-Session-Id: {session}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_closed_session_is_gone_on_the_server() {
    let url = serve().await;
    let client = connect(&url, EraChoice::Session).await;
    let session = client.session_id().expect("a session id");
    assert!(status_in_session(&url, &session).await.contains("200"));
    client.close().await.unwrap();
    assert!(status_in_session(&url, &session).await.contains("404"));
    // The modern wire has no session to close.
    let modern = connect(&url, EraChoice::Modern).await;
    assert_eq!(modern.session_id(), None);
    modern.close().await.unwrap();
}

#[tokio::test]
async fn a_session_the_server_ended_is_opened_anew_and_the_call_goes_through() {
    let url = serve().await;
    let client = connect(&url, EraChoice::Session).await;
    let ended = client.session_id().expect("a session id");
    let deleted = raw_in_session(&url, "DELETE", &ended).await;
    assert!(deleted.contains(" 20"), "{deleted}");
    // The call finds the session gone (404): the client starts a new one and sends the call
    // again, and the question the server pushes reaches it on the new session's stream.
    let done = client
        .call_tool("deploy", json!({"target": "prod"}))
        .await
        .unwrap();
    assert_eq!(done.text(), "Deployed to prod.");
    let opened = client.session_id().expect("a new session id");
    assert_ne!(opened, ended);
    assert!(status_in_session(&url, &opened).await.contains("200"));
    assert!(status_in_session(&url, &ended).await.contains("404"));
    let listed = client.list_tools().await.unwrap();
    assert!(listed.iter().any(|tool| tool.name == "deploy"));
}

#[tokio::test]
async fn a_method_the_server_does_not_know_is_its_error_not_the_end_of_the_session() {
    // A server without prompts answers prompts/list with Method not found, over HTTP a 404:
    // the session is still there, and the error is the server's.
    let server = Server::builder().tool(deploy).build().unwrap();
    let url = serve_server(server).await;
    let client = connect(&url, EraChoice::Session).await;
    let session = client.session_id().expect("a session id");
    let error = client.list_prompts().await.unwrap_err();
    assert_eq!(error.code(), Some(-32601), "{error:?}");
    assert_eq!(client.session_id(), Some(session));
}

#[tokio::test]
async fn an_endpoint_that_is_not_http_is_refused_clearly() {
    for url in ["https://example.com/mcp", "not a url", "ftp://host/mcp"] {
        let error = Client::builder().connect_http(url).await.unwrap_err();
        assert!(
            matches!(error, ClientError::Endpoint { .. }),
            "{url}: {error:?}"
        );
    }
}

#[tokio::test]
async fn a_server_that_is_not_there_is_an_io_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let error = Client::builder().connect_http(&url).await.unwrap_err();
    assert!(matches!(error, ClientError::Io(_)), "{error:?}");
}

#[tokio::test]
async fn progress_arrives_on_the_event_stream_of_the_call_in_both_eras() {
    let url = serve().await;
    for era in [EraChoice::Modern, EraChoice::Session] {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&seen);
        let client = Client::builder()
            .era(era)
            .on_notification(move |notification| {
                if let Some(progress) = notification.progress() {
                    sink.lock().unwrap().push(progress.progress);
                }
            })
            .connect_http(&url)
            .await
            .unwrap();
        let done = client.call_tool("count", json!({})).await.unwrap();
        assert_eq!(done.text(), "counted", "{era:?}");
        assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0], "{era:?}");
    }
}

#[tokio::test]
async fn a_listen_streams_what_its_filter_asks_for_and_nothing_else() {
    let url = serve().await;
    let client = connect(&url, EraChoice::Modern).await;
    let mut filter = SubscriptionFilter::default();
    filter.tools_list_changed = Some(true);
    let mut changes = client.listen(filter.clone()).await.unwrap();
    assert_eq!(changes.honoured().tools_list_changed, Some(true));
    for _ in 0..2 {
        client.call_tool("grow", json!({})).await.unwrap();
        let changed = tokio::time::timeout(Duration::from_secs(5), changes.next())
            .await
            .expect("a notification in time")
            .expect("the listen is open");
        // The prompt list changed first, but it was not asked for.
        assert_eq!(changed.method, "notifications/tools/list_changed");
    }
    let nothing_more = tokio::time::timeout(Duration::from_millis(200), changes.next()).await;
    assert!(nothing_more.is_err(), "{nothing_more:?}");
    // Dropped, the listen ends; the client opens another and goes on.
    drop(changes);
    let mut again = client.listen(filter).await.unwrap();
    client.call_tool("grow", json!({})).await.unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(5), again.next()).await;
    assert!(changed.unwrap().is_some());
}

#[tokio::test]
async fn a_session_has_no_listen() {
    let url = serve().await;
    let client = connect(&url, EraChoice::Session).await;
    let error = client
        .listen(SubscriptionFilter::default())
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("subscriptions/listen"),
        "{error}"
    );
}

#[tokio::test]
async fn a_call_that_becomes_a_task_is_followed_over_http() {
    let url = serve().await;
    let client = Client::builder().tasks().connect_http(&url).await.unwrap();
    // Every tasks/get carries the task's id as its Mcp-Name, or the server refuses it.
    let sum = client
        .call_tool("add_later", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum.text(), "5");
}
