//! `#[derive(FormChoice)]`: a unit-only enum as the choices of a select field. Values
//! follow serde's `rename` and `rename_all` (see [`rename`](super::rename)); labels come
//! from `#[choice(title = "...")]`; `#[choice(crate = path)]` on the enum names the runtime.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields};

use super::attrs::{Container, choice_title};
use super::model::krate;
use super::rename::SerdeNames;
use crate::ctxt::Ctxt;
use crate::krate::Krate;

/// One variant and what the user sees of it.
struct Variant {
    ident: syn::Ident,
    value: String,
    title: Option<String>,
}

pub(super) fn derive(item: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let ctxt = Ctxt::new();
    let krate = krate(&ctxt, &input, Container::Choice);
    let variants = variants(&ctxt, &input);
    values_are_unique(&ctxt, &variants);
    if !input.generics.params.is_empty() {
        ctxt.error_spanned_by(&input.generics, "a choice enum cannot be generic");
    }
    let failed = ctxt.has_errors();
    let errors = ctxt.finish();
    if failed {
        let fallback = fallback(&krate, &input);
        return quote!(#errors #fallback);
    }
    expand(&krate, &input.ident, &variants)
}

fn expand(krate: &Krate, ident: &syn::Ident, variants: &[Variant]) -> TokenStream {
    let private = krate.private();
    let choices = variants.iter().map(|v| {
        let value = &v.value;
        let title = match &v.title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        quote!(#private::form::Choice { value: #value, title: #title })
    });
    let to_value = variants.iter().map(|v| {
        let (variant, value) = (&v.ident, &v.value);
        quote!(Self::#variant => #value)
    });
    let from_value = variants.iter().map(|v| {
        let (variant, value) = (&v.ident, &v.value);
        quote!(#value => ::core::option::Option::Some(Self::#variant))
    });
    let json = quote!(#private::serde_json);
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #private::form::FormChoice for #ident {
                const CHOICES: &'static [#private::form::Choice] = &[#(#choices),*];

                fn value(&self) -> &'static str {
                    match self { #(#to_value,)* }
                }

                fn from_value(value: &str) -> ::core::option::Option<Self> {
                    match value {
                        #(#from_value,)*
                        _ => ::core::option::Option::None,
                    }
                }
            }

            #[automatically_derived]
            impl #private::form::FieldValue for #ident {
                fn schema(
                    spec: &#private::form::FieldSpec,
                    default: ::core::option::Option<&Self>,
                ) -> #private::PrimitiveSchemaDefinition {
                    #private::form::choice_schema::<Self>(spec, default)
                }

                fn check(value: &#json::Value, problems: &mut ::std::vec::Vec<::std::string::String>) {
                    #private::form::check_choice::<Self>(value, problems)
                }

                fn parse(value: &#json::Value) -> ::core::result::Result<Self, ::std::string::String> {
                    #private::form::parse_choice::<Self>(value)
                }
            }
        };
    }
}

/// What is emitted beside errors: both implementations, so neither the enum's uses nor the
/// forms that ask for it report anything more.
fn fallback(krate: &Krate, input: &DeriveInput) -> TokenStream {
    let private = krate.private();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    // `FormChoice: 'static`.
    where_clause
        .predicates
        .push(syn::parse_quote!(Self: 'static));
    let json = quote!(#private::serde_json);
    quote! {
        impl #impl_generics #private::form::FormChoice for #ident #ty_generics #where_clause {
            const CHOICES: &'static [#private::form::Choice] = &[];
            fn value(&self) -> &'static str { ::core::unreachable!("the enum has compile errors") }
            fn from_value(_: &str) -> ::core::option::Option<Self> { ::core::option::Option::None }
        }

        impl #impl_generics #private::form::FieldValue for #ident #ty_generics #where_clause {
            fn schema(
                _: &#private::form::FieldSpec,
                _: ::core::option::Option<&Self>,
            ) -> #private::PrimitiveSchemaDefinition {
                ::core::unreachable!("the enum has compile errors")
            }
            fn parse(_: &#json::Value) -> ::core::result::Result<Self, ::std::string::String> {
                ::core::unreachable!("the enum has compile errors")
            }
        }
    }
}

/// The variants of a unit-only enum, with their values and labels.
fn variants(ctxt: &Ctxt, input: &DeriveInput) -> Vec<Variant> {
    let Data::Enum(data) = &input.data else {
        ctxt.error_spanned_by(
            &input.ident,
            "`FormChoice` goes on an enum whose variants are the choices",
        );
        return Vec::new();
    };
    if data.variants.is_empty() {
        ctxt.error_spanned_by(&input.ident, "a choice enum needs at least one variant");
    }
    let rename_all = SerdeNames::parse(ctxt, &input.attrs).rename_all;
    data.variants
        .iter()
        .filter_map(|v| {
            let title = choice_title(ctxt, &v.attrs);
            let renamed = SerdeNames::parse(ctxt, &v.attrs).rename;
            if !matches!(v.fields, Fields::Unit) {
                ctxt.error_spanned_by(
                    &v.ident,
                    format!("choices are unit variants, but `{}` carries data", v.ident),
                );
                return None;
            }
            let name = v.ident.unraw().to_string();
            let value = match (renamed, rename_all) {
                (Some(renamed), _) => renamed,
                (None, Some(rule)) => rule.apply(&name),
                (None, None) => name,
            };
            Some(Variant {
                ident: v.ident.clone(),
                value,
                title: title.map(|t| t.value()),
            })
        })
        .collect()
}

/// Two variants with the same value could not be told apart in an answer.
fn values_are_unique(ctxt: &Ctxt, variants: &[Variant]) {
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.value == v.value) {
            ctxt.error_spanned_by(
                &v.ident,
                format!("two choices have the value {:?}", v.value),
            );
        }
    }
}
