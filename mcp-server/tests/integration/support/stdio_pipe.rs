//! A server served over in-memory pipes as if over stdio (`Server::serve_io`), and the client
//! end of them: newline-delimited JSON in, one message per line out.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use typemcp_server::Server;

/// The client end of a server's stdio.
pub struct StdioPipe {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
}

impl StdioPipe {
    /// Serves `server` on fresh pipes (in a spawned task) and returns their client end.
    pub fn start(server: Server) -> Self {
        let (input, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, output) = tokio::io::duplex(1 << 16);
        tokio::spawn(server.serve_io(server_in, server_out));
        Self {
            input,
            output: BufReader::new(output).lines(),
        }
    }

    /// Writes one message, as one line.
    pub async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.input
            .write_all(line.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// The next message the server writes (within five seconds).
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.output.next_line())
            .await
            .unwrap_or_else(|_| panic!("no line within 5 s"))
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("the server closed stdout"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Asserts that nothing is written within a short while.
    pub async fn silent(&mut self) {
        let line = tokio::time::timeout(Duration::from_millis(150), self.output.next_line()).await;
        assert!(line.is_err(), "unexpected output: {line:?}");
    }

    /// Sends `message` and returns the next message written.
    pub async fn call(&mut self, message: Value) -> Value {
        self.send(&message).await;
        self.next().await
    }
}
