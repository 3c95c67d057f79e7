//! Expansion of a form: its `ElicitForm` implementation, and compile-time assertions that
//! tie each constraint to the field's type through traits.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit};

use super::attrs::FieldAttrs;
use super::model::{Field, Form};

/// The `ElicitForm` implementation and its assertions.
pub(crate) fn form(form: &Form) -> TokenStream {
    let ident = &form.ident;
    let assertions = form.fields.iter().map(assertions);
    let properties = form.fields.iter().map(property);
    let reads = form.fields.iter().enumerate().map(|(i, f)| read(i, f));
    let bindings: Vec<Ident> = (0..form.fields.len())
        .map(|i| format_ident!("__mcp_field_{}", i))
        .collect();
    let names = form.fields.iter().map(|f| &f.ident);
    quote! {
        const _: () = {
            #(#assertions)*
        };

        #[automatically_derived]
        impl ::mcp_server::__private::form::ElicitForm for #ident {
            fn requested_schema() -> ::mcp_server::__private::RequestedSchema {
                let mut properties = ::mcp_server::__private::IndexMap::new();
                let mut required = ::std::vec::Vec::new();
                #(#properties)*
                ::mcp_server::__private::RequestedSchema::new(properties, required)
            }

            fn from_content(
                content: &::mcp_server::__private::serde_json::Map<::std::string::String, ::mcp_server::__private::serde_json::Value>,
            ) -> ::core::result::Result<Self, ::mcp_server::__private::form::FormError> {
                static VALIDATOR: ::std::sync::OnceLock<::mcp_server::__private::form::FormValidator> = ::std::sync::OnceLock::new();
                let validator = VALIDATOR.get_or_init(|| {
                    ::mcp_server::__private::form::FormValidator::new(
                        &<Self as ::mcp_server::__private::form::ElicitForm>::requested_schema(),
                    )
                });
                let mut problems = validator.check(content);
                if !problems.is_empty() {
                    return ::core::result::Result::Err(::mcp_server::__private::form::FormError::new(problems));
                }
                #(#reads)*
                match (#(#bindings,)*) {
                    (#(::core::option::Option::Some(#bindings),)*) => ::core::result::Result::Ok(Self { #(#names: #bindings),* }),
                    _ => ::core::result::Result::Err(::mcp_server::__private::form::FormError::new(problems)),
                }
            }
        }
    }
}

/// What is emitted beside errors: an implementation that compiles, so uses of the form
/// report nothing more.
pub(crate) fn fallback(ident: &Ident) -> TokenStream {
    quote! {
        impl ::mcp_server::__private::form::ElicitForm for #ident {
            fn requested_schema() -> ::mcp_server::__private::RequestedSchema {
                ::core::unreachable!("the form has compile errors")
            }
            fn from_content(
                _: &::mcp_server::__private::serde_json::Map<::std::string::String, ::mcp_server::__private::serde_json::Value>,
            ) -> ::core::result::Result<Self, ::mcp_server::__private::form::FormError> {
                ::core::unreachable!("the form has compile errors")
            }
        }
    }
}

/// `<T as FormField>::Value`, spanned at the field's type.
fn value_type(field: &Field) -> TokenStream {
    let ty = &field.ty;
    quote_spanned!(ty.span()=> <#ty as ::mcp_server::__private::form::FormField>::Value)
}

/// Compile-time checks that the field's type is in the vocabulary and that each constraint
/// applies to it and fits in it.
fn assertions(field: &Field) -> TokenStream {
    let ty = &field.ty;
    let value = value_type(field);
    let attrs = &field.attrs;
    let mut out =
        vec![quote_spanned!(ty.span()=> ::mcp_server::__private::form::assert_field::<#ty>();)];
    for key in ["min_length", "max_length", "format"] {
        if let Some(span) = attrs.key_span(key) {
            out.push(
                quote_spanned!(span=> ::mcp_server::__private::form::assert_length::<#value>();),
            );
        }
    }
    if let Some(span) = attrs.key_span("legacy_enum_names") {
        out.push(quote_spanned!(span=> ::mcp_server::__private::form::assert_choice::<#value>();));
    }
    for key in ["min_items", "max_items"] {
        if let Some(span) = attrs.key_span(key) {
            out.push(
                quote_spanned!(span=> ::mcp_server::__private::form::assert_items::<#value>();),
            );
        }
    }
    let mut consts = Vec::new();
    for (key, bound) in [("minimum", &attrs.minimum), ("maximum", &attrs.maximum)] {
        if let Some(bound) = bound {
            let number = bound.value;
            let message = format!(
                "`{key} = {}` does not fit in `{}`",
                bound.text,
                type_text(&field.ty)
            );
            // `fits` requires the type to be a number field: one error, at the bound.
            consts.push(quote_spanned! {bound.span=>
                const _: () = ::core::assert!(::mcp_server::__private::form::fits::<#value>(#number), #message);
            });
        }
    }
    if let Some(default) = literal_number_default(attrs) {
        let message = format!(
            "the default {} does not fit in `{}`",
            default.1,
            type_text(&field.ty)
        );
        let number = default.0;
        consts.push(quote_spanned! {default.2=>
            const _: () = ::core::assert!(::mcp_server::__private::form::fits::<#value>(#number), #message);
        });
    }
    quote! {
        const _: fn() = || { #(#out)* };
        #(#consts)*
    }
}

/// The type as written, for messages.
fn type_text(ty: &syn::Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(' ', "")
}

/// A numeric literal default on a field with numeric bounds: checked against the type too.
fn literal_number_default(attrs: &FieldAttrs) -> Option<(f64, String, proc_macro2::Span)> {
    if attrs.minimum.is_none() && attrs.maximum.is_none() {
        return None;
    }
    let default = attrs.default.as_ref()?;
    let number = super::attrs::number_literal(default)?;
    Some((number.value, number.text, number.span))
}

fn spec(field: &Field) -> TokenStream {
    let attrs = &field.attrs;
    let opt_str = |s: Option<String>| match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let opt_u64 = |n: &Option<crate::attrs::Sp<u64>>| match n {
        Some(n) => {
            let v = n.value;
            quote!(::core::option::Option::Some(#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let opt_f64 = |n: &Option<super::attrs::NumberLit>| match n {
        Some(n) => {
            let v = n.value;
            quote!(::core::option::Option::Some(#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let title = opt_str(attrs.title.as_ref().map(syn::LitStr::value));
    let description = opt_str(
        attrs
            .description
            .as_ref()
            .map(syn::LitStr::value)
            .or_else(|| field.doc.clone()),
    );
    let format = match attrs.format.as_ref().map(syn::LitStr::value).as_deref() {
        Some("email") => quote!(::core::option::Option::Some(
            ::mcp_server::__private::StringFormat::Email
        )),
        Some("uri") => quote!(::core::option::Option::Some(
            ::mcp_server::__private::StringFormat::Uri
        )),
        Some("date") => quote!(::core::option::Option::Some(
            ::mcp_server::__private::StringFormat::Date
        )),
        Some(_) => quote!(::core::option::Option::Some(
            ::mcp_server::__private::StringFormat::DateTime
        )),
        None => quote!(::core::option::Option::None),
    };
    let (min_length, max_length) = (opt_u64(&attrs.min_length), opt_u64(&attrs.max_length));
    let (min_items, max_items) = (opt_u64(&attrs.min_items), opt_u64(&attrs.max_items));
    let (minimum, maximum) = (opt_f64(&attrs.minimum), opt_f64(&attrs.maximum));
    let legacy = attrs.legacy_enum_names;
    quote! {
        ::mcp_server::__private::form::FieldSpec {
            title: #title,
            description: #description,
            min_length: #min_length,
            max_length: #max_length,
            format: #format,
            minimum: #minimum,
            maximum: #maximum,
            min_items: #min_items,
            max_items: #max_items,
            legacy_enum_names: #legacy,
        }
    }
}

/// The default as `Option<Value>` tokens (the user's expression keeps its span, so a
/// default of the wrong type is reported on it).
fn default(field: &Field) -> TokenStream {
    match &field.attrs.default {
        Some(expr) => {
            let expr = literal_value(expr);
            quote!(::core::option::Option::Some(#expr))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// A string literal default becomes a `String` (the value type of text fields); any other
/// expression is used as written, so a default of the wrong type is reported on it.
fn literal_value(expr: &Expr) -> TokenStream {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => quote!(::std::string::String::from(#s)),
        other => quote!(#other),
    }
}

fn property(field: &Field) -> TokenStream {
    let name = field.ident.to_string();
    let ty = &field.ty;
    let value = value_type(field);
    let spec = spec(field);
    let default = default(field);
    let has_default = field.attrs.default.is_some();
    quote! {
        {
            let default: ::core::option::Option<#value> = #default;
            properties.insert(
                ::std::string::String::from(#name),
                <#value as ::mcp_server::__private::form::FieldValue>::schema(&#spec, default.as_ref()),
            );
            if <#ty as ::mcp_server::__private::form::FormField>::REQUIRED && !#has_default {
                required.push(::std::string::String::from(#name));
            }
        }
    }
}

fn read(index: usize, field: &Field) -> TokenStream {
    let binding = format_ident!("__mcp_field_{}", index);
    let name = field.ident.to_string();
    let ty = &field.ty;
    let default = default(field);
    quote! {
        let #binding = ::mcp_server::__private::form::read_field::<#ty>(content, #name, #default, &mut problems);
    }
}
