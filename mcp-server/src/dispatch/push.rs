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
//! The state never leaves the server here (the client sees only the pushed requests), yet it
//! is verified every round. The handler runs at most `pushed_rounds` times (8 by default),
//! each answer is awaited at most `pushed_answer_timeout` (5 minutes by default), and the
//! client's `notifications/cancelled` for the original request abandons the pushed requests
//! and does not run the handler again. A URL elicitation the client accepted is reported done
//! (`notifications/elicitation/complete`) once the handler moves on without asking it again.

use std::future::Future;

use serde::Serialize;
use serde_json::{Map, Value, json};
use typemcp_core::McpError;
use typemcp_core::protocol::{
    ElicitRequestParams, InputRequest, InputRequests, Outcome, legacy_push_request,
};

use super::legacy::legacy_result;
use crate::{RequestContext, Server};

type Params = Map<String, Value>;

/// `notifications/elicitation/complete` (2025-11-25).
const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// A URL elicitation the client accepted: its id and URL.
struct OpenUrl {
    id: String,
    url: String,
}

impl Server {
    /// Runs a multi-round method for a session's client, pushing its input requests until it
    /// completes; the result is spelled as the older era does.
    pub(super) async fn run_pushed<T, F, Fut>(
        &self,
        ctx: RequestContext,
        mut params: Params,
        run: F,
    ) -> Result<Value, McpError>
    where
        T: Serialize,
        F: Fn(Server, RequestContext, Params) -> Fut,
        Fut: Future<Output = Result<Outcome<T>, McpError>>,
    {
        let rounds = self.config().pushed_rounds;
        let mut open_urls = Vec::new();
        for round in 1..=rounds {
            let outcome = run(self.clone(), ctx.clone(), params.clone()).await?;
            let asked = match outcome {
                Outcome::Complete(result) => {
                    complete_urls(&ctx, std::mem::take(&mut open_urls), None).await;
                    return legacy_result(&result);
                }
                Outcome::InputRequired(asked) => asked,
            };
            let open = std::mem::take(&mut open_urls);
            complete_urls(&ctx, open, asked.input_requests.as_ref()).await;
            if round == rounds {
                break;
            }
            if ctx.is_cancelled() {
                return Err(McpError::internal("Request cancelled"));
            }
            match asked.input_requests {
                Some(requests) if !requests.is_empty() => {
                    let answers = self.push_all(&ctx, requests, &mut open_urls).await?;
                    params.insert("inputResponses".to_owned(), Value::Object(answers));
                }
                _ => {
                    params.shift_remove("inputResponses");
                }
            }
            match asked.request_state {
                Some(state) => {
                    params.insert("requestState".to_owned(), Value::String(state));
                }
                None => {
                    params.shift_remove("requestState");
                }
            }
        }
        tracing::warn!(rounds, method = %ctx.method(), "a handler still asked for input after the last pushed round");
        Err(McpError::internal(format!(
            "The request still needed input after {rounds} rounds, the most this server asks \
             a client for"
        )))
    }

    /// Sends each input request to the client in turn and collects the answers by key.
    async fn push_all(
        &self,
        ctx: &RequestContext,
        requests: InputRequests,
        open_urls: &mut Vec<OpenUrl>,
    ) -> Result<Params, McpError> {
        let Some(session) = ctx.session() else {
            return Err(McpError::internal("Internal error"));
        };
        let timeout = self.config().pushed_answer_timeout;
        let mut answers = Map::new();
        for (key, request) in requests {
            let pushed = legacy_push_request(&request, session.version(), &session.mint_id())
                .map_err(|why| {
                    McpError::internal(format!(
                        "This request needs input that cannot be asked on a {} session: {why}",
                        session.version()
                    ))
                })?;
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
