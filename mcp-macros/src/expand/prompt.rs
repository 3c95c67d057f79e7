//! `#[prompt]`: the `IntoPromptRoute` implementation.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::tool::{call_expr, described_params, extract_params, unique_name_guard};
use super::{Labels, labels};
use crate::attrs::HandlerAttrs;
use crate::model::HandlerFn;

pub(super) fn expand(f: &HandlerFn, attrs: &HandlerAttrs) -> TokenStream {
    let ident = f.ident();
    let Labels {
        name,
        title,
        description,
    } = labels(f, attrs);
    let described = described_params(&f.params);
    let (bindings, args) = extract_params(&f.params);
    let output = &f.output;
    let convert = quote_spanned!(output.span()=> ::mcp_server::__private::prompt_output::<#output>);
    let call = call_expr(ident, &args);
    let completions = attrs.complete.iter().map(|(argument, handler)| {
        let argument = argument.to_string();
        quote!(.complete(#argument, #handler))
    });
    let guard = unique_name_guard(
        "prompt",
        &name,
        attrs.name.as_ref().map_or(ident.span(), syn::LitStr::span),
    );
    quote! {
        #guard

        impl ::mcp_server::IntoPromptRoute for #ident {
            fn into_prompt_route(self) -> ::mcp_server::PromptRoute {
                #[allow(unused_imports)]
                use ::mcp_server::__private::{ViaArgument as _, ViaArguments as _, ViaExtractor as _};
                let mut generator = ::mcp_server::__private::schema_generator();
                let prompt = ::mcp_server::__private::Prompt {
                    name: ::std::string::String::from(#name),
                    title: #title,
                    description: #description,
                    arguments: ::mcp_server::__private::prompt_arguments(#described),
                    ..::core::default::Default::default()
                };
                ::mcp_server::__private::prompt_route(prompt, |invocation: ::mcp_server::Invocation| async move {
                    #[allow(unused_imports)]
                    use ::mcp_server::__private::{ViaArgument as _, ViaArguments as _, ViaExtractor as _};
                    #(#bindings)*
                    ::core::result::Result::Ok(#convert(#call.await))
                })
                #(#completions)*
            }
        }
    }
}
