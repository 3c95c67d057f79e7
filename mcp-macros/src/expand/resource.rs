//! `#[resource]`: `IntoResourceRoute`, built with the public `ResourceRoute` (fixed URI) or
//! `ResourceTemplateRoute` (template) builder from the handler.

use proc_macro2::TokenStream;
use quote::quote;

use super::handler::{self, Schema};
use super::route::{self, Route};
use super::{Kind, Labels, completions, function, labels, params, unique_name_guard};
use crate::attrs::HandlerAttrs;
use crate::krate::Krate;
use crate::model::HandlerFn;

pub(super) fn expand(f: &HandlerFn, attrs: &HandlerAttrs, krate: &Krate) -> TokenStream {
    let ident = function::marker(Kind::Resource, f);
    let root = krate.root();
    let Labels { name, builders, .. } = labels(f, attrs);
    let bindings = params::resource(f, attrs.template.as_ref(), krate);
    let handler = handler::expand(f, &ident, krate, &bindings, Schema::None);
    let mime_type = attrs.mime_type.as_ref().map(|m| quote!(.mime_type(#m)));
    let output = &f.output;
    // Checked: exactly one of `uri` and `template` is there.
    let (route, key) = match (&attrs.uri, &attrs.template) {
        (Some(uri), _) => {
            let new = route::constructor(
                krate,
                Route::Resource,
                output,
                &[quote!(#uri), quote!(#name)],
            );
            (quote!(#new #builders #mime_type), uri.clone())
        }
        (None, Some(template)) => {
            let lit = &template.lit;
            let new = route::constructor(
                krate,
                Route::Template,
                output,
                &[quote!(#lit), quote!(#name)],
            );
            let completions = completions(attrs);
            (quote!(#new #builders #mime_type #completions), lit.clone())
        }
        // Reported by the checks; never expanded.
        (None, None) => return TokenStream::new(),
    };
    let guard = unique_name_guard("resource", &key.value(), key.span());
    quote! {
        #guard

        #handler

        #[automatically_derived]
        impl #root::IntoResourceRoute for #ident {
            fn into_resource_route(self) -> #root::registry::AnyResourceRoute {
                #root::IntoResourceRoute::into_resource_route(#route)
            }
        }
    }
}
