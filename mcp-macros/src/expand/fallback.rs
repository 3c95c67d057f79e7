//! What is emitted beside errors: the item the user registers, with a body that is never
//! compiled into a working program, so one mistake does not cause errors at every use.

use proc_macro2::TokenStream;
use quote::quote;

use super::Kind;
use crate::model::HandlerFn;

pub(super) fn expand(kind: Kind, f: &HandlerFn) -> TokenStream {
    let ident = f.ident();
    let vis = &f.item.vis;
    let (trait_name, method, route) = match kind {
        Kind::Tool => (
            quote!(IntoToolRoute),
            quote!(into_tool_route),
            quote!(::mcp_server::ToolRoute),
        ),
        Kind::Prompt => (
            quote!(IntoPromptRoute),
            quote!(into_prompt_route),
            quote!(::mcp_server::PromptRoute),
        ),
        Kind::Resource => (
            quote!(IntoResourceRoute),
            quote!(into_resource_route),
            quote!(::mcp_server::registry::AnyResourceRoute),
        ),
    };
    quote! {
        #[allow(non_camel_case_types)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #ident;

        impl ::mcp_server::#trait_name for #ident {
            fn #method(self) -> #route {
                ::core::unreachable!("the declaration has compile errors")
            }
        }
    }
}
