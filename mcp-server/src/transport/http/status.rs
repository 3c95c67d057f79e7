//! HTTP statuses: what a reply reports (`dispatch::Verdict`), mapped onto the status the
//! Streamable HTTP transport answers with. The transport-agnostic layers never see HTTP.

use http::StatusCode;
use typemcp_core::ErrorCode;

use crate::dispatch::Verdict;

/// The status of a reply on the stateless 2026-07-28 wire: 400 for a malformed message,
/// `_meta`, headers, version, or missing client capability; 404 for an unknown or unadvertised
/// method and an unknown session; 200 otherwise (a result, or an error a method answered).
pub(crate) fn of(verdict: Verdict) -> StatusCode {
    match verdict {
        Verdict::Answered => StatusCode::OK,
        Verdict::Malformed => StatusCode::BAD_REQUEST,
        Verdict::UnknownSession => StatusCode::NOT_FOUND,
        Verdict::Error(ErrorCode::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Verdict::Error(
            ErrorCode::PARSE_ERROR
            | ErrorCode::INVALID_REQUEST
            | ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Verdict::Error(_) => StatusCode::OK,
    }
}

/// The status of a reply to a request of a 2025-11-25 session, once routed to it: JSON-RPC
/// errors travel with 200, since 404 would tell the client its session is gone, and 400 that
/// the request was malformed at the transport.
pub(crate) fn on_session(_verdict: Verdict) -> StatusCode {
    StatusCode::OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_what_the_reply_reports() {
        let cases = [
            (Verdict::Answered, StatusCode::OK),
            (Verdict::Malformed, StatusCode::BAD_REQUEST),
            (Verdict::UnknownSession, StatusCode::NOT_FOUND),
            (
                Verdict::Error(ErrorCode::METHOD_NOT_FOUND),
                StatusCode::NOT_FOUND,
            ),
            (
                Verdict::Error(ErrorCode::PARSE_ERROR),
                StatusCode::BAD_REQUEST,
            ),
            (
                Verdict::Error(ErrorCode::HEADER_MISMATCH),
                StatusCode::BAD_REQUEST,
            ),
            (
                Verdict::Error(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION),
                StatusCode::BAD_REQUEST,
            ),
            (Verdict::Error(ErrorCode::INVALID_PARAMS), StatusCode::OK),
            (Verdict::Error(ErrorCode::INTERNAL_ERROR), StatusCode::OK),
        ];
        for (outcome, status) in cases {
            assert_eq!(of(outcome), status, "{outcome:?}");
            assert_eq!(on_session(outcome), StatusCode::OK, "{outcome:?}");
        }
    }
}
