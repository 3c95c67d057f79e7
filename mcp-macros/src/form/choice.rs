//! `#[derive(FormChoice)]`: a unit-only enum as the choices of a select field. Values
//! follow serde's `rename` and `rename_all`; labels come from `#[choice(title = "...")]`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::ctxt::Ctxt;

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
    let variants = variants(&ctxt, &input);
    values_are_unique(&ctxt, &variants);
    if !input.generics.params.is_empty() {
        ctxt.error_spanned_by(&input.generics, "a choice enum cannot be generic");
    }
    let failed = ctxt.has_errors();
    let errors = ctxt.finish();
    let ident = &input.ident;
    if failed && !input.generics.params.is_empty() {
        return errors;
    }
    if failed {
        return quote! {
            #errors
            impl ::mcp_server::__private::form::FormChoice for #ident {
                const CHOICES: &'static [::mcp_server::__private::form::Choice] = &[];
                fn value(&self) -> &'static str { ::core::unreachable!("the enum has compile errors") }
                fn from_value(_: &str) -> ::core::option::Option<Self> { ::core::option::Option::None }
            }
        };
    }
    let choices = variants.iter().map(|v| {
        let value = &v.value;
        let title = match &v.title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        quote!(::mcp_server::__private::form::Choice { value: #value, title: #title })
    });
    let to_value = variants.iter().map(|v| {
        let (variant, value) = (&v.ident, &v.value);
        quote!(Self::#variant => #value)
    });
    let from_value = variants.iter().map(|v| {
        let (variant, value) = (&v.ident, &v.value);
        quote!(#value => ::core::option::Option::Some(Self::#variant))
    });
    quote! {
        #[automatically_derived]
        impl ::mcp_server::__private::form::FormChoice for #ident {
            const CHOICES: &'static [::mcp_server::__private::form::Choice] = &[#(#choices),*];

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
        impl ::mcp_server::__private::form::FieldValue for #ident {
            fn schema(
                spec: &::mcp_server::__private::form::FieldSpec,
                default: ::core::option::Option<&Self>,
            ) -> ::mcp_server::__private::PrimitiveSchemaDefinition {
                ::mcp_server::__private::form::choice_schema::<Self>(spec, default)
            }

            fn parse(value: &::mcp_server::__private::serde_json::Value) -> ::core::result::Result<Self, ::std::string::String> {
                ::mcp_server::__private::form::parse_choice::<Self>(value)
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
    let rename_all = serde_rename(ctxt, &input.attrs, "rename_all");
    data.variants
        .iter()
        .filter_map(|v| {
            if !matches!(v.fields, Fields::Unit) {
                ctxt.error_spanned_by(
                    &v.ident,
                    format!("choices are unit variants, but `{}` carries data", v.ident),
                );
                return None;
            }
            let value = match serde_rename(ctxt, &v.attrs, "rename") {
                Some(renamed) => renamed,
                None => rename(
                    &v.ident.to_string(),
                    rename_all.as_deref(),
                    ctxt,
                    &input.ident,
                ),
            };
            Some(Variant {
                ident: v.ident.clone(),
                value,
                title: choice_title(ctxt, &v.attrs),
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

/// Reads `#[serde(key = "...")]`, ignoring serde's other keys.
fn serde_rename(ctxt: &Ctxt, attrs: &[syn::Attribute], key: &str) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(key) && meta.input.peek(syn::Token![=]) {
                let value: LitStr = meta.value()?.parse()?;
                found = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _group: proc_macro2::Group = meta.input.parse()?;
            }
            Ok(())
        });
        if let Err(err) = result {
            ctxt.syn_error(err);
        }
    }
    found
}

/// Reads `#[choice(title = "...")]`.
fn choice_title(ctxt: &Ctxt, attrs: &[syn::Attribute]) -> Option<String> {
    let mut title = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("choice")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("title") {
                if title.is_some() {
                    ctxt.error_spanned_by(&meta.path, "duplicate `title` in `#[choice]`");
                }
                let value: LitStr = meta.value()?.parse()?;
                title = Some(value.value());
                Ok(())
            } else {
                let key = meta
                    .path
                    .get_ident()
                    .map_or_else(String::new, ToString::to_string);
                Err(meta.error(format!("unknown `#[choice]` key `{key}`; expected `title`")))
            }
        });
        if let Err(err) = result {
            ctxt.syn_error(err);
        }
    }
    title
}

/// Applies a serde `rename_all` rule to a variant name.
fn rename(variant: &str, rule: Option<&str>, ctxt: &Ctxt, enum_ident: &syn::Ident) -> String {
    let words = words(variant);
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let upper: Vec<String> = words.iter().map(|w| w.to_uppercase()).collect();
    let capitalized: Vec<String> = lower
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_uppercase().collect::<String>() + chars.as_str()
            })
        })
        .collect();
    match rule {
        None | Some("PascalCase") => variant.to_owned(),
        Some("lowercase") => variant.to_lowercase(),
        Some("UPPERCASE") => variant.to_uppercase(),
        Some("camelCase") => {
            let mut out = lower.first().cloned().unwrap_or_default();
            out.extend(capitalized.iter().skip(1).cloned());
            out
        }
        Some("snake_case") => lower.join("_"),
        Some("SCREAMING_SNAKE_CASE") => upper.join("_"),
        Some("kebab-case") => lower.join("-"),
        Some("SCREAMING-KEBAB-CASE") => upper.join("-"),
        Some(other) => {
            ctxt.error_spanned_by(
                enum_ident,
                format!("unknown serde `rename_all` rule {other:?}"),
            );
            variant.to_owned()
        }
    }
}

/// Splits a PascalCase name into words.
fn words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        match words.last_mut() {
            Some(word) if !c.is_uppercase() => word.push(c),
            _ => words.push(c.to_string()),
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_like_serde() {
        let ctxt = Ctxt::new();
        let id: syn::Ident = syn::parse_quote!(E);
        let cases = [
            ("lowercase", "dateTime", "datetime"),
            ("snake_case", "DateTime", "date_time"),
            ("kebab-case", "DateTime", "date-time"),
            ("camelCase", "DateTime", "dateTime"),
            ("SCREAMING_SNAKE_CASE", "DateTime", "DATE_TIME"),
            ("UPPERCASE", "Staging", "STAGING"),
        ];
        for (rule, name, want) in cases {
            assert_eq!(rename(name, Some(rule), &ctxt, &id), want, "{rule}");
        }
        assert!(ctxt.finish().is_empty());
    }
}
