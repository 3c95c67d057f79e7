//! `#[tool]`: the `IntoToolRoute` implementation.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{Labels, labels};
use crate::attrs::{HandlerAttrs, Sp};
use crate::model::{HandlerFn, Param};

pub(super) fn expand(f: &HandlerFn, attrs: &HandlerAttrs) -> TokenStream {
    let ident = f.ident();
    let Labels {
        name,
        title,
        description,
    } = labels(f, attrs);
    let annotations = annotations(attrs);
    let schema = input_schema(&f.params);
    let (bindings, args) = extract_params(&f.params);
    let output = &f.output;
    let output_schema = quote_spanned!(output.span()=> ::mcp_server::__private::output_schema::<#output>(&mut generator));
    let convert = quote_spanned!(output.span()=> ::mcp_server::__private::tool_output::<#output>);
    let call = call_expr(ident, &args);
    let guard = unique_name_guard(
        "tool",
        &name,
        attrs.name.as_ref().map_or(ident.span(), syn::LitStr::span),
    );
    quote! {
        #guard

        impl ::mcp_server::IntoToolRoute for #ident {
            fn into_tool_route(self) -> ::mcp_server::ToolRoute {
                #[allow(unused_imports)]
                use ::mcp_server::__private::{ViaArgument as _, ViaArguments as _, ViaExtractor as _};
                let mut generator = ::mcp_server::__private::schema_generator();
                let tool = ::mcp_server::__private::Tool {
                    name: ::std::string::String::from(#name),
                    title: #title,
                    description: #description,
                    input_schema: #schema,
                    output_schema: #output_schema,
                    annotations: #annotations,
                    ..::core::default::Default::default()
                };
                ::mcp_server::__private::tool_route(tool, |invocation: ::mcp_server::Invocation| async move {
                    #[allow(unused_imports)]
                    use ::mcp_server::__private::{ViaArgument as _, ViaArguments as _, ViaExtractor as _};
                    #(#bindings)*
                    ::core::result::Result::Ok(#convert(#call.await))
                })
            }
        }
    }
}

/// `ToolAnnotations` from the flags, or `None` when none was given.
fn annotations(attrs: &HandlerAttrs) -> TokenStream {
    let flags = [
        &attrs.read_only,
        &attrs.destructive,
        &attrs.idempotent,
        &attrs.open_world,
    ];
    if flags.iter().all(|f| f.is_none()) {
        return quote!(::core::option::Option::None);
    }
    let hint = |flag: &Option<Sp<bool>>| match flag {
        Some(Sp { value, .. }) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let (read_only, destructive, idempotent, open_world) = (
        hint(&attrs.read_only),
        hint(&attrs.destructive),
        hint(&attrs.idempotent),
        hint(&attrs.open_world),
    );
    quote! {
        ::core::option::Option::Some(::mcp_server::__private::ToolAnnotations {
            read_only_hint: #read_only,
            destructive_hint: #destructive,
            idempotent_hint: #idempotent,
            open_world_hint: #open_world,
            ..::core::default::Default::default()
        })
    }
}

/// The schema entries of the parameters, each classified by trait (extractors contribute
/// nothing). Expressions use `generator`.
pub(super) fn described_params(params: &[Param]) -> TokenStream {
    let entries = params.iter().map(|p| {
        let ty = &p.ty;
        let doc = opt_static(p.doc.as_deref());
        match &p.name {
            Some(name) => {
                let name = name.to_string();
                let describe = quote_spanned!(ty.span()=>
                    (&&&::mcp_server::__private::Probe::<#ty>::new()).describe(&mut generator));
                quote!((#name, #doc, #describe))
            }
            None => quote_spanned!(ty.span()=> ("", #doc, ::mcp_server::__private::extractor_schema::<#ty>(&mut generator))),
        }
    });
    quote!(::std::vec![#(#entries),*])
}

fn input_schema(params: &[Param]) -> TokenStream {
    let entries = described_params(params);
    quote!(::mcp_server::__private::object_schema(#entries))
}

/// `let` bindings filling each parameter (arguments by name, extractors by trait), and the
/// names to call the function with.
pub(super) fn extract_params(params: &[Param]) -> (Vec<TokenStream>, Vec<syn::Ident>) {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let binding = format_ident!("__mcp_param_{}", i);
            let ty = &p.ty;
            let value = match &p.name {
                Some(name) => {
                    let name = name.to_string();
                    quote_spanned!(ty.span()=> (&&&::mcp_server::__private::Probe::<#ty>::new()).extract(&invocation, #name)?)
                }
                None => quote_spanned!(ty.span()=> ::mcp_server::__private::extractor::<#ty>(&invocation)?),
            };
            (quote!(let #binding: #ty = #value;), binding)
        })
        .unzip()
}

/// `Some("text")` as a `&'static str` option.
pub(super) fn opt_static(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// `name::call(args..)`, asserted `Send` with errors pointing at the function's name.
pub(super) fn call_expr(ident: &syn::Ident, args: &[syn::Ident]) -> TokenStream {
    quote_spanned!(ident.span()=> ::mcp_server::__private::send_future(#ident::call(#(#args),*)))
}

/// A module-level item whose name encodes the declared name, so that two declarations of
/// the same kind and name in one module fail to compile ("defined multiple times"), with
/// both errors on the names.
pub(super) fn unique_name_guard(kind: &str, name: &str, span: proc_macro2::Span) -> TokenStream {
    let encoded: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                format!("_{:x}_", c as u32)
            }
        })
        .collect();
    let guard = format_ident!(
        "{}_named_{}_must_be_unique_in_this_module",
        kind,
        encoded,
        span = span
    );
    quote_spanned! {span=>
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        const #guard: () = ();
    }
}
