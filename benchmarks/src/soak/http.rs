//! A keep-alive HTTP/1.1 client connection of the soak driver, able to send anything: any
//! method, any headers, any body, valid or not.
//!
//! A worker keeps one connection and reopens it when the server closed it (after a refused
//! body, say) or a request failed in transport. Replies are read whole, with their status,
//! their `Mcp-Session-Id` and their JSON-RPC message (unpacked from an event stream when
//! the server answered with one).

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use http::{HeaderValue, Method, Request, header};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::protocol::{self, HEADER_SESSION_ID, MCP_PATH};

/// Longest wait for one reply; longer counts as a failure.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A request to send: method, headers and body. `Host` is added unless listed; the others
/// only as listed, so a request can leave out or garble any of them.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The HTTP method.
    pub method: Method,
    /// Headers, in order (names in lower case).
    pub headers: Vec<(&'static str, String)>,
    /// The body (empty for none).
    pub body: Bytes,
}

impl Outgoing {
    /// A POST of `body` with these headers.
    pub fn post(headers: Vec<(&'static str, String)>, body: impl Into<Bytes>) -> Self {
        Self {
            method: Method::POST,
            headers,
            body: body.into(),
        }
    }
}

/// A reply, read whole.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The `Mcp-Session-Id` header, if any.
    pub session: Option<String>,
    /// The JSON-RPC message of the body (the body itself unless it is an event stream).
    pub json: Bytes,
}

impl Reply {
    /// The body as text, cut short, for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "HTTP {}: {}",
            self.status,
            protocol::truncate(&String::from_utf8_lossy(&self.json))
        )
    }
}

/// One worker's connection to the server, opened on first use and after failures.
#[derive(Debug)]
pub struct Client {
    addr: SocketAddr,
    host: String,
    sender: Option<SendRequest<Full<Bytes>>>,
    /// How many connections this client opened.
    pub connects: u64,
}

impl Client {
    /// A client of the server at `addr` (not connected yet).
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            host: addr.to_string(),
            sender: None,
            connects: 0,
        }
    }

    async fn connect(&mut self) -> anyhow::Result<SendRequest<Full<Bytes>>> {
        let stream = TcpStream::connect(self.addr)
            .await
            .with_context(|| format!("cannot connect to {}", self.addr))?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .context("HTTP/1.1 handshake failed")?;
        tokio::spawn(async move {
            // Ends when the sender is dropped or the server closes the connection.
            let _ = connection.await;
        });
        self.connects += 1;
        Ok(sender)
    }

    /// Sends `request` on the open connection (opening one if there is none, or if the
    /// server closed it) and reads the reply whole, within [`REQUEST_TIMEOUT`].
    ///
    /// On a transport error the connection is dropped, so the next request opens a new one.
    pub async fn send(&mut self, request: &Outgoing) -> anyhow::Result<Reply> {
        let result = tokio::time::timeout(REQUEST_TIMEOUT, self.exchange(request)).await;
        let result = match result {
            Ok(result) => result,
            Err(_) => Err(anyhow::anyhow!("no reply within {REQUEST_TIMEOUT:?}")),
        };
        if result.is_err() {
            self.sender = None;
        }
        result
    }

    async fn exchange(&mut self, outgoing: &Outgoing) -> anyhow::Result<Reply> {
        let mut sender = match self.sender.take() {
            Some(sender) if !sender.is_closed() => sender,
            _ => self.connect().await?,
        };
        let mut request = Request::builder()
            .method(outgoing.method.clone())
            .uri(MCP_PATH);
        if !outgoing.headers.iter().any(|(name, _)| *name == "host") {
            request = request.header(header::HOST, &self.host);
        }
        for (name, value) in &outgoing.headers {
            request = request.header(*name, HeaderValue::from_str(value)?);
        }
        let request = request.body(Full::new(outgoing.body.clone()))?;
        sender.ready().await.context("connection not ready")?;
        let response = sender
            .send_request(request)
            .await
            .context("sending the request")?;
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response
            .into_body()
            .collect()
            .await
            .context("reading the body")?
            .to_bytes();
        let json = match protocol::json_payload(content_type.as_deref(), &body) {
            std::borrow::Cow::Borrowed(_) => body,
            std::borrow::Cow::Owned(json) => Bytes::from(json),
        };
        self.sender = Some(sender);
        Ok(Reply {
            status,
            session,
            json,
        })
    }

    /// Drops the connection (the server sees it close).
    pub fn disconnect(&mut self) {
        self.sender = None;
    }
}
