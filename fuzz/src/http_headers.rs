//! The mirrored HTTP headers of 2026-07-28 (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, each plain or in the `=?base64?…?=` form), through the public axum service
//! ([`Server::http_service`](typemcp_server::Server::http_service)) called in process with
//! tower's `oneshot`.
//!
//! Input: a control byte, then up to four pieces separated by `\n`: the values of the three
//! headers, and the name the body carries. The control byte picks the method (`tools/call`
//! of `echo`, `prompts/get` of `hello`, `resources/read` of `notes://<name>`, or
//! `tools/list`) and which headers are left out. A resource URI is the fuzzer's (served
//! through the template `notes://{owner}/{id}.txt`), so names outside ASCII, which only the
//! base64 form can carry, are reached.
//!
//! Checked against a reference reading of the rule (present, visible ASCII, trimmed, the
//! base64 form decoded to UTF-8, equal to the body): the answer is `-32020` exactly when
//! the rule is broken; every answer is a JSON-RPC response with the request's id.

use std::sync::OnceLock;

use axum::Router;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderValue, Request};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

use crate::fixtures::{self, VERSION, assert_response, meta, runtime};

/// The header names, in input order.
const HEADERS: [&str; 3] = ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"];

fn router() -> &'static Router {
    static ROUTER: OnceLock<Router> = OnceLock::new();
    ROUTER.get_or_init(|| fixtures::server(|s| s).http_service())
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let mut pieces = rest.split(|b| *b == b'\n');
    let values: [Option<&[u8]>; 3] = std::array::from_fn(|_| pieces.next());
    let name = String::from_utf8_lossy(pieces.next().unwrap_or(b"ann/1.txt")).into_owned();
    let (method, params, body_name) = match control % 4 {
        0 => (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
            Some("echo".to_owned()),
        ),
        1 => (
            "prompts/get",
            json!({"name": "hello"}),
            Some("hello".to_owned()),
        ),
        2 => {
            let uri = format!("notes://{name}");
            ("resources/read", json!({"uri": uri}), Some(uri))
        }
        _ => ("tools/list", json!({}), None),
    };
    let mut params = params;
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let mut request = Request::builder()
        .method("POST")
        .uri("/")
        .header("Host", "127.0.0.1")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json");
    let mut sent: [Option<Vec<u8>>; 3] = [None, None, None];
    for (i, (header, value)) in HEADERS.iter().zip(values).enumerate() {
        // Bits 2..5 of the control byte leave headers out.
        if control & (4 << i) != 0 {
            continue;
        }
        let Some(value) = value else { continue };
        let Ok(value) = HeaderValue::from_bytes(value) else {
            continue;
        };
        sent[i] = Some(value.as_bytes().to_vec());
        request = request.header(*header, value);
    }
    let Ok(request) = request.body(body.to_string()) else {
        return;
    };
    let expected = [Some(VERSION.to_owned()), Some(method.to_owned()), body_name];
    let broken = HEADERS.iter().enumerate().any(|(i, _)| {
        // `Mcp-Name` is required only for the three named methods.
        match &expected[i] {
            None => false,
            Some(want) => reference_read(sent[i].as_deref()).as_deref() != Some(want.as_str()),
        }
    });
    let (status, reply) = runtime().block_on(async {
        let response = router()
            .clone()
            .oneshot(request)
            .await
            .unwrap_or_else(|never| match never {});
        let status = response.status();
        let body = response.into_body().collect().await;
        let body = body.map(|b| b.to_bytes().to_vec()).unwrap_or_default();
        (status, body)
    });
    let response = assert_response(&reply);
    assert_eq!(response["id"], 7, "{response}");
    let code = response["error"]["code"].as_i64();
    assert_eq!(
        code == Some(-32020),
        broken,
        "headers {:?} for {method} {:?}: {status} {response}",
        sent.iter()
            .map(|v| v.as_deref().map(String::from_utf8_lossy))
            .collect::<Vec<_>>(),
        expected
    );
    if broken {
        assert_eq!(status, 400, "{response}");
    }
}

/// The rule, read independently: present, visible ASCII (space and tab allowed), surrounding
/// whitespace ignored, `=?base64?X?=` decoded (standard alphabet, padded) to UTF-8.
fn reference_read(value: Option<&[u8]>) -> Option<String> {
    let value = value?;
    if !value
        .iter()
        .all(|b| *b == b'\t' || (0x20..0x7f).contains(b))
    {
        return None;
    }
    let text = std::str::from_utf8(value).ok()?.trim_matches([' ', '\t']);
    if let Some(encoded) = text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        let bytes = STANDARD.decode(encoded).ok()?;
        return String::from_utf8(bytes).ok();
    }
    Some(text.to_owned())
}
