//! Writing a result with `io.modelcontextprotocol/serverInfo` in its `_meta`: the server's
//! self-description is serialized once, when the server is built, and written out as it is
//! beside the result's own `_meta` entries, instead of being copied into every result.

use bytes::Bytes;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use typemcp_core::jsonrpc::ResultResponse;
use typemcp_core::protocol::{HasMeta, Meta, meta_keys};
use typemcp_core::{McpError, RequestId};

use crate::Server;

/// The room a response body is serialized into at first: most responses fit, in one
/// allocation instead of growing from serde_json's 128 bytes.
const RESPONSE_CAPACITY: usize = 512;

/// Serializes the response, with `serverInfo` stamped into the result's `_meta` unless the
/// server is configured not to.
pub(super) fn respond<R: Serialize + HasMeta>(
    server: &Server,
    id: &RequestId,
    mut result: R,
) -> Result<Bytes, McpError> {
    let server_info = server
        .info_json()
        .filter(|_| server.config().server_info_in_results);
    let mut body = Vec::with_capacity(RESPONSE_CAPACITY);
    let written = if let Some(server_info) = server_info {
        let mut own = None;
        let stamped = Stamped::new(&mut result, &mut own, server_info);
        serde_json::to_writer(&mut body, &ResultResponse::new(id.clone(), stamped))
    } else {
        serde_json::to_writer(&mut body, &ResultResponse::new(id.clone(), result))
    };
    // A buffer exactly full becomes `Bytes` as it is; one with room left would cost the
    // `Bytes` a shared header of its own.
    body.shrink_to_fit();
    written
        .map(|()| Bytes::from(body))
        .map_err(|err| internal_error!(error = %err, "a result could not be serialized"))
}

/// `result`, with its `_meta` taken out and written back with the server's self-description.
#[derive(serde::Serialize)]
struct Stamped<'a, R> {
    #[serde(flatten)]
    result: &'a R,
    #[serde(rename = "_meta")]
    meta: StampedMeta<'a>,
}

impl<'a, R: HasMeta> Stamped<'a, R> {
    /// Takes `result`'s own `_meta` out into `own`, and stamps `server_info` beside it.
    fn new(result: &'a mut R, own: &'a mut Option<Meta>, server_info: &'a RawValue) -> Self {
        *own = result.take_meta();
        Self {
            result,
            meta: StampedMeta {
                own: own.as_ref(),
                server_info,
            },
        }
    }
}

/// The result's own `_meta` entries, then `serverInfo` (which replaces one of its own).
struct StampedMeta<'a> {
    own: Option<&'a Meta>,
    server_info: &'a RawValue,
}

impl Serialize for StampedMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.own.into_iter().flatten() {
            if key != meta_keys::SERVER_INFO {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry(meta_keys::SERVER_INFO, self.server_info)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use typemcp_core::protocol::{CallToolResult, SubscriptionsListenResult};

    use super::*;

    fn info() -> Box<RawValue> {
        RawValue::from_string(r#"{"name":"srv","version":"1"}"#.to_owned())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The stamped result as written, and as read back.
    fn stamped<R: HasMeta + serde::Serialize>(mut result: R) -> (String, Value) {
        let info = info();
        let mut own = None;
        let stamped = Stamped::new(&mut result, &mut own, &info);
        let text = serde_json::to_string(&stamped).unwrap_or_else(|e| panic!("{e}"));
        let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        (text, json)
    }

    #[test]
    fn the_server_info_joins_the_results_own_meta() {
        let mut result = CallToolResult::text("hi");
        result.meta_mut().insert("a".to_owned(), json!(1));
        let (text, json) = stamped(result);
        assert_eq!(json["content"][0]["text"], "hi");
        assert_eq!(
            json["_meta"],
            json!({"a": 1, "io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "1"}})
        );
        // Written once (reading keeps only the last of duplicate keys: count in the text).
        assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
    }

    #[test]
    fn a_result_without_meta_gets_one_and_a_handlers_server_info_is_replaced() {
        let (_, json) = stamped(CallToolResult::text("hi"));
        assert_eq!(
            json["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "srv"
        );
        let mut result = CallToolResult::text("hi");
        result
            .meta_mut()
            .insert(meta_keys::SERVER_INFO.to_owned(), json!("forged"));
        let (text, json) = stamped(result);
        assert_eq!(
            json["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "srv"
        );
        assert_eq!(text.matches("serverInfo").count(), 1, "{text}");
    }

    #[test]
    fn a_listen_result_keeps_its_subscription_id_beside_the_server_info() {
        let mut result = SubscriptionsListenResult::default();
        result.meta_mut().insert(
            "io.modelcontextprotocol/subscriptionId".to_owned(),
            json!("s1"),
        );
        let (text, json) = stamped(result);
        assert_eq!(
            json["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "s1"
        );
        assert_eq!(
            json["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
            "1"
        );
        assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
    }
}
