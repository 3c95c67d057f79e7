//! Content negotiation: the request must be JSON, and the client must accept JSON or SSE.

use http::HeaderMap;
use http::header::{ACCEPT, CONTENT_TYPE};

/// How a response may be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Accepts {
    pub(crate) json: bool,
    pub(crate) sse: bool,
}

/// Both JSON and SSE.
const ALL: Accepts = Accepts {
    json: true,
    sse: true,
};

/// `Content-Type` is `application/json` (parameters such as `charset` allowed).
pub(crate) fn is_json_body(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// Reads `Accept`. No header means anything is accepted.
pub(crate) fn accepts(headers: &HeaderMap) -> Accepts {
    let mut values = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .peekable();
    if values.peek().is_none() {
        return ALL;
    }
    let mut accepts = Accepts {
        json: false,
        sse: false,
    };
    for range in values.flat_map(|v| v.split(',')) {
        let mut parts = range.split(';');
        let mime = parts.next().unwrap_or("").trim();
        if parts.any(refuses) {
            continue;
        }
        let is = |name: &str| mime.eq_ignore_ascii_case(name);
        if is("*/*") {
            accepts = ALL;
        } else if is("application/json") || is("application/*") {
            accepts.json = true;
        } else if is("text/event-stream") || is("text/*") {
            accepts.sse = true;
        }
    }
    accepts
}

/// Whether a media range's parameter is `q=0` (spaces around the `=` allowed).
fn refuses(parameter: &str) -> bool {
    parameter
        .split_once('=')
        .is_some_and(|(name, value)| name.trim().eq_ignore_ascii_case("q") && value.trim() == "0")
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn with(name: http::HeaderName, value: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_static(value));
        h
    }

    #[test]
    fn reads_content_type_and_accept() {
        assert!(is_json_body(&with(
            CONTENT_TYPE,
            "application/json; charset=utf-8"
        )));
        assert!(!is_json_body(&with(CONTENT_TYPE, "text/plain")));
        assert!(!is_json_body(&HeaderMap::new()));
        assert_eq!(
            accepts(&with(ACCEPT, "application/json, text/event-stream")),
            Accepts {
                json: true,
                sse: true
            }
        );
        assert_eq!(
            accepts(&with(ACCEPT, "application/json")),
            Accepts {
                json: true,
                sse: false
            }
        );
        assert_eq!(
            accepts(&with(ACCEPT, "text/html")),
            Accepts {
                json: false,
                sse: false
            }
        );
        assert_eq!(
            accepts(&with(ACCEPT, "*/*")),
            Accepts {
                json: true,
                sse: true
            }
        );
        assert_eq!(
            accepts(&with(ACCEPT, "application/json;q=0, text/event-stream")),
            Accepts {
                json: false,
                sse: true
            }
        );
        // Media types are case-insensitive; `q = 0` refuses, any other weight accepts.
        assert_eq!(
            accepts(&with(
                ACCEPT,
                "Application/JSON; q=0.5, TEXT/Event-Stream; q = 0"
            )),
            Accepts {
                json: true,
                sse: false
            }
        );
    }
}
