//! The HTTP ceiling: a bare hyper 1.x endpoint, no MCP framework.
//!
//! It does the least any MCP server must do for the benchmark request: read
//! the body, parse it as JSON-RPC with serde_json, check that it is a
//! `tools/call` of `echo`, and serialize a result echoing the id and the text.
//! It checks no headers, keeps no state and spawns nothing per request, so its
//! rate bounds what a framework on the same hyper plumbing
//! ([`super::spawn_http1`]) can reach.

use std::borrow::Cow;
use std::convert::Infallible;

use bytes::Bytes;
use http::{Method, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{Target, TargetKind};
use crate::protocol::{MCP_PATH, METHOD, TOOL_NAME};

/// The bare hyper target.
#[derive(Debug, Clone, Copy)]
pub struct BareHyper;

impl Target for BareHyper {
    fn name(&self) -> &'static str {
        "bare-hyper"
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Ceiling
    }

    fn has_http(&self) -> bool {
        true
    }

    fn spawn_http(&self, listener: TcpListener, shutdown: CancellationToken) -> anyhow::Result<()> {
        super::spawn_http1(listener, shutdown, service_fn(handle));
        Ok(())
    }
}

#[derive(Deserialize)]
struct CallRequest<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: CallParams<'a>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: EchoArguments<'a>,
}

#[derive(Deserialize)]
struct EchoArguments<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

#[derive(Serialize)]
struct Reply<'a, R: Serialize> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    #[serde(flatten)]
    outcome: R,
}

#[derive(Serialize)]
struct Success<'a> {
    result: EchoResult<'a>,
}

#[derive(Serialize)]
struct EchoResult<'a> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "isError")]
    is_error: bool,
}

#[derive(Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct Failure {
    error: ErrorObject,
}

#[derive(Serialize)]
struct ErrorObject {
    code: i32,
    message: &'static str,
}

async fn handle(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    if request.method() != Method::POST || request.uri().path() != MCP_PATH {
        return Ok(plain(StatusCode::NOT_FOUND, "not found"));
    }
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Ok(plain(StatusCode::BAD_REQUEST, "unreadable body")),
    };
    Ok(answer(&body))
}

/// The reply to one request body.
fn answer(body: &[u8]) -> Response<Full<Bytes>> {
    let Ok(call) = serde_json::from_slice::<CallRequest<'_>>(body) else {
        return plain(StatusCode::BAD_REQUEST, "not a tools/call request");
    };
    let encoded = if call.jsonrpc != "2.0" || call.method != METHOD || call.params.name != TOOL_NAME
    {
        serde_json::to_vec(&Reply {
            jsonrpc: "2.0",
            id: call.id,
            outcome: Failure {
                error: ErrorObject {
                    code: -32602,
                    message: "unknown method or tool",
                },
            },
        })
    } else {
        serde_json::to_vec(&Reply {
            jsonrpc: "2.0",
            id: call.id,
            outcome: Success {
                result: EchoResult {
                    content: [TextContent {
                        kind: "text",
                        text: &call.params.arguments.text,
                    }],
                    is_error: false,
                },
            },
        })
    };
    match encoded {
        Ok(json) => {
            let mut response = Response::new(Full::new(Bytes::from(json)));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("application/json"),
            );
            response
        }
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "serialization failed"),
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{check_reply_full, request_body};

    #[test]
    fn answers_the_benchmark_request() -> anyhow::Result<()> {
        let response = answer(&request_body(42));
        assert_eq!(response.status(), StatusCode::OK);
        let body = futures_free_collect(response)?;
        check_reply_full(&body, 42)?;
        Ok(())
    }

    #[test]
    fn rejects_other_tools() -> anyhow::Result<()> {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other","arguments":{"text":"x"}}}"#;
        let reply = futures_free_collect(answer(body))?;
        assert!(crate::protocol::check_reply(&reply, 1).is_err());
        assert_eq!(
            answer(b"{}").status(),
            StatusCode::BAD_REQUEST,
            "non-JSON-RPC body"
        );
        Ok(())
    }

    fn futures_free_collect(response: Response<Full<Bytes>>) -> anyhow::Result<Bytes> {
        let runtime = tokio::runtime::Builder::new_current_thread().build()?;
        let collected = runtime.block_on(response.into_body().collect())?;
        Ok(collected.to_bytes())
    }
}
