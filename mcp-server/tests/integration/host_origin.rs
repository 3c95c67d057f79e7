//! The DNS-rebinding defence on a real loopback socket: every lenient `Host` and `Origin`
//! that used to pass as loopback is refused with its status (400 for a repeated or malformed
//! `Host`, 403 for a host not served and for a repeated, malformed or foreign `Origin`),
//! each with a JSON-RPC `-32600` error naming the header, and the server keeps serving.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use typemcp_server::transport::http::HttpConfig;

use crate::support::abuse::{
    Conn, JSON_ONLY, Probe, assert_serving, call, post, serve_http, tools, within,
};

/// The POST of an `echo` call whose `Host` line is replaced by `lines` (each `Name: value`).
fn request_with(lines: &[&str]) -> Vec<u8> {
    let request = post(&call("probe", "echo", json!({"text": "hi"})), JSON_ONLY);
    let text = String::from_utf8(request).unwrap();
    let replaced: String = lines.iter().map(|line| format!("{line}\r\n")).collect();
    text.replacen("Host: 127.0.0.1\r\n", &replaced, 1)
        .into_bytes()
}

/// Sends `lines` on a fresh connection: the status and the JSON body.
async fn send(addr: std::net::SocketAddr, lines: &[&str]) -> (u16, Value) {
    let mut conn = Conn::open(addr).await;
    let (head, body) = within(10, "an answer", conn.exchange(&request_with(lines)))
        .await
        .unwrap();
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    (head.status, body)
}

#[tokio::test]
async fn lenient_hosts_and_origins_are_refused_with_their_status_and_the_server_keeps_serving() {
    let probe = Probe::default();
    let addr = serve_http(tools(&probe).build().unwrap(), HttpConfig::default()).await;
    let cases: &[(&str, &[&str], u16, &str)] = &[
        (
            "two Hosts",
            &["Host: 127.0.0.1", "Host: evil.com"],
            400,
            "more than one Host",
        ),
        (
            "the same Host twice",
            &["Host: localhost", "Host: localhost"],
            400,
            "more than one Host",
        ),
        ("no Host", &[], 400, "missing Host"),
        (
            "[::1].evil.com",
            &["Host: [::1].evil.com"],
            400,
            "invalid Host",
        ),
        (
            "userinfo",
            &["Host: evil.com@localhost"],
            400,
            "invalid Host",
        ),
        (
            "an oversized port",
            &["Host: localhost:99999"],
            400,
            "invalid Host",
        ),
        ("127.1", &["Host: 127.1"], 400, "invalid Host"),
        (
            "127.0.0.1.evil.com",
            &["Host: 127.0.0.1.evil.com"],
            403,
            "Host not allowed",
        ),
        (
            "Origin [::1].evil.com",
            &["Host: localhost", "Origin: http://[::1].evil.com"],
            403,
            "Origin not allowed",
        ),
        (
            "Origin with a fragment",
            &["Host: localhost", "Origin: http://evil.com#@localhost"],
            403,
            "Origin not allowed",
        ),
        (
            "Origin with userinfo",
            &["Host: localhost", "Origin: http://evil.com@localhost"],
            403,
            "Origin not allowed",
        ),
        (
            "Origin with a path",
            &["Host: localhost", "Origin: http://localhost/x"],
            403,
            "Origin not allowed",
        ),
        (
            "a foreign Origin",
            &["Host: localhost", "Origin: http://evil.com"],
            403,
            "Origin not allowed",
        ),
        (
            "two Origins",
            &[
                "Host: localhost",
                "Origin: http://localhost",
                "Origin: http://localhost",
            ],
            403,
            "more than one Origin",
        ),
    ];
    for (case, lines, status, message) in cases {
        let (got, body) = send(addr, lines).await;
        assert_eq!(got, *status, "{case}: {body}");
        assert_eq!(body["error"]["code"], -32600, "{case}: {body}");
        let text = body["error"]["message"].as_str().unwrap_or_default();
        assert!(text.contains(message), "{case}: {body}");
        assert_serving(addr, case).await;
    }
    // Loopback in its accepted spellings, with a loopback Origin.
    for host in ["localhost:3000", "127.1.2.3", "[::1]:9"] {
        let (got, body) = send(
            addr,
            &[&format!("Host: {host}"), "Origin: http://localhost:3000"],
        )
        .await;
        assert_eq!(got, 200, "{host}: {body}");
        assert_eq!(body["id"], "probe", "{host}: {body}");
    }
}
