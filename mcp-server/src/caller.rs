//! Who a request counts against: the key of the per-caller shares (live tasks, sessions,
//! open streams) that keep one client from using up what every client shares.
//!
//! - Behind an authentication layer, the caller is the authenticated **subject**: all of a
//!   subject's connections share one quota, wherever they come from.
//! - Unauthenticated over HTTP, the caller is the **peer address** of the connection:
//!   the IPv4 address, or the /64 prefix of an IPv6 address (one host commonly holds a whole
//!   /64). [`Server::serve_http_on`](crate::Server::serve_http_on) records it; in your own
//!   axum application, serve with `into_make_service_with_connect_info::<SocketAddr>()` so that
//!   it is known. Behind a reverse proxy every client has the proxy's address and they share
//!   one quota: authenticate such an endpoint.
//! - Otherwise (stdio, in-process calls, or an HTTP request whose peer is unknown) the
//!   caller is **anonymous**, a single caller for quota purposes.

use std::fmt;
use std::net::IpAddr;

/// The key a request's per-caller quotas are counted under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    /// An authenticated subject.
    Subject(String),
    /// An unauthenticated peer: an IPv4 address, or an IPv6 address masked to its /64.
    Address(IpAddr),
    /// Nothing identifies the caller (stdio, in-process, an unknown peer).
    Anonymous,
}

impl Caller {
    /// The caller of a request by this authenticated subject, received from `peer` (if
    /// known).
    pub(crate) fn of(subject: Option<&str>, peer: Option<IpAddr>) -> Self {
        match (subject, peer) {
            (Some(subject), _) => Self::Subject(subject.to_owned()),
            (None, Some(peer)) => Self::Address(masked(peer)),
            (None, None) => Self::Anonymous,
        }
    }
}

impl Caller {
    /// The caller as a shared store counts its sessions: a digest of the subject (a store
    /// never sees the subject itself), or the address.
    #[cfg(feature = "http")] // Used by the HTTP transport's shared sessions.
    pub(crate) fn key(&self) -> String {
        use sha2::{Digest, Sha256};
        match self {
            Self::Subject(subject) => {
                let digest = Sha256::digest(subject.as_bytes());
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                format!("subject:{hex}")
            }
            Self::Address(ip) => format!("address:{ip}"),
            Self::Anonymous => "anonymous".to_owned(),
        }
    }
}

/// The peer address a request's extensions carry (`ConnectInfo<SocketAddr>`, which
/// [`Server::serve_http_on`](crate::Server::serve_http_on) and axum's
/// `into_make_service_with_connect_info` insert).
#[cfg(feature = "http")]
pub(crate) fn peer_of(parts: &http::request::Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip())
}

/// An IPv6 address masked to its /64 prefix (an IPv4-mapped one as its IPv4 address).
fn masked(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

/// Names the caller in a log line or an error: the address or "anonymous", never a subject
/// (a subject may be an e-mail address; logs name it only where the operator chose to).
impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Subject(_) => f.write_str("an authenticated subject"),
            Self::Address(ip) => write!(f, "{ip}"),
            Self::Anonymous => f.write_str("anonymous"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_wins_over_the_address() {
        let ip = IpAddr::from([127, 0, 0, 1]);
        assert_eq!(
            Caller::of(Some("alice"), Some(ip)),
            Caller::Subject("alice".into())
        );
        assert_eq!(Caller::of(None, Some(ip)), Caller::Address(ip));
        assert_eq!(Caller::of(None, None), Caller::Anonymous);
    }

    #[test]
    fn ipv6_peers_are_counted_by_their_64_prefix() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Caller::of(None, Some(a)), Caller::of(None, Some(b)));
        assert_ne!(Caller::of(None, Some(a)), Caller::of(None, Some(other)));
        let mapped: IpAddr = "::ffff:10.0.0.7".parse().unwrap();
        assert_eq!(
            Caller::of(None, Some(mapped)),
            Caller::Address(IpAddr::from([10, 0, 0, 7]))
        );
    }
}
