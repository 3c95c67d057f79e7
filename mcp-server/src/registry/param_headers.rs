//! Custom parameter headers (SEP-2243) of a registered tool: the `x-mcp-header` annotations of
//! its input schema, checked once when the tool is registered (whatever the transports, with
//! the rules of [`typemcp_core::protocol::param_headers`]) and, with the `http` feature, kept
//! on the route as the list of mirrored arguments, each with its header name ready for
//! lookups and its path in the arguments.

#[cfg(feature = "http")]
use std::sync::Arc;

#[cfg(feature = "http")]
use http::HeaderName;
pub(crate) use typemcp_core::protocol::param_headers::{ANNOTATION, scan};

/// One mirrored argument, as the HTTP transport looks it up.
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
pub(crate) struct ParamHeader {
    /// The argument, as the schema declares it.
    pub(crate) declared: typemcp_core::protocol::param_headers::ParamHeader,
    /// The header's name, ready for lookups (`mcp-param-region`).
    pub(crate) header: HeaderName,
}

/// The mirrored arguments of one tool (usually none), kept for the HTTP transport.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Default)]
pub(crate) struct ParamHeaders(Arc<[ParamHeader]>);

#[cfg(feature = "http")]
impl ParamHeaders {
    /// The arguments [`scan`] found; an annotation's name is a token, so always a header name
    /// (one that is not, impossible as it is, is left out rather than failing a request).
    pub(crate) fn new(found: Vec<typemcp_core::protocol::param_headers::ParamHeader>) -> Self {
        let headers = found
            .into_iter()
            .filter_map(|declared| {
                let header = HeaderName::try_from(declared.header_name().to_ascii_lowercase());
                Some(ParamHeader {
                    header: header.ok()?,
                    declared,
                })
            })
            .collect();
        Self(headers)
    }

    /// The mirrored arguments.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &ParamHeader> {
        self.0.iter()
    }

    /// Whether the tool mirrors no argument.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
