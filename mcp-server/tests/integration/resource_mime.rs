//! A resource's declared `mime_type` is the default of what it reads: a handler returning
//! text is served with the declared type (both for fixed resources and templates, in both
//! eras), a handler that names its own type keeps it, and text of a resource that declares
//! none is `text/plain`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::stdio_pipe::StdioPipe;
use serde_json::{Value, json};
use typemcp_server::typemcp_core::protocol::ResourceContents;
use typemcp_server::{ResourceRoute, Server, TransportInfo, resource};

/// Every room, as JSON.
#[resource(uri = "rooms://all", mime_type = "application/json")]
async fn all_rooms() -> String {
    r#"["Blue","Green"]"#.to_owned()
}

/// One room, as JSON.
#[resource(template = "rooms://{id}", mime_type = "application/json")]
async fn room(id: String) -> String {
    format!(r#"{{"id":"{id}"}}"#)
}

/// The booking policy: declares Markdown, but this handler says CSV.
#[resource(uri = "rooms://policy", mime_type = "text/markdown")]
async fn policy() -> ResourceContents {
    ResourceContents::text("rooms://policy", "text/csv", "rule,value")
}

/// A note with no declared type.
#[resource(uri = "rooms://note")]
async fn note() -> &'static str {
    "Bring a pen."
}

fn server() -> Server {
    Server::builder()
        .resource(all_rooms)
        .resource(room)
        .resource(policy)
        .resource(note)
        .resource(
            ResourceRoute::new("rooms://by-hand", "by-hand", || async { "[]" })
                .mime_type("application/json"),
        )
        .build()
        .unwrap()
}

async fn modern(server: &Server, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let bytes = serde_json::to_vec(&message).unwrap();
    let reply = server
        .handle_message(&bytes, TransportInfo::in_process())
        .await
        .expect("a reply");
    serde_json::from_slice(&reply).unwrap()
}

/// The MIME type `uri` reads with on the 2026-07-28 wire.
async fn read_type(server: &Server, uri: &str) -> Value {
    let read = modern(server, "resources/read", json!({"uri": uri})).await;
    read["result"]["contents"][0]["mimeType"].clone()
}

#[tokio::test]
async fn text_is_served_with_the_declared_type() {
    let server = server();
    let list = modern(&server, "resources/list", json!({})).await;
    let listed = list["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "rooms://all")
        .cloned()
        .unwrap();
    assert_eq!(listed["mimeType"], "application/json");
    assert_eq!(read_type(&server, "rooms://all").await, "application/json");
    assert_eq!(
        read_type(&server, "rooms://by-hand").await,
        "application/json"
    );
}

#[tokio::test]
async fn a_template_reads_with_its_declared_type() {
    let server = server();
    let read = modern(&server, "resources/read", json!({"uri": "rooms://blue"})).await;
    assert_eq!(
        read["result"]["contents"],
        json!([{"uri": "rooms://blue", "mimeType": "application/json", "text": r#"{"id":"blue"}"#}])
    );
}

#[tokio::test]
async fn a_handler_naming_its_own_type_keeps_it_and_undeclared_text_is_plain() {
    let server = server();
    assert_eq!(read_type(&server, "rooms://policy").await, "text/csv");
    assert_eq!(read_type(&server, "rooms://note").await, "text/plain");
}

#[tokio::test]
async fn a_legacy_session_reads_with_the_declared_type_too() {
    let mut io = StdioPipe::start(server());
    let opened = io
        .call(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "old-client", "version": "1.0"}}}),
        )
        .await;
    assert_eq!(opened["result"]["protocolVersion"], "2025-11-25");
    io.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    for (id, uri) in [(1, "rooms://all"), (2, "rooms://green")] {
        let read = io
            .call(
                json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
                         "params": {"uri": uri}}),
            )
            .await;
        assert_eq!(
            read["result"]["contents"][0]["mimeType"], "application/json",
            "{read}"
        );
    }
}
