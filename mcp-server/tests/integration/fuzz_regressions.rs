//! Inputs the fuzz targets (`fuzz/`, see its README) found, replayed through the server's
//! in-process entry point ([`Server::handle_message`]): each gets the right answer, and the
//! server keeps serving afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use typemcp_server::{Server, ToolRoute, TransportInfo};

fn server() -> Server {
    Server::builder()
        .tool(ToolRoute::new("hi", || async { "hello" }).description("Greets."))
        .build()
        .unwrap()
}

async fn send(server: &Server, message: &[u8]) -> Option<Value> {
    let reply = server
        .handle_message(message, TransportInfo::in_process())
        .await?;
    Some(serde_json::from_slice(&reply).expect("every reply is JSON"))
}

/// After each input: a plain call is still answered.
async fn still_serves(server: &Server) {
    let meta = crate::support::wire::meta(json!({}));
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "hi", "_meta": meta}});
    let reply = send(server, call.to_string().as_bytes()).await.unwrap();
    assert_eq!(reply["id"], 9);
    assert_eq!(reply["result"]["content"][0]["text"], "hello", "{reply}");
}

/// Target `jsonrpc`, the first crash: a notification whose unknown member held a byte that is
/// not UTF-8 got no answer (it was taken for a valid notification and dropped). Invalid
/// JSON is answered `-32700`, without an id. Fixed in `mcp-core/src/jsonrpc/message.rs`.
#[tokio::test]
async fn a_message_that_is_not_utf8_is_a_parse_error() {
    let server = server();
    let found: &[u8] = b"{\"jsonrpc\": \"2.0\", \"method\": \"notificati5ns/cancelled\", \
        \"rarams\": {\"r\xecequestIdBBJB\": 0}}";
    let request: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"x\":\"\xff\"}";
    for input in [found, request] {
        let reply = send(&server, input)
            .await
            .expect("a parse error is answered");
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: invalid JSON"}})
        );
        still_serves(&server).await;
    }
}

/// Target `jsonrpc`, the second crash (of the target's check, not of the server): a request
/// naming `method` twice. `serde_json::Value` keeps the last member, so the check expected
/// the id echoed; the server refuses the message as a whole (`-32600`, without an id, as the
/// schema allows when the message cannot be read), which is what it should do: which of the
/// two methods was meant cannot be told. Kept so that behaviour stays.
#[tokio::test]
async fn a_member_given_twice_refuses_the_message() {
    let server = server();
    let found = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools1call", "method": {"nresul.&tame": "greet", "arguments": {}, "_meta": {"io.mo||||delcontextprotocol/IrotocglVershon": "", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "ul/": {}}}}}}"#;
    let twice = br#"{"jsonrpc":"2.0","id":2,"id":3,"method":"tools/list","params":{}}"#;
    for input in [found.as_slice(), twice.as_slice()] {
        let reply = send(&server, input).await.expect("answered");
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("duplicate field"), "{message}");
        assert!(reply.get("id").is_none(), "{reply}");
        still_serves(&server).await;
    }
}
