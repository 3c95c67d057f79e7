//! What can go wrong talking to a server: [`ClientError`].

use typemcp_core::McpError;

/// Why a call did not give a result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("the server answered with an error: {0}")]
    Server(McpError),
    /// The connection ended (or was never open) before the answer came.
    #[error("the connection to the server is closed")]
    Closed,
    /// The server's answer is not what the method returns.
    #[error("the server's answer to {method} is malformed: {reason}")]
    Malformed {
        /// The method.
        method: String,
        /// What is wrong with the answer.
        reason: String,
    },
    /// The server kept asking for input beyond the client's round limit.
    #[error("the server still asked for input after {0} rounds")]
    TooManyRounds(u32),
    /// An answer does not fit the question the server asked (a form answered with the wrong
    /// type, a value that breaks the form's constraints, a question nothing answers).
    #[error("no answer fits the question {question}: {reason}")]
    Unanswered {
        /// The question's key (or, for a question pushed by a 2025-11-25 server, its method).
        question: String,
        /// Why.
        reason: String,
    },
    /// The task a call became was cancelled before it ended.
    #[error("the task {task_id} was cancelled")]
    TaskCancelled {
        /// The task.
        task_id: String,
    },
    /// The server did not answer in time.
    #[error("the server did not answer {method} within {after:?}")]
    TimedOut {
        /// The method.
        method: String,
        /// How long the client waited.
        after: std::time::Duration,
    },
    /// The server ended the 2025-11-25 session over HTTP (it answered 404 to a request that
    /// carried its `Mcp-Session-Id`); the client starts a new session and sends the request
    /// once more, so this reaches the caller only if the new session is refused too.
    #[error("the server ended the session (HTTP 404)")]
    SessionEnded,
    /// The server refused an HTTP request with this status, and no JSON-RPC error.
    #[error("the server answered HTTP {status}: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The endpoint given cannot be used.
    #[error("cannot connect to {endpoint}: {reason}")]
    Endpoint {
        /// The endpoint as given.
        endpoint: String,
        /// Why.
        reason: String,
    },
    /// One run of [`Wires::run`](crate::Wires::run) could not connect.
    #[error("could not connect ({run})")]
    Connect {
        /// The wire and era (`stdio, 2025-11-25`).
        run: String,
        /// Why.
        #[source]
        source: Box<ClientError>,
    },
    /// The server does not declare what the method needs (an extension, or a setting of
    /// one), so the client does not call it.
    #[error("the server does not offer {what}, which {method} needs")]
    NotOffered {
        /// The method not called.
        method: String,
        /// What the server does not declare.
        what: &'static str,
    },
    /// A skill's file did not match the entry it was listed in (size, digest, frontmatter),
    /// or is not listed there: its content is not used.
    #[error("skill verification failed: {0}")]
    Skill(#[source] typemcp_core::skills::VerifyError),
    /// The server could not be started or reached.
    #[error("the server could not be reached: {0}")]
    Io(#[from] std::io::Error),
}

impl ClientError {
    /// The JSON-RPC error code, when the server answered with an error.
    pub fn code(&self) -> Option<i32> {
        match self {
            Self::Server(error) => Some(error.code.0),
            _ => None,
        }
    }
}
