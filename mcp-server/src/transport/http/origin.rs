//! The DNS-rebinding defence: `Host` and `Origin` must name this server.

use std::net::Ipv4Addr;

use http::HeaderMap;
use http::header::{HOST, ORIGIN};

use super::HostPolicy;

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Forbidden {
    Host,
    Origin,
}

/// Checks `Host` (or the URI authority on HTTP/2) and, when present, `Origin`.
pub(crate) fn check(
    headers: &HeaderMap,
    authority: Option<&str>,
    policy: &HostPolicy,
    origins: &[String],
) -> Result<(), Forbidden> {
    if *policy == HostPolicy::Any {
        return Ok(());
    }
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .or(authority);
    if !host.is_some_and(|h| host_allowed(strip_port(h), policy)) {
        return Err(Forbidden::Host);
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin.to_str().map_err(|_| Forbidden::Origin)?;
        let listed = origins.iter().any(|o| o.eq_ignore_ascii_case(origin));
        if !listed && !origin_host(origin).is_some_and(|h| host_allowed(h, policy)) {
            return Err(Forbidden::Origin);
        }
    }
    Ok(())
}

fn host_allowed(host: &str, policy: &HostPolicy) -> bool {
    match policy {
        HostPolicy::Any => true,
        HostPolicy::Loopback => is_loopback(host),
        HostPolicy::AllowList(list) => {
            is_loopback(host) || list.iter().any(|h| h.eq_ignore_ascii_case(host))
        }
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host == "[::1]"
        || host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// `example.com:8080` → `example.com`; `[::1]:3000` → `[::1]`.
fn strip_port(authority: &str) -> &str {
    let authority = authority.trim();
    if authority.starts_with('[') {
        return authority
            .find(']')
            .map_or(authority, |end| &authority[..=end]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// The host of an `Origin` value such as `http://localhost:3000`; `null` has none.
fn origin_host(origin: &str) -> Option<&str> {
    let (_, rest) = origin.split_once("://")?;
    let authority = rest.split('/').next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    Some(strip_port(authority)).filter(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(host) = host {
            h.insert(
                HOST,
                HeaderValue::from_str(host).unwrap_or(HeaderValue::from_static("x")),
            );
        }
        if let Some(origin) = origin {
            h.insert(
                ORIGIN,
                HeaderValue::from_str(origin).unwrap_or(HeaderValue::from_static("x")),
            );
        }
        h
    }

    #[test]
    fn loopback_policy_accepts_only_loopback_hosts_and_origins() {
        let p = HostPolicy::Loopback;
        for ok in [
            "localhost",
            "localhost:3000",
            "127.0.0.1:8080",
            "127.1.2.3",
            "[::1]:9",
        ] {
            assert_eq!(
                check(&headers(Some(ok), None), None, &p, &[]),
                Ok(()),
                "{ok}"
            );
        }
        assert_eq!(
            check(&headers(Some("evil.example.com"), None), None, &p, &[]),
            Err(Forbidden::Host)
        );
        assert_eq!(
            check(&headers(Some("127.0.0.1.evil.com"), None), None, &p, &[]),
            Err(Forbidden::Host)
        );
        assert_eq!(
            check(&headers(None, None), None, &p, &[]),
            Err(Forbidden::Host)
        );
        assert_eq!(
            check(
                &headers(Some("localhost"), Some("http://evil.example.com")),
                None,
                &p,
                &[]
            ),
            Err(Forbidden::Origin)
        );
        assert_eq!(
            check(&headers(Some("localhost"), Some("null")), None, &p, &[]),
            Err(Forbidden::Origin)
        );
        assert_eq!(
            check(
                &headers(Some("localhost:1"), Some("http://localhost:1")),
                None,
                &p,
                &[]
            ),
            Ok(())
        );
    }

    #[test]
    fn allow_lists_extend_loopback() {
        let p = HostPolicy::AllowList(vec!["mcp.example.com".into()]);
        assert_eq!(
            check(&headers(Some("MCP.example.com:443"), None), None, &p, &[]),
            Ok(())
        );
        let origins = ["https://app.example.com".to_string()];
        assert_eq!(
            check(
                &headers(Some("mcp.example.com"), Some("https://app.example.com")),
                None,
                &p,
                &origins
            ),
            Ok(())
        );
        assert_eq!(
            check(
                &headers(Some("evil.com"), None),
                None,
                &HostPolicy::Any,
                &[]
            ),
            Ok(())
        );
    }
}
