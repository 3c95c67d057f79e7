//! Incoming JSON-RPC messages and the parser that classifies malformed input; outgoing
//! result, error and notification envelopes.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::{McpError, Params, RequestId};

/// The longest string request id accepted, in bytes (integer ids are always accepted).
///
/// A server echoes a request's id on its response and keeps it while the request runs (and,
/// on a resumable 2025-11-25 stream, in the events kept for replay), so an id is something a
/// client sends and the server keeps: without a bound, a `ping` with a multi-megabyte id costs
/// the server megabytes per request. 256 bytes is far more than any client uses (UUIDs are 36,
/// counters a few). A message, request or response, with a longer string id is refused with
/// `-32600` (invalid request) before anything is kept, and the error carries no id: the
/// oversized one is never echoed.
///
/// ```
/// use typemcp_core::jsonrpc::{MAX_REQUEST_ID_BYTES, parse_message};
/// use typemcp_core::ErrorCode;
///
/// let id = "x".repeat(MAX_REQUEST_ID_BYTES + 1);
/// let line = format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#);
/// let refused = parse_message(line.as_bytes()).unwrap_err();
/// assert_eq!(refused.error.code, ErrorCode::INVALID_REQUEST);
/// assert_eq!(refused.id, None);
/// ```
pub const MAX_REQUEST_ID_BYTES: usize = 256;

/// A request from the client: it has an id and expects exactly one response.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRequest {
    /// The request id, echoed on the response.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The `params` object, as the client's JSON text; absent params read as an empty object.
    pub params: Params,
}

/// A notification from the client: no id, never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingNotification {
    /// The method name, such as `notifications/cancelled`.
    pub method: String,
    /// The `params` object, as the client's JSON text; absent params read as an empty object.
    pub params: Params,
}

/// One parsed message from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum IncomingMessage {
    /// A request.
    Request(IncomingRequest),
    /// A notification.
    Notification(IncomingNotification),
    /// A response (clients do not send these to a 2026-07-28 server; transports reject them).
    Response {
        /// The id of the response, if it had a valid one.
        id: Option<RequestId>,
    },
}

/// The fields a JSON-RPC message may carry, read without interpretation (`params` as the
/// text it is, borrowed from the message).
#[derive(Deserialize)]
struct RawMessage<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Loose<'a>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(borrow)]
    method: Option<Loose<'a>>,
    #[serde(borrow, default, deserialize_with = "present_raw")]
    params: Option<&'a RawValue>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

/// A member that must be a string, read without copying it (unless it has escapes); any
/// other value is skipped and only known not to be one.
enum Loose<'a> {
    Str(Cow<'a, str>),
    Other,
}

impl<'a> Loose<'a> {
    fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(text) => Some(text),
            Self::Other => None,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor(std::marker::PhantomData))
    }
}

struct LooseVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LooseVisitor<'a> {
    type Value = Loose<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
}

/// Keeps an explicit `null` distinguishable from an absent member.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Keeps an explicit `null` distinguishable from an absent member, as raw JSON.
fn present_raw<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Parses one JSON-RPC message.
///
/// On failure, returns the error response to send: `-32700` when the bytes are not JSON,
/// `-32600` when they are JSON but not one well-formed message (a batch array, a scalar,
/// a missing or wrong `jsonrpc`, a bad id, a string id longer than [`MAX_REQUEST_ID_BYTES`],
/// a non-string method, non-object params). The error echoes the request id whenever one
/// could be read (never an oversized one).
///
/// ```
/// use typemcp_core::jsonrpc::{parse_message, IncomingMessage};
/// use typemcp_core::ErrorCode;
///
/// let msg = parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).unwrap();
/// assert!(matches!(msg, IncomingMessage::Request(r) if r.method == "tools/list"));
///
/// assert_eq!(parse_message(b"{oops").unwrap_err().error.code, ErrorCode::PARSE_ERROR);
/// assert_eq!(parse_message(b"[]").unwrap_err().error.code, ErrorCode::INVALID_REQUEST);
/// ```
pub fn parse_message(bytes: &[u8]) -> Result<IncomingMessage, Box<ErrorResponse>> {
    // JSON text is UTF-8 (RFC 8259 §8.1). serde_json checks the strings it decodes, not the
    // ones it skips (unknown members, `result`, `error`): check the whole text first.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Box::new(ErrorResponse::new(
            None,
            McpError::parse_error("Parse error: invalid JSON"),
        )));
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first != Some(b'{') {
        // Not an object: decide between "not JSON at all" and "JSON of the wrong shape".
        return Err(Box::new(match serde_json::from_str::<IgnoredAny>(text) {
            Err(_) => ErrorResponse::new(None, McpError::parse_error("Parse error: invalid JSON")),
            Ok(_) if first == Some(b'[') => ErrorResponse::new(
                None,
                McpError::invalid_request("Invalid request: batch arrays are not supported"),
            ),
            Ok(_) => ErrorResponse::new(
                None,
                McpError::invalid_request("Invalid request: a message must be a JSON object"),
            ),
        }));
    }
    let raw: RawMessage<'_> = serde_json::from_str(text).map_err(|err| {
        let error = if err.is_syntax() || err.is_eof() {
            McpError::parse_error("Parse error: invalid JSON")
        } else {
            McpError::invalid_request(format!("Invalid request: {err}"))
        };
        Box::new(ErrorResponse::new(None, error))
    })?;
    classify(raw)
}

/// How deep arrays and objects may nest in a message, the message itself included: serde_json's
/// own limit when it builds a tree. `params` are kept as text, which serde_json skips over
/// without a limit, so the parser checks their depth itself, before any method reads them.
const MAX_DEPTH: usize = 128;

/// The message refusing params nested deeper than [`MAX_DEPTH`].
const TOO_DEEP: &str = "Parse error: the message nests arrays and objects more than 128 deep";
const _: () = assert!(MAX_DEPTH == 128);

/// Whether the JSON text of `params` (one member of the message) nests deeper than
/// [`MAX_DEPTH`]: brackets counted outside strings.
fn nests_too_deep(params: &str) -> bool {
    // Most params hold too few brackets to nest that deep: counted first, in one fast pass.
    let brackets = memchr::memchr2_iter(b'[', b'{', params.as_bytes()).count();
    if brackets < MAX_DEPTH {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (1usize, false, false);
    for byte in params.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The message refusing an id longer than [`MAX_REQUEST_ID_BYTES`].
const ID_TOO_LONG: &str = "Invalid request: id is longer than 256 bytes";
// The message names the limit: keep them in step.
const _: () = assert!(MAX_REQUEST_ID_BYTES == 256);

fn classify(raw: RawMessage<'_>) -> Result<IncomingMessage, Box<ErrorResponse>> {
    let id = match &raw.id {
        None => None,
        Some(Value::String(id)) if id.len() > MAX_REQUEST_ID_BYTES => {
            return Err(Box::new(ErrorResponse::new(
                None,
                McpError::invalid_request(ID_TOO_LONG),
            )));
        }
        Some(value) => match RequestId::from_value(value) {
            Some(id) => Some(id),
            None => {
                return Err(Box::new(ErrorResponse::new(
                    None,
                    McpError::invalid_request("Invalid request: id must be a string or an integer"),
                )));
            }
        },
    };
    let invalid = |message: &'static str| {
        Box::new(ErrorResponse::new(
            id.clone(),
            McpError::invalid_request(message),
        ))
    };
    if raw.jsonrpc.as_ref().and_then(Loose::as_str) != Some("2.0") {
        return Err(invalid("Invalid request: jsonrpc must be \"2.0\""));
    }
    if raw.result.is_some() || raw.error.is_some() {
        if raw.method.is_some() {
            return Err(invalid(
                "Invalid request: a message cannot be both a request and a response",
            ));
        }
        return Ok(IncomingMessage::Response { id });
    }
    let method = match raw.method {
        Some(Loose::Str(method)) => method.into_owned(),
        Some(Loose::Other) => return Err(invalid("Invalid request: method must be a string")),
        None => return Err(invalid("Invalid request: missing method")),
    };
    let params = match raw.params {
        None => Params::default(),
        Some(params) if nests_too_deep(params.get()) => {
            return Err(Box::new(ErrorResponse::new(
                id,
                McpError::parse_error(TOO_DEEP),
            )));
        }
        Some(params) if params.get().starts_with('{') => Params::from_raw(params.to_owned()),
        Some(_) => return Err(invalid("Invalid request: params must be an object")),
    };
    Ok(match id {
        Some(id) => IncomingMessage::Request(IncomingRequest { id, method, params }),
        None => IncomingMessage::Notification(IncomingNotification { method, params }),
    })
}

/// A successful response: `{"jsonrpc":"2.0","id":…,"result":…}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultResponse<R> {
    jsonrpc: JsonRpcVersion,
    /// The id of the request answered.
    pub id: RequestId,
    /// The result payload.
    pub result: R,
}

impl<R> ResultResponse<R> {
    /// Wraps a result for the request `id`.
    pub fn new(id: RequestId, result: R) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }
}

/// An error response: `{"jsonrpc":"2.0","id":…,"error":{code,message,data?}}`. The id is
/// omitted only when the request's id could not be read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorResponse {
    jsonrpc: JsonRpcVersion,
    /// The id of the request answered, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: McpError,
}

impl ErrorResponse {
    /// Wraps an error for the request `id`.
    pub fn new(id: Option<RequestId>, error: McpError) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            error,
        }
    }
}

/// A notification sent by the server: `{"jsonrpc":"2.0","method":…,"params":…}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Notification<P> {
    jsonrpc: JsonRpcVersion,
    /// The notification method.
    pub method: String,
    /// The parameters.
    pub params: P,
}

impl<P> Notification<P> {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: P) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params,
        }
    }
}

/// The literal `"2.0"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if v == "2.0" {
            Ok(Self)
        } else {
            Err(serde::de::Error::custom("jsonrpc must be \"2.0\""))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn code(bytes: &[u8]) -> (ErrorCode, Option<RequestId>) {
        let err = parse_message(bytes).expect_err("should be rejected");
        (err.error.code, err.id)
    }

    #[test]
    fn classifies_malformed_input() {
        assert_eq!(code(b"not json").0, ErrorCode::PARSE_ERROR);
        assert_eq!(code(b"{\"jsonrpc\":").0, ErrorCode::PARSE_ERROR);
        assert_eq!(
            code(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}]").0,
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(code(b"[1,").0, ErrorCode::PARSE_ERROR);
        assert_eq!(code(b"42").0, ErrorCode::INVALID_REQUEST);
        assert_eq!(code(b"\"x\"").0, ErrorCode::INVALID_REQUEST);
        assert_eq!(code(b"").0, ErrorCode::PARSE_ERROR);
    }

    #[test]
    fn echoes_the_id_of_a_malformed_request() {
        let (c, id) = code(br#"{"jsonrpc":"1.0","id":9,"method":"x"}"#);
        assert_eq!(
            (c, id),
            (ErrorCode::INVALID_REQUEST, Some(RequestId::Number(9)))
        );
        let (c, id) = code(br#"{"jsonrpc":"2.0","id":"a","method":5}"#);
        assert_eq!(
            (c, id),
            (ErrorCode::INVALID_REQUEST, Some(RequestId::from("a")))
        );
        let (c, id) = code(br#"{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}"#);
        assert_eq!(
            (c, id),
            (ErrorCode::INVALID_REQUEST, Some(RequestId::from("a")))
        );
    }

    #[test]
    fn refuses_params_nested_deeper_than_a_tree_could_be_built() {
        let nested = |depth: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":{}"x\"["{}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        // The message, params and 126 arrays: 128 levels, what serde_json builds.
        assert!(parse_message(nested(126).as_bytes()).is_ok());
        let (c, id) = code(nested(127).as_bytes());
        assert_eq!(
            (c, id),
            (ErrorCode::PARSE_ERROR, Some(RequestId::Number(1)))
        );
        // Brackets inside strings do not count.
        let quoted = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":"{}"}}}}"#,
            "[".repeat(500)
        );
        assert!(parse_message(quoted.as_bytes()).is_ok());
    }

    #[test]
    fn rejects_null_and_fractional_ids() {
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":null,"method":"m"}"#).0,
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#).0,
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":{},"method":"m"}"#).0,
            ErrorCode::INVALID_REQUEST
        );
    }

    #[test]
    fn refuses_oversized_string_ids_without_echoing_them() {
        let longest = "i".repeat(MAX_REQUEST_ID_BYTES);
        let line = format!(r#"{{"jsonrpc":"2.0","id":"{longest}","method":"ping"}}"#);
        assert!(
            matches!(parse_message(line.as_bytes()), Ok(IncomingMessage::Request(r)) if r.id == RequestId::from(longest.as_str())),
            "an id of exactly the limit is accepted"
        );
        let over = "i".repeat(MAX_REQUEST_ID_BYTES + 1);
        let huge = "i".repeat(3_500_000);
        for id in [&over, &huge] {
            for line in [
                format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":"{id}","result":{{}}}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":"{id}","error":{{"code":1,"message":"m"}}}}"#),
                format!(r#"{{"jsonrpc":"1.0","id":"{id}","method":"ping"}}"#),
            ] {
                let err = parse_message(line.as_bytes()).expect_err("refused");
                assert_eq!(
                    err.error.code,
                    ErrorCode::INVALID_REQUEST,
                    "{}",
                    &line[..40]
                );
                assert_eq!(err.id, None, "never echoed");
                assert!(
                    err.error.message.contains("256 bytes"),
                    "{}",
                    err.error.message
                );
            }
        }
        // The limit counts bytes, not characters: 86 three-byte characters are 258 bytes.
        let wide = "\u{20ac}".repeat(86);
        let line = format!(r#"{{"jsonrpc":"2.0","id":"{wide}","method":"ping"}}"#);
        assert_eq!(code(line.as_bytes()).0, ErrorCode::INVALID_REQUEST);
        // Integers are always fine.
        let line = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#, i64::MAX);
        assert!(matches!(
            parse_message(line.as_bytes()),
            Ok(IncomingMessage::Request(_))
        ));
    }

    #[test]
    fn parses_requests_notifications_and_responses() {
        let req = parse_message(
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}}"#,
        );
        match req {
            Ok(IncomingMessage::Request(r)) => {
                assert_eq!(r.id, RequestId::from("x"));
                assert_eq!(r.params.str_member("name").as_deref(), Some("a"));
            }
            other => panic!("unexpected {other:?}"),
        }
        let note = parse_message(br#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        assert!(matches!(note, Ok(IncomingMessage::Notification(n)) if n.params.is_empty()));
        let resp = parse_message(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#);
        assert!(matches!(
            resp,
            Ok(IncomingMessage::Response {
                id: Some(RequestId::Number(3))
            })
        ));
    }

    #[test]
    fn serializes_envelopes() {
        let ok = ResultResponse::new(RequestId::Number(1), serde_json::json!({"a": 1}));
        assert_eq!(
            serde_json::to_string(&ok).unwrap_or_default(),
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#
        );
        let err = ErrorResponse::new(None, McpError::parse_error("Parse error"));
        assert_eq!(
            serde_json::to_string(&err).unwrap_or_default(),
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#
        );
    }
}
