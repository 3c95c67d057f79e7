//! What is emitted beside errors: the item the user registers, with a body that is never
//! compiled into a working program, so one mistake does not cause errors at every use.

use proc_macro2::TokenStream;
use quote::quote;

use super::Kind;
use crate::krate::Krate;
use crate::model::HandlerFn;

pub(super) fn expand(kind: Kind, f: &HandlerFn, krate: &Krate) -> TokenStream {
    let ident = f.ident();
    let vis = &f.item.vis;
    let root = krate.root();
    let (trait_name, method, route) = match kind {
        Kind::Tool => (
            quote!(IntoToolRoute),
            quote!(into_tool_route),
            quote!(#root::ToolRoute),
        ),
        Kind::Prompt => (
            quote!(IntoPromptRoute),
            quote!(into_prompt_route),
            quote!(#root::PromptRoute),
        ),
        Kind::Resource => (
            quote!(IntoResourceRoute),
            quote!(into_resource_route),
            quote!(#root::registry::AnyResourceRoute),
        ),
    };
    quote! {
        #[allow(non_camel_case_types)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #ident;

        impl #root::#trait_name for #ident {
            fn #method(self) -> #route {
                ::core::unreachable!("the declaration has compile errors")
            }
        }
    }
}
