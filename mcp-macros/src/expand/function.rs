//! The items named after the function, chosen so that none takes a name the user may also
//! use in the same module:
//!
//! - the function's own name stays a plain `fn` (a binding, a field or a parameter may
//!   shadow a function, never a unit struct): `fn add() -> __mcp_tool_add`, returning the
//!   declaration's marker; the builder accepts the function itself (`.tool(add)`);
//! - the marker, a unit struct named `__mcp_<kind>_<name>` (hidden from the docs), keeps
//!   the user's body as its method `call`, so a test calls the handler as
//!   `add().call(..)`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::Kind;
use crate::model::HandlerFn;

/// The name of the marker type of the declaration `f` of `kind`: a name nobody writes.
pub(super) fn marker(kind: Kind, f: &HandlerFn) -> Ident {
    let ident = f.ident();
    format_ident!(
        "__mcp_{}_{}",
        kind.to_string(),
        ident.unraw(),
        span = ident.span()
    )
}

/// The function named like the user's, returning the marker, and the marker type itself.
/// `body` is what goes in the marker's `impl` (the user's function, or nothing).
pub(super) fn named_items(kind: Kind, f: &HandlerFn, body: TokenStream) -> TokenStream {
    let ident = f.ident();
    let marker = marker(kind, f);
    let vis = &f.item.vis;
    let docs = &f.docs;
    let route_doc = format!(
        "The declaration of the {kind} `{name}`: register the function itself \
         (`.{kind}({name})`), or call the handler directly, bypassing the protocol, with \
         `{name}().call(..)` (useful in tests).",
        name = ident.unraw(),
    );
    quote! {
        #(#docs)*
        #[doc = ""]
        #[doc = #route_doc]
        #[must_use]
        #vis fn #ident() -> #marker {
            #marker
        }

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #marker;

        impl #marker {
            #body
        }
    }
}

/// The function's items, with the user's function kept as the marker's method `call`.
pub(super) fn expand(kind: Kind, f: &HandlerFn) -> TokenStream {
    let ident = f.ident();
    let vis = &f.item.vis;
    let attrs = f.item.attrs.iter().filter(|a| !crate::doc::is_doc(a));
    let mut sig = f.item.sig.clone();
    sig.ident = format_ident!("call", span = ident.span());
    sig.inputs.insert(0, syn::parse_quote!(self));
    let block = &f.item.block;
    let call_doc = format!(
        "Runs `{}` directly, bypassing the protocol (useful in tests).",
        ident.unraw()
    );
    named_items(
        kind,
        f,
        quote! {
            #[doc = #call_doc]
            #(#attrs)*
            #vis #sig #block
        },
    )
}
