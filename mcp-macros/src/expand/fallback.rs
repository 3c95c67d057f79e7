//! What is emitted beside errors: the function the user registers and its marker, with a
//! route that is never compiled into a working program, so one mistake does not cause
//! errors at every use.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Kind, function};
use crate::krate::Krate;
use crate::model::HandlerFn;

pub(super) fn expand(kind: Kind, f: &HandlerFn, krate: &Krate) -> TokenStream {
    let marker = function::marker(kind, f);
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
    let items = function::named_items(kind, f, TokenStream::new());
    quote! {
        #items

        impl #root::#trait_name for #marker {
            fn #method(self) -> #route {
                ::core::unreachable!("the declaration has compile errors")
            }
        }
    }
}
