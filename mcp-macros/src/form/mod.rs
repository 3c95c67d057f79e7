//! `#[derive(ElicitForm)]` / `#[elicit_form]` and `#[derive(FormChoice)]`: forms from
//! structs, choices from unit enums. Parse ([`parse`], [`attrs`], [`rename`]) → model →
//! check → expand, as for the handlers; every expansion emits its items even beside errors,
//! so one mistake does not cascade into errors at the uses of the type.

mod attrs;
mod check;
mod choice;
mod expand;
mod model;
mod parse;
mod rename;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;
use attrs::Container;

/// `#[derive(ElicitForm)]`.
pub(crate) fn derive_form(item: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let ctxt = Ctxt::new();
    let krate = model::krate(&ctxt, &input, Container::Form);
    let form = model::Form::from_input(&ctxt, &input, krate.clone());
    if let Some(form) = &form {
        check::form(&ctxt, form);
    }
    let failed = ctxt.has_errors();
    let errors = ctxt.finish();
    match form {
        Some(form) if !failed => expand::form(&form),
        _ => {
            let fallback = expand::fallback(&krate, &input);
            quote!(#errors #fallback)
        }
    }
}

/// `#[elicit_form]`: the attribute spelling of the derive. The derive is named through the
/// struct's own `#[form(crate = path)]`, if any; arguments are an error, and the derive is
/// emitted anyway.
pub(crate) fn attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let error = (!attr.is_empty()).then(|| {
        syn::Error::new_spanned(
            attr,
            "`#[elicit_form]` takes no arguments: put field settings in `#[form(...)]`",
        )
        .into_compile_error()
    });
    // The derive reports the mistakes of `#[form]`; here it only names the crate.
    let krate = match syn::parse2::<syn::DeriveInput>(item.clone()) {
        Ok(input) => {
            let scratch = Ctxt::new();
            let krate = model::krate(&scratch, &input, Container::Form);
            drop(scratch.finish());
            krate
        }
        Err(_) => crate::krate::Krate::default(),
    };
    let root = krate.root();
    quote! {
        #error
        #[derive(#root::ElicitForm)]
        #item
    }
}

/// `#[derive(FormChoice)]`.
pub(crate) fn derive_choice(item: TokenStream) -> TokenStream {
    choice::derive(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(tokens: TokenStream) -> String {
        tokens.to_string().replace(' ', "")
    }

    #[test]
    fn a_crate_override_replaces_every_runtime_path() {
        let form = text(derive_form(quote! {
            #[form(crate = my::sdk)]
            struct Token {
                #[form(min_length = 1, format = "email", minimum = 1)]
                r#type: String,
            }
        }));
        assert!(!form.contains("typemcp_server"), "{form}");
        assert!(form.contains("my::sdk::__private_v0_1::form::ElicitFormforToken"));
        let choice = text(derive_choice(quote! {
            #[choice(crate = my::sdk)]
            enum Keyword { r#fn }
        }));
        assert!(!choice.contains("typemcp_server"), "{choice}");
        assert!(choice.contains("my::sdk::__private_v0_1::form::FormChoiceforKeyword"));
        let attribute = text(attribute(
            TokenStream::new(),
            quote!(
                #[form(crate = my::sdk)]
                struct Token {
                    r#type: String,
                }
            ),
        ));
        assert!(
            attribute.contains("#[derive(my::sdk::ElicitForm)]"),
            "{attribute}"
        );
    }

    #[test]
    fn raw_identifiers_are_unrawed_on_the_wire() {
        let form = text(derive_form(quote!(
            struct Token {
                r#type: String,
            }
        )));
        assert!(form.contains("(\"type\","), "{form}");
        assert!(!form.contains("\"r#type\""), "{form}");
        assert!(
            form.contains("r#type:"),
            "the struct is still built with its field: {form}"
        );
        let choice = text(derive_choice(quote!(
            enum Keyword {
                r#fn,
                r#struct,
            }
        )));
        assert!(choice.contains("value:\"fn\""), "{choice}");
        assert!(choice.contains("Self::r#struct=>\"struct\""), "{choice}");
    }

    #[test]
    fn errors_come_with_fallback_items_through_the_override() {
        let form = text(derive_form(quote! {
            #[form(crate = my::sdk)]
            struct Token { #[form(bogus)] name: String }
        }));
        assert!(form.contains("compile_error"), "{form}");
        assert!(form.contains("implmy::sdk::__private_v0_1::form::ElicitFormforToken"));
        let choice = text(derive_choice(quote! {
            #[choice(crate = my::sdk)]
            enum Size { Custom(u8) }
        }));
        assert!(choice.contains("compile_error"), "{choice}");
        assert!(choice.contains("my::sdk::__private_v0_1::form::FormChoiceforSize"));
        assert!(choice.contains("my::sdk::__private_v0_1::form::FieldValueforSize"));
        let attribute = text(attribute(
            quote!(title = "x"),
            quote!(
                struct Token {}
            ),
        ));
        assert!(attribute.contains("compile_error"), "{attribute}");
        assert!(
            attribute.contains("#[derive(::typemcp_server::ElicitForm)]"),
            "{attribute}"
        );
    }
}
