//! Pushed fulfilment: a multi-round handler serving a client of a 2025-11-25 session.
//!
//! Such a client cannot retry with `inputResponses`: it expects the server to ask it with
//! requests of its own. So when the handler answers input-required, the server sends each
//! input request to the client as a real request on the stream of the request being served
//! (`elicitation/create` spelled for the session's revision, or the deprecated
//! `sampling/createMessage` and `roots/list`; see [`legacy_push_request`]), collects the
//! answers under the handler's keys, and runs the same handler again with them and with its
//! `requestState`, exactly as a 2026-07-28 client's retry would be run: every round goes
//! through the one path of the method (state verified, single use consumed, outgoing state
//! checked, capability gate), so an input request the client did not declare in `initialize`
//! fails with the same `-32021`.
//!
//! The state never leaves the server here (the client sees only the pushed requests): each
//! round hands its answers and its state to the next in memory, where the guard checks the
//! state and, with single use, consumes it, once per round. The handler runs at most `pushed_rounds` times (8 by default),
//! each answer is awaited at most `pushed_answer_timeout` (5 minutes by default), and the
//! client's `notifications/cancelled` for the original request abandons the pushed requests
//! and does not run the handler again. A URL elicitation the client accepted is reported done
//! (`notifications/elicitation/complete`) once the handler moves on without asking it again.

use serde_json::{Map, Value, json};
use typemcp_core::McpError;
use typemcp_core::protocol::{
    ElicitRequestParams, InputRequest, InputRequests, Outcome, legacy_push_request,
};

use crate::dispatch::guard::Rounds;
use crate::dispatch::rounds::Round;
use crate::session::Session;
use crate::{RequestContext, Server};

type Params = Map<String, Value>;

/// `notifications/elicitation/complete` (2025-11-25).
const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// A URL elicitation the client accepted: its id and URL.
struct OpenUrl {
    id: String,
    url: String,
}

/// Runs a multi-round method for a session's client, pushing its input requests until it
/// completes. Each round after the first gets the answers and the state of the round
/// before in memory (the state checked and consumed once, by the guard around `run`).
pub(super) async fn fulfil<R: Round>(
    session: &Session,
    ctx: &RequestContext,
    first: Rounds,
    round: &R,
) -> Result<Outcome<R::Result>, McpError> {
    let server = ctx.server();
    let rounds = server.config().pushed_rounds;
    let arguments = first.arguments.clone();
    let mut next = first;
    let mut open_urls = Vec::new();
    for n in 1..=rounds {
        let asked = match round.run(ctx, next).await? {
            Outcome::Complete(result) => {
                complete_urls(ctx, std::mem::take(&mut open_urls), None).await;
                return Ok(Outcome::Complete(result));
            }
            Outcome::InputRequired(asked) => asked,
        };
        let open = std::mem::take(&mut open_urls);
        complete_urls(ctx, open, asked.input_requests.as_ref()).await;
        if n == rounds {
            break;
        }
        if ctx.is_cancelled() {
            return Err(McpError::internal("Request cancelled"));
        }
        let input_responses = match asked.input_requests {
            Some(requests) if !requests.is_empty() => Some(Value::Object(
                push_all(server, session, ctx, requests, &mut open_urls).await?,
            )),
            _ => None,
        };
        next = Rounds {
            arguments: arguments.clone(),
            input_responses,
            request_state: asked.request_state,
        };
    }
    tracing::warn!(rounds, method = %ctx.method(), "a handler still asked for input after the last pushed round");
    Err(McpError::internal(format!(
        "The request still needed input after {rounds} rounds, the most this server asks a \
         client for"
    )))
}

/// Sends each input request to the client in turn and collects the answers by key.
async fn push_all(
    server: &Server,
    session: &Session,
    ctx: &RequestContext,
    requests: InputRequests,
    open_urls: &mut Vec<OpenUrl>,
) -> Result<Params, McpError> {
    let timeout = server.config().pushed_answer_timeout;
    let mut answers = Map::new();
    for (key, request) in requests {
        let pushed = legacy_push_request(&request, session.version(), &session.mint_id()).map_err(
            |why| {
                McpError::internal(format!(
                    "This request needs input that cannot be asked on a {} session: {why}",
                    session.version()
                ))
            },
        )?;
        let answer = session
            .request(
                ctx.outbound(),
                pushed.method,
                &pushed.params,
                timeout,
                ctx.cancellation(),
            )
            .await
            .map_err(|why| why.into_error(pushed.method))?;
        if let (Some(id), InputRequest::Elicitation(ElicitRequestParams::Url { url, .. })) =
            (pushed.elicitation_id, &request)
            && answer.get("action").and_then(Value::as_str) == Some("accept")
        {
            open_urls.push(OpenUrl {
                id,
                url: url.clone(),
            });
        }
        answers.insert(key, answer);
    }
    Ok(answers)
}

/// Reports the accepted URL elicitations the handler no longer asks for as complete (one it
/// asks for again is pushed anew, under a new id).
async fn complete_urls(ctx: &RequestContext, open: Vec<OpenUrl>, asked: Option<&InputRequests>) {
    for url in open {
        let asked_again = asked.into_iter().flat_map(|r| r.values()).any(|r| {
            matches!(r, InputRequest::Elicitation(ElicitRequestParams::Url { url: u, .. }) if *u == url.url)
        });
        if !asked_again {
            ctx.outbound()
                .notify(ELICITATION_COMPLETE, &json!({"elicitationId": url.id}))
                .await;
        }
    }
}
