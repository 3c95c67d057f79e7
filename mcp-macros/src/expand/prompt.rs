//! `#[prompt]`: `IntoPromptRoute`, built with the public `PromptRoute` builder from the
//! handler (whose arguments schema becomes the prompt's arguments).

use proc_macro2::TokenStream;
use quote::quote;

use super::handler::{self, Schema};
use super::route::{self, Route};
use super::{Kind, Labels, completions, function, labels, params, unique_name_guard};
use crate::attrs::HandlerAttrs;
use crate::krate::Krate;
use crate::model::HandlerFn;

pub(super) fn expand(f: &HandlerFn, attrs: &HandlerAttrs, krate: &Krate) -> TokenStream {
    let ident = function::marker(Kind::Prompt, f);
    let root = krate.root();
    let Labels {
        name,
        name_span,
        builders,
    } = labels(f, attrs);
    let bindings = params::arguments(f, krate);
    let handler = handler::expand(f, &ident, krate, &bindings, Schema::Described);
    let completions = completions(attrs);
    let route = route::constructor(krate, Route::Prompt, &f.output, &[quote!(#name)]);
    let guard = unique_name_guard("prompt", &name, name_span);
    quote! {
        #guard

        #handler

        #[automatically_derived]
        impl #root::IntoPromptRoute for #ident {
            fn into_prompt_route(self) -> #root::PromptRoute {
                #route #builders #completions
            }
        }
    }
}
