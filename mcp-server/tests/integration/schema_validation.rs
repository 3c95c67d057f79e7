//! The opt-in `schema-validation` feature: a tool with a hand-written input schema can have
//! its arguments checked against that schema (JSON Schema 2020-12) before the handler runs.
//! Run with `cargo test -p typemcp-server --features schema-validation --test integration schema_validation`
//! (`.ci/run` does).

#![cfg(feature = "schema-validation")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value, json};
use typemcp_client::{Client, ToolResultExt};
use typemcp_server::{BuildError, Server, ToolRoute};

use crate::support::client::connect;

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// A contact schema with constraints no Rust type expresses (a conditional requirement).
fn contact_schema() -> Map<String, Value> {
    object(json!({
        "type": "object",
        "properties": {
            "method": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string", "minLength": 5},
            "email": {"type": "string"}
        },
        "required": ["method"],
        "if": {"properties": {"method": {"const": "phone"}}},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }))
}

/// The text of `contact` called with `arguments` on `client`, and whether it is a tool error.
async fn call(client: &Client, arguments: Value) -> (String, bool) {
    let result = client.call_tool("contact", arguments).await.unwrap();
    (result.text(), result.is_tool_error())
}

/// A client of `server`, in process.
async fn client_of(server: Server) -> Client {
    connect(server, Client::builder()).await
}

fn server(validate: bool, runs: Arc<AtomicUsize>) -> Server {
    let mut route = ToolRoute::new("contact", move || {
        let runs = runs.clone();
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            "saved"
        }
    })
    .input_schema(contact_schema());
    if validate {
        route = route.validate_arguments();
    }
    Server::builder().tool(route).build().unwrap()
}

#[tokio::test]
async fn arguments_breaking_the_schema_never_reach_the_handler() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = client_of(server(true, runs.clone())).await;

    let ok = call(&client, json!({"method": "phone", "phone": "555-0100"})).await;
    assert_eq!(ok, ("saved".to_owned(), false));
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    for (arguments, needle) in [
        (
            json!({"method": "phone"}),
            "\"phone\" is a required property",
        ),
        (json!({"method": "fax"}), "/method"),
        (json!({"method": "phone", "phone": "1"}), "/phone"),
        (
            json!({"method": "email", "email": "a@b", "extra": 1}),
            "extra",
        ),
    ] {
        let (text, is_error) = call(&client, arguments.clone()).await;
        assert!(is_error, "{arguments}");
        assert!(text.starts_with("Invalid arguments: "), "{text}");
        assert!(text.contains(needle), "{needle:?} not in {text:?}");
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "refused calls never ran the handler"
    );
}

#[tokio::test]
async fn without_the_opt_in_the_schema_is_only_advertised() {
    let runs = Arc::new(AtomicUsize::new(0));
    let client = client_of(server(false, runs.clone())).await;
    let result = call(&client, json!({"method": "fax"})).await;
    assert_eq!(result, ("saved".to_owned(), false));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn a_schema_that_does_not_compile_is_a_build_error() {
    let route = ToolRoute::new("broken", || async { "x" })
        .input_schema(object(
            json!({"type": "object", "properties": {"a": {"type": 12}}}),
        ))
        .validate_arguments();
    let err = Server::builder().tool(route).build().unwrap_err();
    assert!(matches!(err, BuildError::InvalidSchema(_)), "{err:?}");
    assert!(err.to_string().contains("\"broken\""), "{err}");
}
