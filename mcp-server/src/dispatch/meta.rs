//! Reading and checking the per-request `_meta`.

use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::{RequestMeta, meta_keys};

/// Removes `_meta` from the params and reads it. Missing `_meta`, missing
/// `protocolVersion` or `clientCapabilities`, or ill-typed members are `-32602`.
///
/// `clientInfo` is optional: its absence is never an error.
pub(crate) fn take_meta(params: &mut Map<String, Value>) -> Result<RequestMeta, McpError> {
    let meta = match params.swap_remove("_meta") {
        Some(Value::Object(meta)) => meta,
        Some(_) => return Err(McpError::invalid_params("Invalid _meta: must be an object")),
        None => return Err(McpError::invalid_params("Missing required params._meta")),
    };
    for key in [meta_keys::PROTOCOL_VERSION, meta_keys::CLIENT_CAPABILITIES] {
        if !meta.contains_key(key) {
            return Err(McpError::invalid_params(format!(
                "Missing required _meta field: {key}"
            )));
        }
    }
    // Serde reads a struct from an array too (positionally): objects must be objects.
    for key in [meta_keys::CLIENT_CAPABILITIES, meta_keys::CLIENT_INFO] {
        if meta.get(key).is_some_and(|v| !v.is_object()) {
            return Err(McpError::invalid_params(format!(
                "Invalid _meta: {key} must be an object"
            )));
        }
    }
    serde_json::from_value(Value::Object(meta))
        .map_err(|err| McpError::invalid_params(format!("Invalid _meta: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use typemcp_core::ErrorCode;

    fn params(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn rejects_missing_or_malformed_meta() {
        let cases = [
            json!({}),
            json!({"_meta": 3}),
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": 7, "io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": []}}),
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/logLevel": "loud"}}),
        ];
        for case in cases {
            let err = take_meta(&mut params(case.clone())).expect_err("must be rejected");
            assert_eq!(err.code, ErrorCode::INVALID_PARAMS, "{case}");
        }
    }

    #[test]
    fn accepts_meta_without_client_info_and_removes_it() {
        let mut p = params(json!({"name": "x", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}));
        let meta = take_meta(&mut p).expect("valid");
        assert_eq!(meta.protocol_version, "2026-07-28");
        assert!(meta.client_info.is_none());
        assert!(!p.contains_key("_meta"));
    }
}
