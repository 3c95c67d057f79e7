//! The DNS-rebinding defence: `Host` and `Origin` must name this server.
//!
//! Both are parsed strictly, with `http`'s [`Authority`] and [`Uri`] and then checked to be
//! exactly what they spell: `http` alone accepts userinfo (`user@localhost`), drops a
//! fragment (`http://evil.com#@localhost` is host `evil.com` to it, `localhost` to a naive
//! split), ignores what follows a bracketed host (`[::1].evil.com` is host `[::1]` to it) or
//! an invalid port (`localhost:99999`). Here the host and optional port must be the whole
//! authority, and an `Origin` exactly `scheme://authority` (RFC 6454: no path, query or
//! fragment) with scheme `http` or `https`.
//!
//! A host is one of three shapes, and anything else is malformed:
//! - a bracketed IPv6 literal, `[::1]` (no zone);
//! - a strict dotted quad, `127.1.2.3` (four decimal parts, no leading zeros): a host whose
//!   last label is numeric is an IPv4 address, so `127.1`, `0x7f.0.0.1` and `127.0.0.1.1`,
//!   which resolvers read as loopback addresses in other spellings, are refused;
//! - a DNS name: dot-separated labels of letters, digits, `-` and `_`, none empty (so no
//!   trailing dot), compared case-insensitively.
//!
//! Loopback is `localhost`, `127.0.0.0/8` as a dotted quad, and `[::1]`. A name such as
//! `127.0.0.1.evil.com` or `localhost.evil.com` is a DNS name like any other: not loopback,
//! served only when an allow list names it.
//!
//! Statuses (RFC 9112 §3.2, RFC 9110 §7.2, and the MCP transport's 403 for a bad `Origin`):
//! a missing, repeated or malformed `Host`, or one that disagrees with the request target's
//! authority, is 400; a well-formed `Host` this server does not serve is 403; a repeated,
//! malformed or foreign `Origin` is 403. With [`HostPolicy::Any`] only the repeated `Host` is
//! refused (the proxy in front checks the rest).

use std::cell::RefCell;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicU64, Ordering};

use http::header::{HOST, ORIGIN};
use http::uri::{Authority, Uri};
use http::{HeaderMap, HeaderValue, StatusCode};

use super::HostPolicy;

/// Why a request was refused: one row per reason, each with its status, its fixed message
/// outward and its reason for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// More than one `Host` header.
    HostRepeated,
    /// No `Host` header and no authority in the request target.
    HostMissing,
    /// A `Host` that is not a strict host and optional port.
    HostMalformed,
    /// `Host` and the request target's authority name different hosts.
    HostMismatch,
    /// A well-formed host this server does not serve.
    HostNotServed,
    /// More than one `Origin` header.
    OriginRepeated,
    /// An `Origin` that is not a strict `http(s)://host[:port]`, and not listed.
    OriginMalformed,
    /// A well-formed origin whose host this server does not serve, and not listed.
    OriginNotServed,
}

impl Refused {
    /// The HTTP status of the refusal.
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Self::HostRepeated | Self::HostMissing | Self::HostMalformed | Self::HostMismatch => {
                StatusCode::BAD_REQUEST
            }
            Self::HostNotServed
            | Self::OriginRepeated
            | Self::OriginMalformed
            | Self::OriginNotServed => StatusCode::FORBIDDEN,
        }
    }

    /// The fixed message sent to the client.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Self::HostRepeated => "Bad Request: more than one Host header",
            Self::HostMissing => "Bad Request: missing Host header",
            Self::HostMalformed => "Bad Request: invalid Host header",
            Self::HostMismatch => "Bad Request: Host does not match the request target",
            Self::HostNotServed => "Forbidden: Host not allowed",
            Self::OriginRepeated => "Forbidden: more than one Origin header",
            Self::OriginMalformed | Self::OriginNotServed => "Forbidden: Origin not allowed",
        }
    }

    /// Logs the refusal with the offending values (hosts and origins are not secrets; the
    /// values are escaped by `HeaderValue`'s `Debug`).
    pub(crate) fn log(self, headers: &HeaderMap) {
        let hosts: Vec<&HeaderValue> = headers.get_all(HOST).iter().collect();
        let origins: Vec<&HeaderValue> = headers.get_all(ORIGIN).iter().collect();
        let reason = match self {
            Self::HostRepeated => "more than one Host header",
            Self::HostMissing => "no Host header",
            Self::HostMalformed => "a malformed Host",
            Self::HostMismatch => "a Host other than the request target's authority",
            Self::HostNotServed => "a host this server does not serve",
            Self::OriginRepeated => "more than one Origin header",
            Self::OriginMalformed => "a malformed Origin",
            Self::OriginNotServed => "a foreign origin",
        };
        tracing::warn!(
            ?hosts,
            ?origins,
            reason,
            "refused a request (DNS-rebinding defence)"
        );
    }
}

/// One endpoint's key into this thread's memo of the `Host` it accepted last.
///
/// Nearly every request to a deployment names the same host, and parsing it strictly is a
/// measurable share of a small request: a worker thread keeps the last `Host` value it
/// accepted for an endpoint, and a request whose `Host` is byte for byte that value (one
/// header, no HTTP/2 authority to compare it with) is not parsed again. Only acceptances are
/// kept, and only under the key of the endpoint (and so the policy) that accepted them.
#[derive(Debug)]
pub(crate) struct HostMemo(u64);

impl HostMemo {
    pub(crate) fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    fn holds(&self, host: &HeaderValue) -> bool {
        LAST_ACCEPTED.with_borrow(|(key, value)| *key == self.0 && value == host.as_bytes())
    }

    fn keep(&self, host: &HeaderValue) {
        LAST_ACCEPTED.with_borrow_mut(|(key, value)| {
            *key = self.0;
            value.clear();
            value.extend_from_slice(host.as_bytes());
        });
    }
}

thread_local! {
    /// The `Host` value this thread accepted last, and the key of the endpoint that did.
    static LAST_ACCEPTED: RefCell<(u64, Vec<u8>)> = const { RefCell::new((0, Vec::new())) };
}

/// Checks `Host` (or the URI authority on HTTP/2) and, when present, `Origin`; `memo`, the
/// endpoint's, spares parsing a `Host` this thread accepted for it last.
pub(crate) fn check(
    headers: &HeaderMap,
    authority: Option<&str>,
    policy: &HostPolicy,
    origins: &[String],
    memo: Option<&HostMemo>,
) -> Result<(), Refused> {
    let mut hosts = headers.get_all(HOST).iter();
    let first_host = hosts.next();
    if hosts.next().is_some() {
        return Err(Refused::HostRepeated);
    }
    if *policy == HostPolicy::Any {
        return Ok(());
    }
    let remembered = match (memo, first_host, authority) {
        (Some(memo), Some(host), None) => Some((memo, host)),
        _ => None,
    };
    match remembered {
        Some((memo, host)) if memo.holds(host) => {}
        _ => {
            let host = request_host(headers, authority)?;
            if !host_allowed(&host, policy) {
                return Err(Refused::HostNotServed);
            }
            if let Some((memo, host)) = remembered {
                memo.keep(host);
            }
        }
    }
    let mut origin_values = headers.get_all(ORIGIN).iter();
    let Some(origin) = origin_values.next() else {
        return Ok(());
    };
    if origin_values.next().is_some() {
        return Err(Refused::OriginRepeated);
    }
    let origin = origin.to_str().map_err(|_| Refused::OriginMalformed)?;
    if origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
        return Ok(());
    }
    let host = parse_origin(origin).ok_or(Refused::OriginMalformed)?;
    if !host_allowed(&host, policy) {
        return Err(Refused::OriginNotServed);
    }
    Ok(())
}

/// The host the request names: its `Host` header, else (HTTP/2) the target's authority;
/// when both are present they must name the same host and port.
fn request_host(headers: &HeaderMap, authority: Option<&str>) -> Result<Host, Refused> {
    let target = authority
        .map(|a| parse_authority(a).ok_or(Refused::HostMalformed))
        .transpose()?;
    let Some(header) = headers.get(HOST) else {
        return target.map(|(host, _)| host).ok_or(Refused::HostMissing);
    };
    let header = header.to_str().map_err(|_| Refused::HostMalformed)?;
    let named = parse_authority(header).ok_or(Refused::HostMalformed)?;
    match target {
        Some(target) if target != named => Err(Refused::HostMismatch),
        _ => Ok(named.0),
    }
}

fn host_allowed(host: &Host, policy: &HostPolicy) -> bool {
    match policy {
        HostPolicy::Any => true,
        HostPolicy::Loopback => host.is_loopback(),
        HostPolicy::AllowList(list) => {
            host.is_loopback()
                || list
                    .iter()
                    .any(|entry| parse_host(entry).as_ref() == Some(host))
        }
    }
}

/// A host as `Host` or `Origin` names it, in one canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// A DNS name, lowercased.
    Name(String),
    /// A dotted quad.
    V4(Ipv4Addr),
    /// A bracketed IPv6 literal.
    V6(Ipv6Addr),
}

impl Host {
    fn is_loopback(&self) -> bool {
        match self {
            Self::Name(name) => name == "localhost",
            Self::V4(ip) => ip.is_loopback(),
            Self::V6(ip) => *ip == Ipv6Addr::LOCALHOST,
        }
    }
}

/// The longest DNS name, and label (RFC 1035).
const MAX_NAME: usize = 253;
const MAX_LABEL: usize = 63;

/// `host[:port]`, strictly: nothing before the host (no userinfo), nothing after it but a
/// decimal port that fits 16 bits.
fn parse_authority(text: &str) -> Option<(Host, Option<u16>)> {
    let authority: Authority = text.parse().ok()?;
    let whole = authority.as_str();
    if whole.contains('@') {
        return None;
    }
    let rest = whole.strip_prefix(authority.host())?;
    let port = match rest {
        "" => None,
        _ => Some(parse_port(rest.strip_prefix(':')?)?),
    };
    Some((parse_host(authority.host())?, port))
}

/// A decimal port: digits only (no sign), within 16 bits.
fn parse_port(digits: &str) -> Option<u16> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// One of the three shapes of a host (see the module comment).
fn parse_host(text: &str) -> Option<Host> {
    if let Some(inner) = text.strip_prefix('[') {
        return inner.strip_suffix(']')?.parse().ok().map(Host::V6);
    }
    let last_label = text.rsplit('.').next().unwrap_or(text);
    if !last_label.is_empty() && last_label.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().ok().map(Host::V4);
    }
    let label_ok = |label: &str| {
        (1..=MAX_LABEL).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    (text.len() <= MAX_NAME && text.split('.').all(label_ok))
        .then(|| Host::Name(text.to_ascii_lowercase()))
}

/// The host of an `Origin` such as `http://localhost:3000`: exactly `http(s)://authority`.
/// `null`, other schemes, paths (even `/`), queries and fragments have none.
fn parse_origin(text: &str) -> Option<Host> {
    let uri: Uri = text.parse().ok()?;
    let scheme = uri.scheme_str()?;
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = uri.authority()?.as_str();
    // `Uri` drops a fragment and reads no path as `/`: compare with the text itself.
    let (written_scheme, rest) = text.split_once("://")?;
    if !written_scheme.eq_ignore_ascii_case(scheme) || rest != authority {
        return None;
    }
    parse_authority(authority).map(|(host, _)| host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_spares_only_what_its_endpoint_accepted() {
        let loopback = HostMemo::new();
        let listed = HostMemo::new();
        let p = HostPolicy::Loopback;
        assert_eq!(
            check(&host("localhost:3000"), None, &p, &[], Some(&loopback)),
            Ok(())
        );
        // Remembered: the same value again, and still refused when repeated.
        assert_eq!(
            check(&host("localhost:3000"), None, &p, &[], Some(&loopback)),
            Ok(())
        );
        let twice = headers(&[(&HOST, "localhost:3000"), (&HOST, "localhost:3000")]);
        assert_eq!(
            check(&twice, None, &p, &[], Some(&loopback)),
            Err(Refused::HostRepeated)
        );
        // A refusal is never remembered, and another endpoint's acceptance is not this one's.
        for _ in 0..2 {
            assert_eq!(
                check(&host("evil.com"), None, &p, &[], Some(&loopback)),
                Err(Refused::HostNotServed)
            );
        }
        let allow = HostPolicy::AllowList(vec!["mcp.example.com".into()]);
        assert_eq!(
            check(&host("mcp.example.com"), None, &allow, &[], Some(&listed)),
            Ok(())
        );
        assert_eq!(
            check(&host("mcp.example.com"), None, &p, &[], Some(&loopback)),
            Err(Refused::HostNotServed)
        );
        // The Origin is checked whatever the memo holds.
        let page = headers(&[(&HOST, "mcp.example.com"), (&ORIGIN, "https://evil.com")]);
        assert_eq!(
            check(&page, None, &allow, &[], Some(&listed)),
            Err(Refused::OriginNotServed)
        );
        // With an HTTP/2 authority to compare, the Host is parsed.
        assert_eq!(
            check(
                &host("mcp.example.com"),
                Some("other.example.com"),
                &allow,
                &[],
                Some(&listed)
            ),
            Err(Refused::HostMismatch)
        );
    }

    /// Headers with each `(name, value)` appended (so a name may repeat).
    fn headers(pairs: &[(&http::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            let value =
                HeaderValue::from_bytes(value.as_bytes()).unwrap_or(HeaderValue::from_static("x"));
            h.append((*name).clone(), value);
        }
        h
    }

    fn host(value: &str) -> HeaderMap {
        headers(&[(&HOST, value)])
    }

    fn with_origin(value: &str) -> HeaderMap {
        headers(&[(&HOST, "localhost:3000"), (&ORIGIN, value)])
    }

    #[test]
    fn loopback_hosts_in_every_accepted_spelling_pass() {
        let p = HostPolicy::Loopback;
        for ok in [
            "localhost",
            "localhost:3000",
            "LOCALHOST:3000",
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.1.2.3",
            "127.255.255.255:65535",
            "[::1]",
            "[::1]:9",
            "[0:0:0:0:0:0:0:1]:9",
        ] {
            assert_eq!(check(&host(ok), None, &p, &[], None), Ok(()), "{ok}");
        }
    }

    #[test]
    fn lenient_hosts_are_refused() {
        let p = HostPolicy::Loopback;
        let cases = [
            // Shapes `http` accepts and reads as loopback, or that some reader does.
            ("[::1].evil.com", Refused::HostMalformed),
            ("[::1]evil.com:80", Refused::HostMalformed),
            ("[::1]:", Refused::HostMalformed),
            ("user@localhost", Refused::HostMalformed),
            ("evil.com@localhost", Refused::HostMalformed),
            ("evil.com#@localhost", Refused::HostMalformed),
            ("evil.com\\@localhost", Refused::HostMalformed),
            ("localhost\\evil.com", Refused::HostMalformed),
            ("localhost/evil", Refused::HostMalformed),
            ("localhost?x", Refused::HostMalformed),
            ("localhost#x", Refused::HostMalformed),
            ("localhost:", Refused::HostMalformed),
            ("localhost:abc", Refused::HostMalformed),
            ("localhost:+80", Refused::HostMalformed),
            ("localhost:99999", Refused::HostMalformed),
            ("localhost:3000:1", Refused::HostMalformed),
            ("localhost.", Refused::HostMalformed),
            ("local host", Refused::HostMalformed),
            ("", Refused::HostMalformed),
            (":80", Refused::HostMalformed),
            ("[localhost]", Refused::HostMalformed),
            ("[127.0.0.1]", Refused::HostMalformed),
            ("[fe80::1%25eth0]", Refused::HostMalformed),
            ("[::1", Refused::HostMalformed),
            ("127.1", Refused::HostMalformed),
            ("127.0.0.1.1", Refused::HostMalformed),
            ("0x7f.0.0.1", Refused::HostMalformed),
            ("0177.0.0.1", Refused::HostMalformed),
            ("2130706433", Refused::HostMalformed),
            ("local%68ost", Refused::HostMalformed),
            ("lоcalhost", Refused::HostMalformed), // a Cyrillic `о`: not a header string
            // Well-formed, and not loopback.
            ("127.0.0.1.evil.com", Refused::HostNotServed),
            ("localhost.evil.com", Refused::HostNotServed),
            ("evil.example.com", Refused::HostNotServed),
            ("[::2]", Refused::HostNotServed),
            ("[::ffff:127.0.0.1]", Refused::HostNotServed),
            ("10.0.0.1", Refused::HostNotServed),
        ];
        for (value, refused) in cases {
            assert_eq!(
                check(&host(value), None, &p, &[], None),
                Err(refused),
                "{value:?}"
            );
        }
        let long = format!("{}.localhost", "a".repeat(64));
        assert_eq!(
            check(&host(&long), None, &p, &[], None),
            Err(Refused::HostMalformed)
        );
    }

    #[test]
    fn a_missing_repeated_or_contradicted_host_is_a_bad_request() {
        let p = HostPolicy::Loopback;
        let two = headers(&[(&HOST, "localhost"), (&HOST, "evil.com")]);
        let same_twice = headers(&[(&HOST, "localhost"), (&HOST, "localhost")]);
        for policy in [&p, &HostPolicy::Any] {
            assert_eq!(
                check(&two, None, policy, &[], None),
                Err(Refused::HostRepeated)
            );
            assert_eq!(
                check(&same_twice, None, policy, &[], None),
                Err(Refused::HostRepeated)
            );
        }
        assert_eq!(
            check(&HeaderMap::new(), None, &p, &[], None),
            Err(Refused::HostMissing)
        );
        // HTTP/2: the authority alone, or both agreeing.
        let none = HeaderMap::new();
        assert_eq!(check(&none, Some("localhost:3000"), &p, &[], None), Ok(()));
        assert_eq!(
            check(
                &host("LOCALHOST:3000"),
                Some("localhost:3000"),
                &p,
                &[],
                None
            ),
            Ok(())
        );
        assert_eq!(
            check(
                &host("localhost:3000"),
                Some("localhost:3001"),
                &p,
                &[],
                None
            ),
            Err(Refused::HostMismatch)
        );
        assert_eq!(
            check(&host("localhost"), Some("evil.com"), &p, &[], None),
            Err(Refused::HostMismatch)
        );
        assert_eq!(
            check(&none, Some("[::1].evil.com"), &p, &[], None),
            Err(Refused::HostMalformed)
        );
        for refused in [
            Refused::HostRepeated,
            Refused::HostMissing,
            Refused::HostMismatch,
        ] {
            assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        }
    }

    #[test]
    fn loopback_origins_pass_and_lenient_ones_are_refused() {
        let p = HostPolicy::Loopback;
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:3000",
            "HTTP://LOCALHOST:1",
        ] {
            assert_eq!(check(&with_origin(ok), None, &p, &[], None), Ok(()), "{ok}");
        }
        let cases = [
            ("http://[::1].evil.com", Refused::OriginMalformed),
            ("http://[::1].evil.com:3000", Refused::OriginMalformed),
            ("http://evil.com#@localhost", Refused::OriginMalformed),
            ("http://evil.com\\@localhost", Refused::OriginMalformed),
            ("http://evil.com?@localhost", Refused::OriginMalformed),
            ("http://user@localhost", Refused::OriginMalformed),
            ("http://localhost@evil.com", Refused::OriginMalformed),
            ("http://localhost/", Refused::OriginMalformed),
            ("http://localhost/path", Refused::OriginMalformed),
            ("http://localhost?q", Refused::OriginMalformed),
            ("http://localhost#f", Refused::OriginMalformed),
            ("http://localhost:99999", Refused::OriginMalformed),
            ("http://localhost:x", Refused::OriginMalformed),
            ("http://", Refused::OriginMalformed),
            ("http://:80", Refused::OriginMalformed),
            ("http://127.1", Refused::OriginMalformed),
            ("ftp://localhost", Refused::OriginMalformed),
            ("localhost", Refused::OriginMalformed),
            ("//localhost", Refused::OriginMalformed),
            ("null", Refused::OriginMalformed),
            ("", Refused::OriginMalformed),
            ("http://127.0.0.1.evil.com", Refused::OriginNotServed),
            ("http://evil.example.com", Refused::OriginNotServed),
        ];
        for (value, refused) in cases {
            assert_eq!(
                check(&with_origin(value), None, &p, &[], None),
                Err(refused),
                "{value:?}"
            );
            assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        }
        let two = headers(&[
            (&HOST, "localhost"),
            (&ORIGIN, "http://localhost"),
            (&ORIGIN, "http://localhost"),
        ]);
        assert_eq!(
            check(&two, None, &p, &[], None),
            Err(Refused::OriginRepeated)
        );
        assert_eq!(Refused::OriginRepeated.status(), StatusCode::FORBIDDEN);
    }

    #[test]
    fn allow_lists_extend_loopback_and_any_accepts_every_host() {
        let p = HostPolicy::AllowList(vec![
            "mcp.example.com".into(),
            "10.0.0.5".into(),
            "[2001:db8::1]".into(),
        ]);
        for ok in [
            "MCP.example.com:443",
            "mcp.example.com",
            "localhost:3000",
            "10.0.0.5:80",
            "[2001:db8:0::1]:443",
        ] {
            assert_eq!(check(&host(ok), None, &p, &[], None), Ok(()), "{ok}");
        }
        for refused in [
            "mcp.example.com.evil.com",
            "evil.mcp.example.com",
            "10.0.0.6",
        ] {
            assert_eq!(
                check(&host(refused), None, &p, &[], None),
                Err(Refused::HostNotServed),
                "{refused}"
            );
        }
        let origins = ["https://app.example.com".to_string(), "null".to_string()];
        let page = |origin| headers(&[(&HOST, "mcp.example.com"), (&ORIGIN, origin)]);
        assert_eq!(
            check(&page("https://app.example.com"), None, &p, &origins, None),
            Ok(())
        );
        assert_eq!(check(&page("null"), None, &p, &origins, None), Ok(()));
        assert_eq!(
            check(&page("https://mcp.example.com"), None, &p, &[], None),
            Ok(())
        );
        assert_eq!(
            check(
                &page("https://app.example.com#@x"),
                None,
                &p,
                &origins,
                None
            ),
            Err(Refused::OriginMalformed)
        );
        assert_eq!(
            check(&host("evil.com"), None, &HostPolicy::Any, &[], None),
            Ok(())
        );
        let foreign = headers(&[(&HOST, "[::1].evil.com"), (&ORIGIN, "http://evil.com")]);
        assert_eq!(check(&foreign, None, &HostPolicy::Any, &[], None), Ok(()));
    }
}
