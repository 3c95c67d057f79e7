//! [`McpResponse`]: the transport-agnostic answer to one request, and the session an
//! `initialize` opened, on its way to the transport that keeps it.

#[cfg(sessions)]
use std::sync::Arc;

use bytes::Bytes;
use typemcp_core::{McpError, RequestId};

use crate::dispatch::Reply;
#[cfg(sessions)]
use crate::session::Session;

/// The serialized JSON-RPC response to one [`McpRequest`](crate::service::McpRequest). Its HTTP status,
/// if any, is the HTTP transport's business.
///
/// A layer can answer by itself, without calling the service it wraps:
///
/// ```
/// use typemcp_server::McpError;
/// use typemcp_server::typemcp_core::RequestId;
/// use typemcp_server::service::McpResponse;
///
/// let refused = McpResponse::error(
///     RequestId::Number(7),
///     McpError::invalid_params("Forbidden: you may not call this tool"),
/// );
/// let json: serde_json::Value = serde_json::from_slice(refused.body()).unwrap();
/// assert_eq!(json["error"]["code"], -32602);
/// ```
///
/// The answer to a 2025-11-25 `initialize` also carries the session it opened. The transport
/// keeps it; if the response is dropped on the way (a layer answering something else, a
/// timeout), the session ends with it.
#[derive(Debug)]
pub struct McpResponse {
    reply: Reply,
    #[cfg(sessions)]
    opened: Option<OpenedSession>,
}

impl McpResponse {
    /// The answer to request `id`: its serialized result, or the error.
    pub(crate) fn from_result(id: RequestId, answered: Result<Bytes, McpError>) -> Self {
        Self::from_reply(match answered {
            Ok(body) => Reply::answered(body),
            Err(error) => Reply::error(Some(id), error),
        })
    }

    pub(crate) fn from_reply(reply: Reply) -> Self {
        Self {
            reply,
            #[cfg(sessions)]
            opened: None,
        }
    }

    /// The answer to an `initialize` that opened `session`.
    #[cfg(sessions)]
    pub(crate) fn opening(reply: Reply, session: Arc<Session>) -> Self {
        Self {
            reply,
            opened: Some(OpenedSession(Some(session))),
        }
    }

    /// The reply, and the session it opened (which the caller now keeps, or closes).
    #[cfg(sessions)]
    pub(crate) fn into_parts(self) -> (Reply, Option<Arc<Session>>) {
        let Self { reply, opened } = self;
        (reply, opened.and_then(|mut opened| opened.0.take()))
    }

    /// The reply alone; a session it opened ends here.
    pub(crate) fn into_reply(self) -> Reply {
        #[cfg(sessions)]
        return self.into_parts().0;
        #[cfg(not(sessions))]
        self.reply
    }

    /// What the reply reports (a result, or an error and its code).
    pub(crate) fn verdict(&self) -> crate::dispatch::Verdict {
        self.reply.verdict
    }

    /// A JSON-RPC error response to the request `id`.
    pub fn error(id: RequestId, error: McpError) -> Self {
        Self::from_reply(Reply::error(Some(id), error))
    }

    /// The serialized JSON-RPC response. Empty when nothing is to be sent (a request the
    /// client cancelled).
    pub fn body(&self) -> &Bytes {
        &self.reply.body
    }

    /// Whether this answers an `initialize` that opened a 2025-11-25 session.
    pub fn opens_session(&self) -> bool {
        #[cfg(sessions)]
        return self
            .opened
            .as_ref()
            .is_some_and(|opened| opened.0.is_some());
        #[cfg(not(sessions))]
        false
    }
}

/// A session opened by `initialize` that no transport has taken yet: ends it when dropped.
#[cfg(sessions)]
#[derive(Debug)]
struct OpenedSession(Option<Arc<Session>>);

#[cfg(sessions)]
impl Drop for OpenedSession {
    fn drop(&mut self) {
        if let Some(session) = self.0.take() {
            session.close();
        }
    }
}
