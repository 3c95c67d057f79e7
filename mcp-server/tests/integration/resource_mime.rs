//! A resource's declared `mime_type` is the default of what it reads: a handler returning
//! text is served with the declared type (both for fixed resources and templates, in both
//! eras), a handler that names its own type keeps it, and text of a resource that declares
//! none is `text/plain`. Driven by `typemcp-client` in process, in both eras.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use typemcp_client::Client;
use typemcp_server::typemcp_core::protocol::ResourceContents;
use typemcp_server::{ResourceRoute, Server, resource};

use crate::support::client::{json_of, wires};

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

#[tokio::test]
async fn each_read_has_the_handlers_type_else_the_declared_one_else_plain_text_in_both_eras() {
    let run = async |client: Client, run: typemcp_client::Run| {
        let listed = client.list_resources().await.unwrap();
        let all = listed.iter().find(|r| r.uri == "rooms://all").unwrap();
        assert_eq!(all.mime_type.as_deref(), Some("application/json"), "{run}");
        for (uri, mime_type) in [
            ("rooms://all", "application/json"),
            ("rooms://by-hand", "application/json"),
            ("rooms://policy", "text/csv"),
            ("rooms://note", "text/plain"),
        ] {
            let read = json_of(&client.read_resource(uri).await.unwrap());
            assert_eq!(read["contents"][0]["mimeType"], mime_type, "{run}: {uri}");
        }
        let read = json_of(&client.read_resource("rooms://blue").await.unwrap());
        let blue = json!([{"uri": "rooms://blue", "mimeType": "application/json", "text": r#"{"id":"blue"}"#}]);
        assert_eq!(read["contents"], blue, "{run}");
    };
    wires(server).run(Client::builder, run).await.unwrap();
}
