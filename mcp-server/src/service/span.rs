//! The span of one request, opened where every transport hands its requests to the service
//! (so layers, the dispatcher and the handler's own spans nest in it), with the fields of
//! the OpenTelemetry semantic conventions for MCP that the module documentation of
//! [`crate::service`] lists, and its closing event.

use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tracing::Span;
use tracing::field::Empty;
use typemcp_core::protocol::methods;

use super::{McpRequest, McpResponse};
use crate::TransportKind;
use crate::dispatch::Verdict;
use crate::header_names::SESSION_ID;

/// The target of the request spans and of their closing events.
pub(crate) const TARGET: &str = "typemcp_server::request";

/// One request's span, and when it started.
pub(crate) struct RequestSpan {
    span: Span,
    started: Instant,
}

impl RequestSpan {
    /// The span of `request` (disabled unless its target is enabled at `debug`).
    pub(crate) fn of(request: &McpRequest) -> Self {
        let started = Instant::now();
        if !tracing::enabled!(target: TARGET, tracing::Level::DEBUG) {
            return Self {
                span: Span::none(),
                started,
            };
        }
        let method = request.method();
        let tool = request.tool_name();
        let prompt = (method == methods::PROMPTS_GET)
            .then(|| request.params().str_member("name"))
            .flatten();
        let name = match tool.or(prompt.as_deref()) {
            Some(target) => format!("{method} {target}"),
            None => method.to_owned(),
        };
        let transport = match request.transport().kind() {
            TransportKind::Stdio => Some("pipe"),
            TransportKind::Http => Some("tcp"),
            TransportKind::InProcess => None,
        };
        let session = request
            .transport()
            .http_parts()
            .and_then(|parts| parts.headers.get(&SESSION_ID))
            .map(|id| session_digest(id.as_bytes()));
        let span = tracing::debug_span!(
            target: TARGET,
            "mcp.request",
            otel.name = %name,
            otel.kind = "server",
            mcp.method.name = %method,
            mcp.protocol.version = %request.protocol_version(),
            mcp.session.id = session.as_deref(),
            jsonrpc.request.id = %request.id(),
            jsonrpc.protocol.version = "2.0",
            network.transport = transport,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            gen_ai.tool.name = tool,
            gen_ai.prompt.name = prompt.as_deref(),
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        Self { span, started }
    }

    /// The span, to run the request in.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Records how `response` answered the request and ends the span with one event.
    pub(crate) fn finish(self, response: &McpResponse) {
        if self.span.is_disabled() {
            return;
        }
        let outcome = match response.verdict() {
            _ if response.body().is_empty() => "cancelled".to_owned(),
            Verdict::Answered => "ok".to_owned(),
            Verdict::Error(code) => {
                let code = code.0.to_string();
                self.span.record("error.type", code.as_str());
                self.span.record("rpc.response.status_code", code.as_str());
                format!("error {code}")
            }
            Verdict::Malformed => "malformed".to_owned(),
            #[cfg(feature = "http")]
            Verdict::UnknownSession => "unknown session".to_owned(),
        };
        let duration: Duration = self.started.elapsed();
        self.span.in_scope(|| {
            tracing::debug!(target: TARGET, outcome, ?duration, "served a request");
        });
    }
}

/// A session id as the span names it: the first 8 bytes of its SHA-256, in hex.
fn session_digest(id: &[u8]) -> String {
    Sha256::digest(id)[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_named_by_a_digest_not_by_itself() {
        let digest = session_digest(b"3f1c0a9e-secret-session");
        assert_eq!(digest.len(), 16);
        assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(!digest.contains("secret"));
        assert_eq!(digest, session_digest(b"3f1c0a9e-secret-session"));
        assert_ne!(digest, session_digest(b"another"));
    }
}
