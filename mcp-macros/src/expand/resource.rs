//! `#[resource]`: the `IntoResourceRoute` implementation, for a fixed URI or a template.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::tool::{call_expr, unique_name_guard};
use super::{Labels, labels, opt_str};
use crate::attrs::HandlerAttrs;
use crate::model::HandlerFn;

pub(super) fn expand(f: &HandlerFn, attrs: &HandlerAttrs) -> TokenStream {
    let ident = f.ident();
    let Labels {
        name,
        title,
        description,
    } = labels(f, attrs);
    let mime_type = opt_str(attrs.mime_type.as_ref().map(syn::LitStr::value));
    let template = attrs.template.as_ref().map(syn::LitStr::value);
    let variables: Vec<String> = template
        .as_deref()
        .and_then(|t| mcp_core::uri_template::UriTemplate::parse(t).ok())
        .map(|t| t.variables().map(str::to_owned).collect())
        .unwrap_or_default();
    let (bindings, args): (Vec<_>, Vec<_>) = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let binding = format_ident!("__mcp_param_{}", i);
            let ty = &p.ty;
            let variable = p.name.as_ref().map(ToString::to_string).filter(|n| variables.contains(n));
            let value = match variable {
                Some(variable) => {
                    quote_spanned!(ty.span()=> ::mcp_server::__private::uri_variable::<#ty>(&invocation, #variable)?)
                }
                None => quote_spanned!(ty.span()=> ::mcp_server::__private::resource_extractor::<#ty>(&invocation)?),
            };
            (quote!(let #binding: #ty = #value;), binding)
        })
        .unzip();
    let output = &f.output;
    let convert =
        quote_spanned!(output.span()=> ::mcp_server::__private::resource_output::<#output>);
    let call = call_expr(ident, &args);
    let read = quote! {
        |invocation: ::mcp_server::Invocation| async move {
            let uri = invocation.uri.clone().unwrap_or_default();
            #(#bindings)*
            ::core::result::Result::Ok(#convert(#call.await, &uri))
        }
    };
    let completions = attrs.complete.iter().map(|(argument, handler)| {
        let argument = argument.to_string();
        quote!(.complete(#argument, #handler))
    });
    let route = match (&attrs.uri, template) {
        (Some(uri), _) => quote! {
            ::mcp_server::IntoResourceRoute::into_resource_route(::mcp_server::__private::resource_route(
                ::mcp_server::__private::Resource {
                    uri: ::std::string::String::from(#uri),
                    name: ::std::string::String::from(#name),
                    title: #title,
                    description: #description,
                    mime_type: #mime_type,
                    ..::core::default::Default::default()
                },
                #read,
            ))
        },
        (None, template) => {
            let template = template.unwrap_or_default();
            quote! {
                ::mcp_server::IntoResourceRoute::into_resource_route(::mcp_server::__private::template_route(
                    ::mcp_server::__private::ResourceTemplate {
                        uri_template: ::std::string::String::from(#template),
                        name: ::std::string::String::from(#name),
                        title: #title,
                        description: #description,
                        mime_type: #mime_type,
                        ..::core::default::Default::default()
                    },
                    #read,
                )
                #(#completions)*)
            }
        }
    };
    let key = attrs.uri.as_ref().or(attrs.template.as_ref());
    let guard = unique_name_guard(
        "resource",
        &key.map_or_else(|| name.clone(), syn::LitStr::value),
        key.map_or(ident.span(), syn::LitStr::span),
    );
    quote! {
        #guard

        impl ::mcp_server::IntoResourceRoute for #ident {
            fn into_resource_route(self) -> ::mcp_server::registry::AnyResourceRoute {
                #route
            }
        }
    }
}
