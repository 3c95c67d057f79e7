//! Tool arguments mirrored into `Mcp-Param-{Name}` headers (SEP-2243, `x-mcp-header`):
//!
//! - over Streamable HTTP, on a real loopback socket, a 2026-07-28 `tools/call` whose body
//!   has a mirrored argument (present, not null) needs its header with the same value (plain
//!   or `=?base64?…?=`, integers compared numerically, booleans as `true`/`false`); a missing,
//!   different or undecodable header is refused with 400 and `-32020`, carrying the request's
//!   id, and the server keeps serving;
//! - the same call over stdio or in-process needs no header;
//! - a tool whose annotations break the rules is refused when the server is built, or when it
//!   is added to a running server, with an error naming the tool and the property.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use crate::support::abuse::{
    Conn, JSON_ONLY, call, error_code, post_head, serve_http, text, within,
};
use serde_json::{Map, Value, json};
use typemcp_server::transport::http::HttpConfig;
use typemcp_server::{BuildError, Server, ToolRoute, tool};

/// Runs a query in a region.
#[tool]
async fn query(
    #[arg(header = "Region")] region: String,
    #[arg(header = "Shard")] shard: Option<i64>,
    #[arg(header = "Dry-Run")] dry_run: Option<bool>,
    sql: Option<String>,
) -> String {
    let shard = shard.map_or("-".to_owned(), |s| s.to_string());
    let dry_run = dry_run.map_or("-".to_owned(), |d| d.to_string());
    format!("{region} {shard} {dry_run} {}", sql.unwrap_or_default())
}

fn server() -> Server {
    Server::builder().tool(query).build().unwrap()
}

/// POSTs `message` with the standard mirrored headers and `extra` ones; status and answer.
async fn post(addr: SocketAddr, message: &Value, extra: &[(&str, &str)]) -> (u16, Value) {
    let body = message.to_string();
    let method = message["method"].as_str().unwrap();
    let name = message["params"]["name"].as_str();
    let mut head = post_head(method, name, body.len(), JSON_ONLY);
    head.truncate(head.len() - 2);
    for (header, value) in extra {
        head.push_str(&format!("{header}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut request = head.into_bytes();
    request.extend_from_slice(body.as_bytes());
    let mut conn = Conn::open(addr).await;
    let (head, body) = within(10, "an HTTP answer", conn.exchange(&request))
        .await
        .unwrap();
    (head.status, serde_json::from_slice(&body).unwrap())
}

/// Asserts a 400 `-32020` refusal of request `id` whose message contains `needle`.
#[track_caller]
fn assert_refused((status, reply): (u16, Value), id: &str, needle: &str) {
    assert_eq!(status, 400, "{reply}");
    assert_eq!(error_code(&reply), -32020, "{reply}");
    assert_eq!(reply["id"], id, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(needle), "{message:?} lacks {needle:?}");
}

#[tokio::test]
async fn matching_headers_are_accepted() {
    let addr = serve_http(server(), HttpConfig::default()).await;
    let arguments = json!({"region": "us-west1", "shard": 42, "dry_run": true, "sql": "x"});
    let headers = [
        ("Mcp-Param-Region", "us-west1"),
        ("mcp-param-shard", "42"),
        ("MCP-PARAM-DRY-RUN", "true"),
    ];
    let (status, reply) = post(addr, &call("ok", "query", arguments), &headers).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), "us-west1 42 true x");
    // Integers compare numerically; surrounding whitespace is no part of a value.
    let arguments = json!({"region": "eu", "shard": 7});
    let headers = [("Mcp-Param-Region", "  eu "), ("Mcp-Param-Shard", "7.0")];
    let (status, reply) = post(addr, &call("num", "query", arguments), &headers).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), "eu 7 - ");
}

#[tokio::test]
async fn base64_encoded_values_are_decoded_first() {
    let addr = serve_http(server(), HttpConfig::default()).await;
    // " Zürich " has non-ASCII characters and surrounding spaces: it travels encoded.
    let arguments = json!({"region": " Zürich "});
    let headers = [("Mcp-Param-Region", "=?base64?IFrDvHJpY2gg?=")];
    let (status, reply) = post(addr, &call("b64", "query", arguments), &headers).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), " Zürich  - - ");
    // Without both markers, a value is literal.
    let arguments = json!({"region": "=?base64?SGVsbG8="});
    let headers = [("Mcp-Param-Region", "=?base64?SGVsbG8=")];
    let (status, reply) = post(addr, &call("lit", "query", arguments), &headers).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn null_or_absent_arguments_need_no_header() {
    let addr = serve_http(server(), HttpConfig::default()).await;
    let arguments = json!({"region": "eu", "shard": null});
    let headers = [("Mcp-Param-Region", "eu")];
    let (status, reply) = post(addr, &call("null", "query", arguments), &headers).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), "eu - - ");
}

#[tokio::test]
async fn missing_mismatched_or_undecodable_headers_are_refused_and_the_server_keeps_serving() {
    let addr = serve_http(server(), HttpConfig::default()).await;
    let region = |id| call(id, "query", json!({"region": "us-west1"}));
    let refused = post(addr, &region("missing"), &[]).await;
    assert_refused(
        refused,
        "missing",
        "missing required Mcp-Param-Region header",
    );

    let refused = post(addr, &region("other"), &[("Mcp-Param-Region", "eu")]).await;
    let expected =
        "Header mismatch: Mcp-Param-Region header value 'eu' does not match body value 'us-west1'";
    assert_refused(refused, "other", expected);

    let refused = post(addr, &region("case"), &[("Mcp-Param-Region", "US-WEST1")]).await;
    assert_refused(refused, "case", "does not match");

    let padding = [("Mcp-Param-Region", "=?base64?dXMtd2VzdDE?=")];
    assert_refused(post(addr, &region("pad"), &padding).await, "pad", "base64");
    let alphabet = [("Mcp-Param-Region", "=?base64?dXMt!!!d2VzdDE=?=")];
    assert_refused(post(addr, &region("abc"), &alphabet).await, "abc", "base64");

    let shard = call("shard", "query", json!({"region": "eu", "shard": 3}));
    let headers = [("Mcp-Param-Region", "eu"), ("Mcp-Param-Shard", "three")];
    assert_refused(
        post(addr, &shard, &headers).await,
        "shard",
        "Mcp-Param-Shard",
    );
    let dry = call("dry", "query", json!({"region": "eu", "dry_run": false}));
    let headers = [("Mcp-Param-Region", "eu"), ("Mcp-Param-Dry-Run", "False")];
    assert_refused(post(addr, &dry, &headers).await, "dry", "Mcp-Param-Dry-Run");
    let headers = [("Mcp-Param-Region", "eu")];
    assert_refused(post(addr, &dry, &headers).await, "dry", "Mcp-Param-Dry-Run");

    // Still serving, and an unknown tool gets its usual error, not a header error.
    let arguments = json!({"region": "eu"});
    let headers = [("Mcp-Param-Region", "eu")];
    let (status, reply) = post(addr, &call("after", "query", arguments), &headers).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), "eu - - ");
    let unknown = call("unknown", "nope", json!({"region": "eu"}));
    let (_, reply) = post(addr, &unknown, &[]).await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
}

#[tokio::test]
async fn a_tool_added_while_running_is_checked_too() {
    let server = server();
    let addr = serve_http(server.clone(), HttpConfig::default()).await;
    let schema = json!({"type": "object", "properties": {
        "tenant": {"type": "string", "x-mcp-header": "Tenant"},
    }});
    let route = ToolRoute::new("tenant", || async { "ok" }).input_schema(object(schema));
    server.add_tool(route).unwrap();
    let tenant = call("t", "tenant", json!({"tenant": "acme"}));
    assert_refused(post(addr, &tenant, &[]).await, "t", "Mcp-Param-Tenant");
    let (status, reply) = post(addr, &tenant, &[("Mcp-Param-Tenant", "acme")]).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn other_transports_need_no_header() {
    let server = server();
    let request = call("plain", "query", json!({"region": "eu"})).to_string();
    let transport = typemcp_server::TransportInfo::in_process();
    let reply = server.handle_message(request.as_bytes(), transport).await;
    let reply: Value = serde_json::from_slice(&reply.unwrap()).unwrap();
    assert_eq!(text(&reply), "eu - - ");
}

// ----- Registration -----

fn object(schema: Value) -> Map<String, Value> {
    match schema {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The error building a server with one hand-written tool of input schema `schema`.
fn refusal(schema: Value) -> BuildError {
    let route = ToolRoute::new("mirror", || async { "ok" }).input_schema(object(schema));
    Server::builder().tool(route).build().unwrap_err()
}

#[track_caller]
fn assert_invalid(error: BuildError, at: &str, needle: &str) {
    let BuildError::InvalidParamHeader {
        tool,
        property,
        reason,
    } = &error
    else {
        panic!("not a header refusal: {error}");
    };
    assert_eq!(tool, "mirror");
    assert_eq!(property, at, "{error}");
    assert!(reason.contains(needle), "{reason:?} lacks {needle:?}");
    let shown = error.to_string();
    assert!(
        shown.contains("\"mirror\"") && shown.contains(at),
        "{shown}"
    );
}

#[test]
fn tools_breaking_the_annotation_rules_are_refused_at_build() {
    let property = |schema: Value| json!({"type": "object", "properties": {"p": schema}});
    let cases = [
        (json!({"type": "string", "x-mcp-header": ""}), "token"),
        (
            json!({"type": "string", "x-mcp-header": "Bad Name"}),
            "token",
        ),
        (
            json!({"type": "string", "x-mcp-header": "Bad\r\nName"}),
            "token",
        ),
        (json!({"type": "number", "x-mcp-header": "N"}), "`number`"),
        (json!({"type": "object", "x-mcp-header": "N"}), "`object`"),
        (
            json!({"type": ["string", "null"], "x-mcp-header": "N"}),
            "single `type`",
        ),
        (
            json!({"$ref": "#/$defs/N", "x-mcp-header": "N"}),
            "own `type`",
        ),
        (
            json!({"type": "integer", "minimum": -9_007_199_254_740_992_i64, "x-mcp-header": "N"}),
            "2^53",
        ),
    ];
    for (schema, needle) in cases {
        assert_invalid(refusal(property(schema)), "p", needle);
    }
    let twice = json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "Region"},
        "b": {"type": "boolean", "x-mcp-header": "region"},
    }});
    assert_invalid(refusal(twice), "b", "case-insensitive");
    let in_items = json!({"type": "object", "properties": {
        "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
    }});
    assert_invalid(
        refusal(in_items),
        "/properties/list/items",
        "`properties` alone",
    );
    let in_one_of = json!({"type": "object", "oneOf": [
        {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}},
    ]});
    assert_invalid(
        refusal(in_one_of),
        "/oneOf/0/properties/a",
        "`properties` alone",
    );
}

/// Runs a query on a fraction of the data: a `number` has no single header spelling.
#[tool]
async fn sample(#[arg(header = "Ratio")] ratio: f64) -> String {
    ratio.to_string()
}

#[test]
fn a_declared_tool_mirroring_a_type_without_one_spelling_is_refused_at_build() {
    let error = Server::builder().tool(sample).build().unwrap_err();
    let BuildError::InvalidParamHeader { tool, property, .. } = &error else {
        panic!("not a header refusal: {error}");
    };
    assert_eq!(
        (tool.as_str(), property.as_str()),
        ("sample", "ratio"),
        "{error}"
    );
    assert!(error.to_string().contains("`number`"), "{error}");
}

#[test]
fn nested_properties_and_valid_annotations_register() {
    let schema = json!({"type": "object", "properties": {
        "where": {"type": "object", "properties": {
            "zone": {"type": "integer", "minimum": 0, "maximum": 9, "x-mcp-header": "Zone"},
        }},
        "tenant": {"type": "string", "x-mcp-header": "Tenant-Id"},
    }});
    let route = ToolRoute::new("mirror", || async { "ok" }).input_schema(object(schema));
    Server::builder().tool(route).build().unwrap();
}

#[test]
fn a_running_server_refuses_such_a_tool_and_stays_unchanged() {
    let server = server();
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}});
    let route = ToolRoute::new("mirror", || async { "ok" }).input_schema(object(schema));
    assert_invalid(server.add_tool(route).unwrap_err(), "n", "`number`");
    assert!(
        !server.remove_tool("mirror"),
        "the refused tool was not registered"
    );
}
