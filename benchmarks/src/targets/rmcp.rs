//! rmcp 3.1.4 (the official Rust SDK) serving the `echo` tool and the three-round
//! `flow` tool.
//!
//! HTTP: rmcp's `StreamableHttpService` with
//! * `legacy_session_mode = false` — stateless: no `initialize`, no
//!   `Mcp-Session-Id`; in 3.1.4 a request whose `_meta` carries
//!   `io.modelcontextprotocol/protocolVersion` (with the matching
//!   `MCP-Protocol-Version` header) is served per request anyway, but turning
//!   sessions off makes every request take that path;
//! * `json_response = true` — the reply to a terminal result is one
//!   `application/json` body instead of a `text/event-stream`;
//! * `sse_keep_alive = None` — no keep-alive pings on (unused) streams;
//! * `NeverSessionManager` — no session store at all;
//! * the default `allowed_hosts` (loopback names) — the harness sends
//!   `Host: 127.0.0.1:<port>`, which passes rmcp's DNS-rebinding check.
//!
//! The request is accepted as specified; rmcp additionally checks that the
//! `Mcp-Method`/`Mcp-Name` headers match the body (SEP-2243), which they do.
//! The service runs on the same hyper HTTP/1.1 plumbing as the ceiling
//! ([`super::spawn_http1`]).
//!
//! Sessions (2025-11-25, target `rmcp-session`, [`RmcpSession`]): the same `EchoServer` behind
//! a second `StreamableHttpService` in rmcp's stateful mode (`legacy_session_mode = true`,
//! `LocalSessionManager`, no keep-alive pings); replies to requests on a session come as a
//! `text/event-stream` (rmcp's stateful mode has no JSON replies), which the harness unpacks.
//!
//! stdio: the `rmcp_stdio_server` bin runs [`serve_stdio`], rmcp's stdio
//! transport. rmcp 3.1.4 serves a first request that carries the `2026-07-28`
//! `_meta` without an `initialize` handshake, then keeps serving the stream.
//!
//! The tool router is built once and shared through an `Arc`, so rmcp's
//! per-request service factory costs one reference-count increment (the
//! `#[tool_handler]` default would rebuild the router for every call).
//!
//! `flow`: rmcp 3.1.4 has SEP-2322 multi-round results (`CallToolResponse::
//! InputRequired`, the `RequestState` and `InputResponses` extractors) and, behind
//! its `request-state` feature, `RequestStateCodec` (HMAC-SHA256 seal/open with
//! associated data and a TTL), but no typed flow API: the tool is written the way
//! rmcp's own `servers_mrtr` example is, by hand. The state is a small serde enum
//! sealed with `seal_json_with` (ten-minute TTL, like ours) under associated data
//! naming the method and the tool; answers are read with `ElicitResult`
//! and a field lookup. It does less than ours per round: the arguments are not
//! digested into the binding (this flow has none), the answer is not checked
//! against the requested schema, and the outgoing state is not re-verified; the
//! requested schemas are built once and cloned.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use rmcp::ErrorData;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, RequestStateCodec, SealOptions, ServerCapabilities, ServerInfo,
};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{Target, TargetKind};

/// The rmcp target.
#[derive(Debug, Clone, Copy)]
pub struct Rmcp;

impl Target for Rmcp {
    fn name(&self) -> &'static str {
        "rmcp"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Rmcp
    }

    fn has_http(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        serve(listener, shutdown, http_service)
    }

    fn has_flow(&self) -> bool {
        true
    }

    fn stdio_bin(&self) -> Option<&'static str> {
        Some("rmcp_stdio_server")
    }
}

/// rmcp serving 2025-11-25 sessions: only the session scenario runs on it.
#[derive(Debug, Clone, Copy)]
pub struct RmcpSession;

impl Target for RmcpSession {
    fn name(&self) -> &'static str {
        "rmcp-session"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Rmcp
    }

    fn baseline(&self) -> Option<&'static str> {
        Some("rmcp")
    }

    fn has_http(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        serve(listener, shutdown, session_http_service)
    }

    fn has_session(&self) -> bool {
        true
    }

    fn session_only(&self) -> bool {
        true
    }
}

/// Where a `flow` call stands, sealed into `requestState`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "awaiting", rename_all = "lowercase")]
enum FlowState {
    /// Waiting for the name (`step1`).
    Name,
    /// Waiting for the colour (`step2`).
    Color {
        /// The name given in round 2.
        name: String,
    },
}

/// What a `flow` state is bound to: the method and the tool (the flow takes no arguments).
const FLOW_ASSOCIATED_DATA: &[u8] = b"tools/call\0flow";
/// The signing key of `flow` states (32 bytes; a fixed key, as in rmcp's MRTR example: the
/// cost of HMAC does not depend on its value).
const FLOW_KEY: &[u8; 32] = b"mcp-benchmarks-flow-state-key-32";
/// The lifetime of a `flow` state, as ours.
const FLOW_TTL: Duration = Duration::from_secs(600);

/// The codec and the two forms of the `flow` tool.
#[derive(Debug)]
struct FlowKit {
    codec: RequestStateCodec,
    name_form: ElicitationSchema,
    color_form: ElicitationSchema,
}

impl FlowKit {
    fn new() -> Self {
        let form = |field: &'static str, description: &'static str| {
            ElicitationSchema::builder()
                .required_string_with(field, |s| s.description(description))
                .build_unchecked()
        };
        Self {
            codec: RequestStateCodec::new_unchecked(FLOW_KEY),
            name_form: form("name", "Your name."),
            color_form: form("color", "Your favourite colour."),
        }
    }

    /// Asks `key` with `schema`, moving to `next`.
    fn ask(
        &self,
        next: &FlowState,
        key: &str,
        message: &str,
        schema: &ElicitationSchema,
    ) -> Result<CallToolResponse, ErrorData> {
        let sealed = self
            .codec
            .seal_json_with(
                next,
                &SealOptions::new()
                    .associated_data(FLOW_ASSOCIATED_DATA)
                    .ttl(FLOW_TTL),
            )
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut requests = InputRequests::new();
        requests.insert(
            key.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: message.to_owned(),
                    requested_schema: schema.clone(),
                },
            )),
        );
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
    }
}

/// The accepted text answer `field` of question `key`; `Err(text)` when declined or
/// cancelled (the flow then completes with that text).
fn accepted_text(
    responses: Option<&rmcp::model::InputResponses>,
    key: &str,
    field: &str,
) -> Result<Result<String, &'static str>, ErrorData> {
    let response = responses
        .and_then(|r| r.get(key))
        .ok_or_else(|| ErrorData::invalid_params(format!("missing answer {key:?}"), None))?;
    let result = ElicitResult::deserialize(response)
        .map_err(|_| ErrorData::invalid_params(format!("invalid answer {key:?}"), None))?;
    match result.action {
        ElicitationAction::Accept => result
            .content
            .as_ref()
            .and_then(|content| content[field].as_str())
            .map(|text| Ok(text.to_owned()))
            .ok_or_else(|| ErrorData::invalid_params(format!("no {field:?} in {key:?}"), None)),
        _ => Ok(Err("Multi-round cancelled.")),
    }
}

/// Arguments of the `echo` tool.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// Text to send back.
    pub text: String,
}

/// rmcp server exposing the `echo` and `flow` tools.
#[derive(Debug, Clone)]
pub struct EchoServer {
    tool_router: Arc<ToolRouter<Self>>,
    flow: Arc<FlowKit>,
}

impl Default for EchoServer {
    fn default() -> Self {
        Self {
            tool_router: Arc::new(Self::tool_router()),
            flow: Arc::new(FlowKit::new()),
        }
    }
}

#[tool_router]
impl EchoServer {
    /// Returns its `text` argument.
    #[tool(description = "Echo the text back")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Asks for a name, then a colour, then answers (SEP-2322 multi-round).
    #[tool(description = "Ask for a name, then a colour, then answer")]
    async fn flow(
        &self,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let kit = &self.flow;
        let Some(sealed) = state else {
            return kit.ask(
                &FlowState::Name,
                "step1",
                "Step 1: What is your name?",
                &kit.name_form,
            );
        };
        let state: FlowState = kit
            .codec
            .open_json_with(&sealed, FLOW_ASSOCIATED_DATA)
            .map_err(|_| ErrorData::invalid_params("Invalid or expired requestState", None))?;
        let text = match state {
            FlowState::Name => match accepted_text(responses.as_ref(), "step1", "name")? {
                Ok(name) => {
                    return kit.ask(
                        &FlowState::Color { name },
                        "step2",
                        "Step 2: What is your favorite color?",
                        &kit.color_form,
                    );
                }
                Err(text) => text.to_owned(),
            },
            FlowState::Color { name } => {
                match accepted_text(responses.as_ref(), "step2", "color")? {
                    Ok(color) => format!("Multi-round complete for {name} who likes {color}"),
                    Err(text) => text.to_owned(),
                }
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for EchoServer {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Serves the rmcp service `make` builds (with a child of `shutdown`) over HTTP/1.1 on
/// `listener`, until `shutdown`.
fn serve<M>(
    listener: TcpListener,
    shutdown: CancellationToken,
    make: fn(CancellationToken) -> StreamableHttpService<EchoServer, M>,
) -> anyhow::Result<()>
where
    M: rmcp::transport::streamable_http_server::SessionManager,
{
    let service = make(shutdown.child_token());
    super::spawn_http1(
        listener,
        shutdown,
        service_fn(move |request| {
            let service = service.clone();
            async move { Ok::<_, Infallible>(service.handle(request).await) }
        }),
    );
    Ok(())
}

/// The stateless, JSON-response Streamable HTTP service described in the module docs.
pub fn http_service(
    cancellation: CancellationToken,
) -> StreamableHttpService<EchoServer, NeverSessionManager> {
    let server = EchoServer::default();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_cancellation_token(cancellation);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// The stateful (2025-11-25 sessions) Streamable HTTP service described in the module docs.
pub fn session_http_service(
    cancellation: CancellationToken,
) -> StreamableHttpService<EchoServer, LocalSessionManager> {
    let server = EchoServer::default();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_sse_keep_alive(None)
        .with_cancellation_token(cancellation);
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// Serves [`EchoServer`] on this process's stdin/stdout until stdin closes.
pub async fn serve_stdio() -> anyhow::Result<()> {
    let running = EchoServer::default()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("rmcp stdio server failed to start: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| anyhow::anyhow!("rmcp stdio server task failed: {e}"))?;
    Ok(())
}
