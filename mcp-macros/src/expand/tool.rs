//! `#[tool]`: `IntoToolRoute`, built with the public `ToolRoute` builder from the handler.

use proc_macro2::TokenStream;
use quote::quote;

use super::handler::{self, Schema};
use super::route::{self, Route};
use super::{Kind, Labels, function, labels, params, unique_name_guard};
use crate::attrs::{HandlerAttrs, Sp, TaskMode};
use crate::krate::Krate;
use crate::model::HandlerFn;

pub(super) fn expand(f: &HandlerFn, attrs: &HandlerAttrs, krate: &Krate) -> TokenStream {
    let ident = function::marker(Kind::Tool, f);
    let root = krate.root();
    let Labels {
        name,
        name_span,
        builders,
    } = labels(f, attrs);
    let bindings = params::arguments(f, krate);
    let handler = handler::expand(f, &ident, krate, &bindings, Schema::Described);
    let annotations = annotations(attrs, krate);
    let task = match attrs.task.as_ref().map(|t| t.value) {
        None => TokenStream::new(),
        Some(TaskMode::Optional) => quote!(.task()),
        Some(TaskMode::Required) => quote!(.task_required()),
    };
    let route = route::constructor(krate, Route::Tool, &f.output, &[quote!(#name)]);
    let guard = unique_name_guard("tool", &name, name_span);
    quote! {
        #guard

        #handler

        #[automatically_derived]
        impl #root::IntoToolRoute for #ident {
            fn into_tool_route(self) -> #root::ToolRoute {
                #route #builders #annotations #task
            }
        }
    }
}

/// `.annotations(..)` from the flags, or nothing when none was given.
fn annotations(attrs: &HandlerAttrs, krate: &Krate) -> TokenStream {
    let private = krate.private();
    let flags = [
        (quote!(read_only_hint), &attrs.read_only),
        (quote!(destructive_hint), &attrs.destructive),
        (quote!(idempotent_hint), &attrs.idempotent),
        (quote!(open_world_hint), &attrs.open_world),
    ];
    let hints: Vec<TokenStream> = flags
        .iter()
        .filter_map(|(field, flag)| {
            let Sp { value, .. } = flag.as_ref()?;
            Some(quote!(annotations.#field = ::core::option::Option::Some(#value);))
        })
        .collect();
    if hints.is_empty() {
        return TokenStream::new();
    }
    quote! {
        .annotations({
            let mut annotations = <#private::ToolAnnotations as ::core::default::Default>::default();
            #(#hints)*
            annotations
        })
    }
}
