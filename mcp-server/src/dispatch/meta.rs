//! Reading and checking the per-request `_meta`, straight from the params' text, and the
//! other members of the params the era reads before any method does (what the HTTP transport
//! checks its mirrored headers against), all found in one pass ([`MetaView`]).

use serde::Deserialize;
use serde_json::value::RawValue;
use typemcp_core::McpError;
use typemcp_core::jsonrpc::{Params, as_str};
#[cfg(sessions)]
use typemcp_core::protocol::ProgressToken;
use typemcp_core::protocol::{ProtocolVersion, RequestMeta, meta_keys};

use super::without_position;

/// The members of `_meta` the server reads, each as the raw JSON it is, borrowed from the
/// text: found in one pass over `_meta`, then each read into its type.
#[derive(Deserialize, Default)]
struct Members<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    client_capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log_level: Option<&'a RawValue>,
    #[serde(rename = "progressToken", borrow, default)]
    progress_token: Option<&'a RawValue>,
}

#[cfg(test)]
#[test]
fn the_members_are_the_reserved_keys() {
    let meta = serde_json::json!({
        meta_keys::PROTOCOL_VERSION: 1, meta_keys::CLIENT_CAPABILITIES: 2,
        meta_keys::CLIENT_INFO: 3, meta_keys::LOG_LEVEL: 4, meta_keys::PROGRESS_TOKEN: 5,
    })
    .to_string();
    let members: Members<'_> = serde_json::from_str(&meta).unwrap();
    let read = [
        members.protocol_version,
        members.client_capabilities,
        members.client_info,
        members.log_level,
        members.progress_token,
    ];
    let read: Vec<_> = read.iter().map(|m| m.map(RawValue::get)).collect();
    assert_eq!(
        read,
        [Some("1"), Some("2"), Some("3"), Some("4"), Some("5")]
    );
}

/// The members of a request's params read before any method runs, as raw JSON borrowed
/// from the text: `_meta`, and what the HTTP transport's mirrored headers name.
#[derive(Deserialize, Default)]
struct Top<'a> {
    #[serde(rename = "_meta", borrow, default, deserialize_with = "present")]
    meta: Option<&'a RawValue>,
    #[cfg(feature = "http")]
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[cfg(feature = "http")]
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[cfg(feature = "http")]
    #[serde(rename = "taskId", borrow, default)]
    task_id: Option<&'a RawValue>,
    #[cfg(feature = "http")]
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

impl<'a> Top<'a> {
    /// `_meta` alone, the other members absent.
    // Which other members there are depends on the features.
    #[allow(clippy::field_reassign_with_default)]
    fn meta_only(meta: Option<&'a RawValue>) -> Self {
        let mut top = Self::default();
        top.meta = meta;
        top
    }
}

/// Keeps an explicit `null` distinguishable from an absent member.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A request's `_meta`, read once: whether it is there, an object, and its members; and the
/// members of the params the mirrored headers name.
pub(crate) struct MetaView<'a> {
    top: Top<'a>,
    members: Result<Members<'a>, serde_json::Error>,
}

impl<'a> MetaView<'a> {
    /// The view of `params`, found in one pass over them.
    pub(crate) fn of(params: &'a Params) -> Self {
        // A member given twice is refused by the struct: then `_meta` is looked up alone.
        let top = serde_json::from_str(params.text())
            .unwrap_or_else(|_| Top::meta_only(params.member("_meta")));
        let members = match top.meta {
            Some(raw) if is_object(raw) => serde_json::from_str(raw.get()),
            _ => Ok(Members::default()),
        };
        Self { top, members }
    }

    /// The params' member `key` when it is a string, for the members a mirrored header names
    /// (`name`, `uri`, `taskId`); `None` for any other.
    #[cfg(feature = "http")]
    pub(crate) fn str_member(&self, key: &str) -> Option<std::borrow::Cow<'a, str>> {
        let raw = match key {
            "name" => self.top.name,
            "uri" => self.top.uri,
            "taskId" => self.top.task_id,
            _ => None,
        };
        raw.and_then(as_str)
    }

    /// The params' `arguments`, as raw JSON.
    #[cfg(feature = "http")]
    pub(crate) fn arguments(&self) -> Option<&'a RawValue> {
        self.top.arguments
    }

    /// Whether it is modern per-request `_meta` (an object naming a protocol version): a
    /// 2026-07-28 message, whatever session the transport says it belongs to.
    #[cfg(sessions)]
    pub(crate) fn is_modern(&self) -> bool {
        self.members
            .as_ref()
            .is_ok_and(|members| members.protocol_version.is_some())
    }

    /// Reads it whole. Missing `_meta`, missing `protocolVersion` or `clientCapabilities`,
    /// or ill-typed members are `-32602`. `clientInfo` is optional: its absence is never an
    /// error.
    pub(crate) fn read_meta(&self) -> Result<RequestMeta, McpError> {
        match self.top.meta {
            Some(raw) if is_object(raw) => {}
            Some(_) => return Err(McpError::invalid_params("Invalid _meta: must be an object")),
            None => return Err(McpError::invalid_params("Missing required params._meta")),
        }
        let members = self.members.as_ref().map_err(invalid)?;
        let (Some(version), Some(capabilities)) =
            (members.protocol_version, members.client_capabilities)
        else {
            let key = if members.protocol_version.is_none() {
                meta_keys::PROTOCOL_VERSION
            } else {
                meta_keys::CLIENT_CAPABILITIES
            };
            return Err(McpError::invalid_params(format!(
                "Missing required _meta field: {key}"
            )));
        };
        // Serde reads a struct from an array too (positionally): objects must be objects.
        let objects = [
            (meta_keys::CLIENT_CAPABILITIES, Some(capabilities)),
            (meta_keys::CLIENT_INFO, members.client_info),
        ];
        for (key, member) in objects {
            if member.is_some_and(|v| !is_object(v)) {
                return Err(McpError::invalid_params(format!(
                    "Invalid _meta: {key} must be an object"
                )));
            }
        }
        Ok(RequestMeta {
            protocol_version: match as_str(version) {
                Some(version) => ProtocolVersion::named(&version),
                // Not a string: serde's reason.
                None => member::<String>(version)?.into(),
            },
            client_capabilities: member(capabilities)?,
            client_info: optional(members.client_info)?,
            log_level: optional(members.log_level)?,
            progress_token: optional(members.progress_token)?,
        })
    }

    /// The progress token, if it names a valid one (a session's request, whose `_meta`
    /// carries nothing else the server reads).
    #[cfg(sessions)]
    pub(crate) fn progress_token(&self) -> Option<ProgressToken> {
        let token = self.members.as_ref().ok()?.progress_token?;
        serde_json::from_str(token.get()).ok()
    }
}

/// One member of `_meta`, read into its type.
fn member<'a, T: Deserialize<'a>>(raw: &'a RawValue) -> Result<T, McpError> {
    serde_json::from_str(raw.get()).map_err(|err| invalid(&err))
}

/// An optional member (`null` is absent, as serde reads an `Option`).
fn optional<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Result<Option<T>, McpError> {
    raw.map_or(Ok(None), member)
}

fn invalid(err: &serde_json::Error) -> McpError {
    McpError::invalid_params(format!("Invalid _meta: {}", without_position(err)))
}

/// Whether a raw value is a JSON object.
fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use typemcp_core::ErrorCode;

    fn params(v: Value) -> Params {
        Params::from_object(v.as_object().cloned().unwrap_or_default())
    }

    #[test]
    fn rejects_missing_or_malformed_meta() {
        let cases = [
            json!({}),
            json!({"_meta": 3}),
            json!({"_meta": null}),
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 7, "io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": []}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"}}),
        ];
        for case in cases {
            let p = params(case.clone());
            let err = MetaView::of(&p).read_meta().expect_err("must be rejected");
            assert_eq!(err.code, ErrorCode::INVALID_PARAMS, "{case}");
            assert!(!err.message.contains("line 1"), "{}", err.message);
        }
    }

    #[test]
    fn accepts_meta_without_client_info() {
        let p = params(json!({"name": "x", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": 7,
        }}));
        let view = MetaView::of(&p);
        assert!(view.is_modern());
        let meta = view.read_meta().expect("valid");
        assert_eq!(meta.protocol_version, "2026-07-28");
        assert!(meta.client_info.is_none());
        assert_eq!(meta.progress_token, Some(ProgressToken::Number(7)));
        assert_eq!(view.progress_token(), Some(ProgressToken::Number(7)));
    }

    #[test]
    fn a_member_given_twice_still_leaves_meta_readable() {
        let text = r#"{"name":"a","name":"b","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{text}}}"#);
        let Ok(typemcp_core::jsonrpc::IncomingMessage::Request(request)) =
            typemcp_core::jsonrpc::parse_message(line.as_bytes())
        else {
            panic!("a request");
        };
        let view = MetaView::of(&request.params);
        assert!(view.is_modern());
        assert_eq!(view.read_meta().unwrap().protocol_version, "2026-07-28");
    }

    #[test]
    fn tells_modern_meta_from_legacy() {
        for (case, modern) in [
            (json!({}), false),
            (json!({"_meta": {"progressToken": "p"}}), false),
            (json!({"_meta": "2026-07-28"}), false),
            (
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "x"}}),
                true,
            ),
        ] {
            assert_eq!(
                MetaView::of(&params(case.clone())).is_modern(),
                modern,
                "{case}"
            );
        }
    }
}
