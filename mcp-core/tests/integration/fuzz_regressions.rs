//! Inputs the fuzz targets (`fuzz/`, see its README) found, each kept inline with the
//! behaviour it broke, so the fix stays fixed without running a fuzzer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use typemcp_core::ErrorCode;
use typemcp_core::jsonrpc::parse_message;

/// Target `jsonrpc`, the first crash: a notification whose unknown member held a byte that is
/// not UTF-8 was accepted (serde_json skips such members without checking them), so invalid
/// JSON was silently dropped instead of answered with a parse error. Fixed in
/// `mcp-core/src/jsonrpc/message.rs` (the whole text is checked as UTF-8 first).
#[test]
fn a_byte_that_is_not_utf8_in_a_skipped_member_is_a_parse_error() {
    let found: &[u8] = b"{\"jsonrpc\": \"2.0\", \"method\": \"notificati5ns/cancelled\", \
        \"rarams\": {\"r\xecequestIdBBJB\": 0}}";
    let variants: [&[u8]; 5] = [
        found,
        // A request: it would have been served.
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"x\":\"\xff\"}",
        // Inside the skipped `result` or `error` of a response.
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"\xc3\"}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"\xed\xa0\x80\"}",
        // Not an object: it was "not a JSON object" rather than "not JSON".
        b"\"\xfe\"",
    ];
    for input in variants {
        let refused = parse_message(input).expect_err("not UTF-8, so not JSON");
        assert_eq!(refused.error.code, ErrorCode::PARSE_ERROR, "{input:?}");
        assert_eq!(refused.error.message, "Parse error: invalid JSON");
        assert_eq!(refused.id, None);
    }
    // The same messages in valid UTF-8 still parse.
    let fixed = String::from_utf8_lossy(found).into_owned();
    assert!(parse_message(fixed.as_bytes()).is_ok());
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"\u00ff"}"#;
    assert!(parse_message(request).is_ok());
}
