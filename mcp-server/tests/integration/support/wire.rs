//! Raw 2026-07-28 messages, in process (`Server::handle_message`), for the tests that send what
//! a client never would (forged, damaged, replayed or outdated states, answers nobody asked
//! for) or read the exact shape of an answer; what needs no raw wire goes through the typed
//! client ([`super::client`]).

use serde_json::{Map, Value, json};
use typemcp_server::{Server, TransportInfo};

/// The capabilities of a client that answers forms.
pub fn forms() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// The `_meta` of a request from a 2026-07-28 client declaring `capabilities`.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A request (id 1) of `method` with `params`, and the [`meta`] of a client declaring
/// `capabilities`.
pub fn request(method: &str, mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = meta(capabilities);
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// A `tools/call` of `tool` with `arguments` and the `extra` params (`inputResponses`,
/// `requestState`, …), from a client declaring `capabilities`.
pub fn tool_call(tool: &str, arguments: Value, extra: Value, capabilities: Value) -> Value {
    let mut params = Map::from_iter([
        ("name".to_owned(), json!(tool)),
        ("arguments".to_owned(), arguments),
    ]);
    let extra = extra
        .as_object()
        .unwrap_or_else(|| panic!("extra params not an object: {extra}"));
    params.extend(extra.clone());
    request("tools/call", Value::Object(params), capabilities)
}

/// What `server` answers to `message`, in process.
pub async fn reply(server: &Server, message: &Value) -> Value {
    reply_over(server, message, TransportInfo::in_process()).await
}

/// What `server` answers to `message` over `transport` (an authenticated one, say).
pub async fn reply_over(server: &Server, message: &Value, transport: TransportInfo) -> Value {
    let bytes = serde_json::to_vec(message).expect("serialises");
    let answer = server.handle_message(&bytes, transport).await;
    let answer = answer.unwrap_or_else(|| panic!("no answer to {message}"));
    serde_json::from_slice(&answer).unwrap_or_else(|e| panic!("{e}: not JSON"))
}
