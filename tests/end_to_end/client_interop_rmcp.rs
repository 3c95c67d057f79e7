//! Our client (`typemcp-client`) against a server built with rmcp 3.1.4, the Rust SDK (the
//! `rmcp` dev-dependency, features `server` and `elicitation`): the same `deploy` flow
//! tests/end_to_end/client_interop.rs runs against the official TypeScript and Python SDK servers.
//!
//! The server, [`DeployServer`], implements rmcp's `ServerHandler` by hand (no proc macros)
//! and serves one tool, `deploy` (argument `target`), that asks one form question with a
//! boolean field `ok` and answers `Deployed to {target}.` when it is true, `Not deployed.`
//! otherwise. rmcp serves both eras from one handler, the first request of the connection
//! picking one (`serve_server` answers a `server/discover` opener inline, or runs the
//! `initialize` handshake), so the handler asks the way the era of each call allows:
//!
//! - 2026-07-28 (the client chooses automatically and must land there): it returns
//!   `CallToolResponse::InputRequired` with the question keyed `confirm` and an opaque
//!   `requestState`, and reads the answer from `inputResponses` when the client retries (the
//!   state must come back untouched, else the call fails);
//! - 2025-11-25 (the client forces a session): rmcp refuses an `InputRequiredResult` on that
//!   era, so the handler pushes `elicitation/create` mid-call (`Peer::create_elicitation`), a
//!   question without a key.
//!
//! Each case lists the tools, calls `deploy` with target `staging` accepting (`{ok: true}`),
//! then again declining, and checks the answers, the questions asked and the protocol version
//! the server saw on each call. The transport is newline-delimited JSON-RPC (rmcp's
//! async read/write transport, the one its stdio uses) over an in-process tokio duplex, relayed
//! through a tap that records every message: a failure quotes the whole exchange. rmcp's
//! Streamable HTTP server is not exercised (it needs the `transport-streamable-http-server`
//! feature and an HTTP server to mount its tower service on). Every run is bounded by
//! [`RUN_TIMEOUT`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::peer_deploy::{self, Asked, builder};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    Implementation, InputRequest as RmcpInputRequest, InputRequests, InputRequiredResult,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerInfo, Tool,
};
use rmcp::service::{ElicitationMode, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use typemcp_client::{Client, Era, EraChoice, MODERN, SESSION};

/// How long one connection's whole run (connect, list, both calls, close) may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(30);
/// The name the server gives itself.
const SERVER_NAME: &str = "rmcp-deploy-interop";
/// The key of the one question on 2026-07-28.
const CONFIRM: &str = "confirm";

/// What happened, in order: the messages on the wire and the server's own notes.
type Log = Arc<Mutex<Vec<String>>>;

fn note(log: &Log, line: String) {
    log.lock().unwrap().push(line);
}

/// The `deploy` server on rmcp.
#[derive(Debug, Clone)]
struct DeployServer {
    /// The protocol version of each `tools/call`, in order (`None`: rmcp knew none).
    calls: Arc<Mutex<Vec<Option<String>>>>,
    log: Log,
}

/// The one question: go ahead with the deploy to `target`?
fn confirm_form(target: &str) -> ElicitRequestParams {
    let requested_schema = ElicitationSchema::builder()
        .required_bool_with("ok", |ok| ok.description("Go ahead?"))
        .build()
        .expect("a boolean field is a valid form");
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("Deploy to {target}?"),
        requested_schema,
    }
}

/// The opaque state of a call to `target` awaiting its answer (a test server: it only checks
/// the client echoes it untouched; a real one would seal it, rmcp's `request-state` feature).
fn awaiting_state(target: &str) -> String {
    format!("deploy/awaiting-confirm/{target}")
}

/// Whether an elicitation answer accepted the form with `ok: true`.
fn confirmed(answer: &ElicitResult) -> bool {
    answer.action == ElicitationAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|content| content.get("ok"))
            .and_then(Value::as_bool)
            == Some(true)
}

/// The `elicitation` client capability, as rmcp's missing-capability error names it.
fn elicitation_capability() -> ClientCapabilities {
    ClientCapabilities::builder().enable_elicitation().build()
}

impl ServerHandler for DeployServer {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, "0.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({
            "type": "object",
            "properties": {"target": {"type": "string", "description": "Where to deploy."}},
            "required": ["target"],
        });
        let schema: JsonObject = serde_json::from_value(schema).unwrap();
        let tool = Tool::new(
            "deploy",
            "Deploys to a target once the user confirms.",
            schema,
        );
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "deploy" {
            return Err(ErrorData::invalid_params(
                format!("no tool {:?}", request.name),
                None,
            ));
        }
        let Some(target) = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("target"))
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(ErrorData::invalid_params(
                "`target` (a string) is required",
                None,
            ));
        };
        let version = context.protocol_version();
        self.calls
            .lock()
            .unwrap()
            .push(version.as_ref().map(|v| v.as_str().to_owned()));
        let modern = version
            .as_ref()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let ok = if modern {
            // Capabilities travel in each request's `_meta` on this era.
            if context
                .client_capabilities()
                .is_none_or(|capabilities| capabilities.elicitation.is_none())
            {
                return Err(ErrorData::missing_required_client_capability(
                    elicitation_capability(),
                ));
            }
            let Some(answer) = request
                .input_responses
                .as_ref()
                .and_then(|responses| responses.get(CONFIRM))
            else {
                note(
                    &self.log,
                    format!("server: deploy {target:?} asks {CONFIRM:?}"),
                );
                let mut requests = InputRequests::new();
                requests.insert(
                    CONFIRM.to_owned(),
                    RmcpInputRequest::Elicitation(ElicitRequest::new(confirm_form(&target))),
                );
                let asking =
                    InputRequiredResult::new(Some(requests), Some(awaiting_state(&target)));
                return Ok(asking.into());
            };
            if request.request_state.as_deref() != Some(awaiting_state(&target).as_str()) {
                return Err(ErrorData::invalid_params(
                    format!(
                        "requestState {:?} is not the {:?} sent",
                        request.request_state,
                        awaiting_state(&target)
                    ),
                    None,
                ));
            }
            let answer: ElicitResult = serde_json::from_value(answer.clone()).map_err(|e| {
                ErrorData::invalid_params(format!("the answer to {CONFIRM:?}: {e}"), None)
            })?;
            confirmed(&answer)
        } else {
            if !context
                .peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
            {
                return Err(ErrorData::missing_required_client_capability(
                    elicitation_capability(),
                ));
            }
            note(
                &self.log,
                format!("server: deploy {target:?} pushes elicitation/create"),
            );
            let answer = context
                .peer
                .create_elicitation(confirm_form(&target))
                .await
                .map_err(|e| ErrorData::internal_error(format!("elicitation/create: {e}"), None))?;
            confirmed(&answer)
        };
        note(&self.log, format!("server: deploy {target:?} ok={ok}"));
        let text = if ok {
            format!("Deployed to {target}.")
        } else {
            "Not deployed.".to_owned()
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// Relays newline-delimited messages from `from` to `to`, logging each after `arrow`; shuts
/// `to` down when `from` ends.
async fn relay(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    arrow: &'static str,
    log: Log,
) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        note(&log, format!("{arrow} {line}"));
        let sent = async {
            to.write_all(line.as_bytes()).await?;
            to.write_all(b"\n").await?;
            to.flush().await
        };
        if sent.await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// Starts a [`DeployServer`] on rmcp behind a tap: the client's ends of the connection, the
/// server's record of its calls.
fn start_server(
    log: &Log,
) -> (
    impl AsyncRead + Unpin + Send + 'static,
    impl AsyncWrite + Unpin + Send + 'static,
    Arc<Mutex<Vec<Option<String>>>>,
) {
    let (client_end, client_tap) = tokio::io::duplex(64 * 1024);
    let (server_tap, server_end) = tokio::io::duplex(64 * 1024);
    let (from_client, to_client) = tokio::io::split(client_tap);
    let (from_server, to_server) = tokio::io::split(server_tap);
    tokio::spawn(relay(from_client, to_server, "client →", Arc::clone(log)));
    tokio::spawn(relay(from_server, to_client, "server →", Arc::clone(log)));
    let calls = Arc::new(Mutex::new(Vec::new()));
    let server = DeployServer {
        calls: Arc::clone(&calls),
        log: Arc::clone(log),
    };
    let server_log = Arc::clone(log);
    tokio::spawn(async move {
        match server.serve(server_end).await {
            Ok(running) => {
                let reason = running.waiting().await;
                note(&server_log, format!("server: stopped ({reason:?})"));
            }
            Err(error) => note(&server_log, format!("server: did not start: {error}")),
        }
    });
    let (read, write) = tokio::io::split(client_end);
    (read, write, calls)
}

/// How the server describes itself, then the shared `deploy` flow, then the versions the
/// server saw on each call.
async fn deploy_twice_counting(
    client: &Client,
    expected: Era,
    asked: &Mutex<Vec<Asked>>,
    calls: &Mutex<Vec<Option<String>>>,
) -> Result<(), String> {
    let version = match expected {
        Era::Modern => MODERN,
        _ => SESSION,
    };
    let server = client.server();
    if server.version != version
        || server.info.as_ref().map(|info| info.name.as_str()) != Some(SERVER_NAME)
    {
        return Err(format!(
            "the server is described as {server:?}, not {SERVER_NAME} speaking {version}"
        ));
    }
    peer_deploy::deploy_twice(client, expected, asked).await?;
    // Two rounds per call on 2026-07-28 (asked, then retried with the answer), one on a session.
    let rounds = match expected {
        Era::Modern => 4,
        _ => 2,
    };
    let calls = calls.lock().unwrap().clone();
    if calls != vec![Some(version.to_owned()); rounds] {
        return Err(format!(
            "the server saw tools/call on {calls:?}, {rounds} times {version} expected"
        ));
    }
    Ok(())
}

/// Runs the flow against a fresh rmcp server in era `choice`; panics with the whole exchange
/// if it fails or runs over [`RUN_TIMEOUT`].
async fn over_duplex(choice: EraChoice, expected: Era) {
    let log: Log = Arc::default();
    let (read, write, calls) = start_server(&log);
    let (builder, asked) = builder(choice);
    let run = async {
        let client = builder
            .connect_io(read, write)
            .await
            .map_err(|e| format!("connecting: {e}"))?;
        deploy_twice_counting(&client, expected, &asked, &calls).await?;
        client.close().await.map_err(|e| format!("closing: {e}"))
    };
    let why = match tokio::time::timeout(RUN_TIMEOUT, run).await {
        Ok(Ok(())) => return,
        Ok(Err(why)) => why,
        Err(_) => format!("ran over {RUN_TIMEOUT:?}"),
    };
    panic!(
        "rmcp server over a duplex, client era {choice:?}: {why}\nexchange:\n{}",
        log.lock().unwrap().join("\n")
    )
}

#[tokio::test]
async fn rmcp_server_over_duplex_2026_input_required() {
    over_duplex(EraChoice::Automatic, Era::Modern).await;
}

#[tokio::test]
async fn rmcp_server_over_duplex_2026_forced() {
    over_duplex(EraChoice::Modern, Era::Modern).await;
}

#[tokio::test]
async fn rmcp_server_over_duplex_2025_pushed_elicitation() {
    over_duplex(EraChoice::Session, Era::Session).await;
}
