//! The item named by the function's identifier: a unit struct, with the function kept as
//! its associated `call`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::HandlerFn;

pub(super) fn expand(f: &HandlerFn) -> TokenStream {
    let ident = f.ident();
    let vis = &f.item.vis;
    let docs = &f.docs;
    let attrs = f.item.attrs.iter().filter(|a| !crate::doc::is_doc(a));
    let mut sig = f.item.sig.clone();
    sig.ident = format_ident!("call", span = ident.span());
    let block = &f.item.block;
    let call_doc = format!("Runs `{ident}` directly, bypassing the protocol (useful in tests).");
    quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #ident;

        impl #ident {
            #[doc = #call_doc]
            #(#attrs)*
            #vis #sig #block
        }
    }
}
