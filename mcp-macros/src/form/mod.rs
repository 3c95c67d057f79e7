//! `#[derive(ElicitForm)]` / `#[elicit_form]` and `#[derive(FormChoice)]`: forms from
//! structs, choices from unit enums. Parse → model → check → expand, as for the handlers.

mod attrs;
mod check;
mod choice;
mod expand;
mod model;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;

/// `#[derive(ElicitForm)]`.
pub(crate) fn derive_form(item: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let ctxt = Ctxt::new();
    let form = model::Form::from_input(&ctxt, &input);
    if let Some(form) = &form {
        check::form(&ctxt, form);
    }
    let failed = ctxt.has_errors();
    let errors = ctxt.finish();
    match form {
        Some(form) if !failed => {
            let expanded = expand::form(&form);
            quote!(#errors #expanded)
        }
        // A generic form gets no fallback: it would only add errors about its generics.
        _ if !input.generics.params.is_empty() => errors,
        _ => {
            let fallback = expand::fallback(&input.ident);
            quote!(#errors #fallback)
        }
    }
}

/// `#[elicit_form]`: the attribute spelling of the derive.
pub(crate) fn attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let err = syn::Error::new_spanned(
            attr,
            "`#[elicit_form]` takes no arguments: put field settings in `#[form(...)]`",
        )
        .into_compile_error();
        return quote!(#err #item);
    }
    quote! {
        #[derive(::mcp_server::ElicitForm)]
        #item
    }
}

/// `#[derive(FormChoice)]`.
pub(crate) fn derive_choice(item: TokenStream) -> TokenStream {
    choice::derive(item)
}
