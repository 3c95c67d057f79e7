//! The call of a public route constructor (`ToolRoute::new(name, handler)`, …), written so
//! that a return type that does not convert into the method's result is reported once, on
//! the return type.
//!
//! The constructor's bound (`H::Output: IntoToolResult`) would be reported at the call, far
//! from the type. So the call goes through a local function generic over the output `R`
//! with the bound on `R`, called as `route::<#output, Self>(..)`: rustc reports a bound on an
//! explicit generic argument at that argument, the whole return type. An assertion with the
//! same bound at the same span (`assert_tool_output::<#output>()`) comes first, and rustc
//! drops the second report as a duplicate.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::krate::Krate;

/// Which route is built.
#[derive(Clone, Copy)]
pub(super) enum Route {
    Tool,
    Prompt,
    Resource,
    Template,
}

/// `Route::new(labels.., self)` as a block, for the handler `Self` returning `output`.
pub(super) fn constructor(
    krate: &Krate,
    route: Route,
    output: &Type,
    labels: &[TokenStream],
) -> TokenStream {
    let root = krate.root();
    let private = krate.private();
    let (ty, bound, assert) = match route {
        Route::Tool => (
            quote!(ToolRoute),
            quote!(IntoToolResult),
            quote!(assert_tool_output),
        ),
        Route::Prompt => (
            quote!(PromptRoute),
            quote!(IntoPromptResult),
            quote!(assert_prompt_output),
        ),
        Route::Resource => (
            quote!(ResourceRoute),
            quote!(IntoResourceResult),
            quote!(assert_resource_output),
        ),
        Route::Template => (
            quote!(ResourceTemplateRoute),
            quote!(IntoResourceResult),
            quote!(assert_resource_output),
        ),
    };
    let params: Vec<_> = (0..labels.len())
        .map(|i| format_ident!("label_{}", i))
        .collect();
    let assert = quote_spanned!(output.span()=> #private::#assert::<#output>());
    quote! {{
        fn route<R: #root::#bound, H: #root::Handler<#private::Declared, Output = R>>(
            #(#params: &'static str,)*
            handler: H,
        ) -> #root::#ty {
            #root::#ty::new(#(#params,)* handler)
        }
        #assert;
        route::<#output, Self>(#(#labels,)* self)
    }}
}
