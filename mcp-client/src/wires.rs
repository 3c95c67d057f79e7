//! One test body over every wire: [`Wires`] names the ways to reach a server (in the same
//! process, a child over stdio, a Streamable HTTP endpoint) and [`Wires::run`] connects over
//! each, in both eras, and runs the body with each client, saying which run failed.

use std::fmt;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::builder::ClientBuilder;
use crate::client::{Client, Era, EraChoice};
use crate::error::ClientError;

/// A boxed reading half.
pub type BoxRead = Box<dyn AsyncRead + Unpin + Send>;
/// A boxed writing half.
pub type BoxWrite = Box<dyn AsyncWrite + Unpin + Send>;

/// One way to reach the server.
#[derive(Clone)]
enum Wire {
    /// A fresh pipe to a server in this process.
    InProcess(Arc<dyn Fn() -> (BoxRead, BoxWrite) + Send + Sync>),
    /// A child process over stdio.
    Stdio(Arc<dyn Fn() -> tokio::process::Command + Send + Sync>),
    /// A Streamable HTTP endpoint.
    Http(String),
}

impl Wire {
    fn name(&self) -> &'static str {
        match self {
            Self::InProcess(_) => "in-process",
            Self::Stdio(_) => "stdio",
            Self::Http(_) => "HTTP",
        }
    }

    async fn connect(&self, builder: ClientBuilder) -> Result<Client, ClientError> {
        match self {
            Self::InProcess(open) => {
                let (read, write) = open();
                builder.connect_io(read, write).await
            }
            Self::Stdio(command) => builder.spawn(command()).await,
            Self::Http(url) => builder.connect_http(url).await,
        }
    }
}

/// Which wire and era a run of [`Wires::run`] is (`stdio, 2025-11-25`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Run {
    /// `in-process`, `stdio` or `HTTP`.
    pub wire: &'static str,
    /// The era the client speaks.
    pub era: Era,
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let era = match self.era {
            Era::Modern => crate::MODERN,
            Era::Session => crate::SESSION,
        };
        write!(f, "{}, {era}", self.wire)
    }
}

/// The wires a test runs over.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use typemcp_client::{Client, ToolResultExt, Wires};
/// use typemcp_server::{Server, tool};
///
/// /// Adds two numbers.
/// #[tool]
/// async fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let server = Server::builder().tool(add).build()?;
/// let wires = Wires::new().in_process(move || {
///     let (client_end, server_end) = tokio::io::duplex(64 * 1024);
///     let (read, write) = tokio::io::split(server_end);
///     tokio::spawn(server.clone().serve_io(read, write));
///     tokio::io::split(client_end)
/// });
/// // Add `.stdio(|| Command::new(env!("CARGO_BIN_EXE_my_server")))` and `.http(url)` for
/// // the other wires: the body below then runs six times.
/// wires
///     .run(Client::builder, async |client, run| {
///         let sum = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await;
///         assert_eq!(sum.expect("an answer").text(), "5", "{run}");
///     })
///     .await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Wires {
    wires: Vec<Wire>,
}

impl fmt::Debug for Wires {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.wires.iter().map(Wire::name).collect();
        f.debug_struct("Wires").field("wires", &names).finish()
    }
}

impl Wires {
    /// No wires yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A server in this process: `open` returns the client's halves of a fresh connection to
    /// it (one end of a `tokio::io::duplex` whose other end the server's `serve_io` serves).
    #[must_use]
    pub fn in_process<R, W>(mut self, open: impl Fn() -> (R, W) + Send + Sync + 'static) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.wires.push(Wire::InProcess(Arc::new(move || {
            let (read, write) = open();
            (Box::new(read) as BoxRead, Box::new(write) as BoxWrite)
        })));
        self
    }

    /// A server started as a child process over stdio, `command()` each time.
    #[must_use]
    pub fn stdio(
        mut self,
        command: impl Fn() -> tokio::process::Command + Send + Sync + 'static,
    ) -> Self {
        self.wires.push(Wire::Stdio(Arc::new(command)));
        self
    }

    /// A server at the Streamable HTTP endpoint `url`.
    #[must_use]
    pub fn http(mut self, url: impl Into<String>) -> Self {
        self.wires.push(Wire::Http(url.into()));
        self
    }

    /// Runs `body` once per wire and era (2026-07-28, then a 2025-11-25 session), each with a
    /// client built by `builder()` (fresh answers each time) and connected afresh; the error
    /// of a connection that fails names its run. A failing assertion in `body` fails the test
    /// as it is; print the [`Run`] in its message.
    pub async fn run(
        &self,
        builder: impl Fn() -> ClientBuilder,
        body: impl AsyncFn(Client, Run),
    ) -> Result<(), ClientError> {
        for wire in &self.wires {
            for (choice, era) in [
                (EraChoice::Modern, Era::Modern),
                (EraChoice::Session, Era::Session),
            ] {
                let run = Run {
                    wire: wire.name(),
                    era,
                };
                let client = wire.connect(builder().era(choice)).await.map_err(|error| {
                    ClientError::Connect {
                        run: run.to_string(),
                        source: Box::new(error),
                    }
                })?;
                body(client, run).await;
            }
        }
        Ok(())
    }
}
