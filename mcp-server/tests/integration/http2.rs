//! HTTP/2 beside HTTP/1.1 on [`Server::serve_http_on`] (feature `http2`: cleartext, prior
//! knowledge): a tool call answered over HTTP/2; the connections that do not say which
//! version they speak (nothing sent, or a part of HTTP/2's preface) closed after the head
//! timeout while the others are served; an HTTP/2 connection with no request in progress
//! for as long closed, and one with a call in progress kept.

#![cfg(feature = "http2")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use typemcp_server::Server;
use typemcp_server::transport::http::HttpConfig;

use crate::support::abuse::{MODERN, Probe, assert_serving, call, serve_http, text, tools, within};

async fn start(config: HttpConfig) -> SocketAddr {
    let server: Server = tools(&Probe::default()).build().unwrap();
    serve_http(server, config).await
}

type Sender = hyper::client::conn::http2::SendRequest<Full<Bytes>>;

/// A new HTTP/2 connection (prior knowledge): its sender, and the connection's task, which
/// ends when the server closes it.
async fn connect_h2(addr: SocketAddr) -> (Sender, tokio::task::JoinHandle<()>) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
            .await
            .unwrap();
    let task = tokio::spawn(async move {
        let _ = connection.await;
    });
    (sender, task)
}

/// `message` POSTed on `sender`'s connection: the status and the JSON body.
async fn post_h2(sender: &mut Sender, addr: SocketAddr, message: &Value) -> (u16, Value) {
    let request = http::Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", message["params"]["name"].as_str().unwrap())
        .body(Full::new(Bytes::from(message.to_string())))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&body).unwrap())
}

/// `message` POSTed over a new HTTP/2 connection: the status and the JSON body.
async fn call_over_h2(addr: SocketAddr, message: &Value) -> (u16, Value) {
    let (mut sender, _connection) = connect_h2(addr).await;
    within(5, "the HTTP/2 answer", post_h2(&mut sender, addr, message)).await
}

/// Whether the server closes `stream` (end of file, or a reset) within 5 s.
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    let read = within(
        5,
        "the server closing the connection",
        stream.read(&mut byte),
    )
    .await;
    matches!(read, Ok(0) | Err(_))
}

#[tokio::test]
async fn a_tool_call_is_answered_over_http2_and_over_http1_on_the_same_port() {
    let addr = start(HttpConfig::default()).await;
    let (status, reply) = call_over_h2(addr, &call("h2", "echo", json!({"text": "over h2"}))).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["id"], "h2");
    assert_eq!(text(&reply), "over h2");
    assert_serving(addr, "over-http1").await;
}

#[tokio::test]
async fn connections_that_do_not_say_their_version_are_closed_and_others_are_served() {
    let config = HttpConfig::default().request_head_timeout(Duration::from_millis(300));
    let addr = start(config).await;
    // Nothing at all, and the first half of HTTP/2's preface.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut half_preface = TcpStream::connect(addr).await.unwrap();
    half_preface.write_all(b"PRI * HTTP/2").await.unwrap();
    assert_serving(addr, "meanwhile").await;
    let (status, _) = call_over_h2(addr, &call("h2", "echo", json!({"text": "meanwhile"}))).await;
    assert_eq!(status, 200);
    assert!(
        closed_by_server(&mut silent).await,
        "a silent connection is closed"
    );
    assert!(
        closed_by_server(&mut half_preface).await,
        "a connection stalled in the preface is closed"
    );
    let (status, reply) =
        call_over_h2(addr, &call("after", "echo", json!({"text": "after"}))).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn an_http2_connection_with_no_request_is_closed_and_one_with_a_request_in_progress_is_not() {
    let config = HttpConfig::default().request_head_timeout(Duration::from_millis(300));
    let probe = Probe::default();
    let addr = serve_http(tools(&probe).build().unwrap(), config).await;
    let (_idle, idle_connection) = connect_h2(addr).await;
    let (busy, _busy_connection) = connect_h2(addr).await;
    let held = tokio::spawn({
        let mut busy = busy.clone();
        async move { post_h2(&mut busy, addr, &call("held", "hold", json!({}))).await }
    });
    within(5, "the idle HTTP/2 connection closed", idle_connection)
        .await
        .unwrap();
    // Well past the head timeout, the connection with a call in progress still serves.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let mut busy = busy;
    let (status, reply) = within(
        5,
        "a second call on the busy connection",
        post_h2(
            &mut busy,
            addr,
            &call("again", "echo", json!({"text": "again"})),
        ),
    )
    .await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), "again");
    probe.release.cancel();
    let (status, reply) = within(5, "the held call", held).await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert_eq!(text(&reply), "finished");
}
