//! `typemcp-client` on the servers of these tests, in process: each connection a fresh
//! in-memory duplex whose other end the server's `serve_io` serves, as over stdio. [`wires`]
//! runs one body in both eras; [`connect`] opens one client.

use serde::Serialize;
use serde_json::Value;
use tokio::io::{DuplexStream, ReadHalf, WriteHalf};
use typemcp_client::{Client, ClientBuilder, Wires};
use typemcp_server::Server;

/// The client's halves of a fresh duplex whose other end `server` serves (in a task).
fn serve(server: Server) -> (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server.serve_io(read, write));
    tokio::io::split(client_end)
}

/// The in-process wire to a fresh `server()` per connection, for [`Wires::run`] (both eras).
pub fn wires(server: impl Fn() -> Server + Send + Sync + 'static) -> Wires {
    Wires::new().in_process(move || serve(server()))
}

/// A client built by `builder`, connected in process to `server`.
pub async fn connect(server: Server, builder: ClientBuilder) -> Client {
    let (read, write) = serve(server);
    builder.connect_io(read, write).await.expect("connects")
}

/// The JSON of a typed result, to compare with the wire's.
pub fn json_of(value: &impl Serialize) -> Value {
    serde_json::to_value(value).expect("serialises")
}
