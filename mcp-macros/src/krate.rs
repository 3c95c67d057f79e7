//! The paths generated code names: the runtime crate (`::typemcp_server`, or the user's
//! `crate = path` override) and its versioned hidden support module.
//!
//! Every expansion reaches runtime helpers through [`Krate::private`], never through a
//! hard-coded `::typemcp_server::__private`, so that a re-exporting crate can point the macros at
//! itself and a macro crate can never be paired with a runtime of another version.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// The name of the hidden support module in `typemcp_server`. It carries the version of the
/// workspace (both crates share it), like serde's `__private228`.
pub(crate) const PRIVATE_MODULE: &str = "__private_v0_1";

/// The runtime crate generated code refers to.
#[derive(Clone, Debug)]
pub(crate) struct Krate {
    path: TokenStream,
}

impl Krate {
    /// `::typemcp_server`, or the path given with `crate = path`.
    pub(crate) fn new(path: Option<&syn::Path>) -> Self {
        Self {
            path: match path {
                Some(path) => path.to_token_stream(),
                None => quote!(::typemcp_server),
            },
        }
    }

    /// The crate root, for public items (`#root::ToolRoute`).
    pub(crate) fn root(&self) -> &TokenStream {
        &self.path
    }

    /// The hidden support module (`#private::tool_route(..)`).
    pub(crate) fn private(&self) -> TokenStream {
        let path = &self.path;
        let module = proc_macro2::Ident::new(PRIVATE_MODULE, proc_macro2::Span::call_site());
        quote!(#path::#module)
    }
}

impl Default for Krate {
    fn default() -> Self {
        Self::new(None)
    }
}
