//! Expansion of a form: its `ElicitForm` implementation, whose `from_content` checks each
//! field against exactly the constraints it declares, and compile-time assertions that tie
//! each constraint to the field's type through traits.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, Ident, Lit};

use super::attrs::{FieldAttrs, FieldKey, Format, NumberLit, Spanned, number_literal};
use super::model::{Field, Form};
use crate::krate::Krate;

/// The `ElicitForm` implementation and its assertions.
pub(crate) fn form(form: &Form) -> TokenStream {
    let ident = &form.ident;
    let private = form.krate.private();
    let assertions = form.fields.iter().map(|f| assertions(&private, f));
    let properties = form.fields.iter().map(|f| property(&private, f));
    let reads = form
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| read(&private, i, f));
    let bindings: Vec<Ident> = (0..form.fields.len())
        .map(|i| format_ident!("__mcp_field_{}", i))
        .collect();
    let idents = form.fields.iter().map(|f| &f.ident);
    let json = quote!(#private::serde_json);
    quote! {
        const _: () = {
            #(#assertions)*

            #[automatically_derived]
            impl #private::form::ElicitForm for #ident {
                fn requested_schema() -> #private::RequestedSchema {
                    let mut __mcp_schema = #private::form::SchemaBuilder::new();
                    #(#properties)*
                    __mcp_schema.finish()
                }

                fn from_content(
                    __mcp_content: &#json::Map<::std::string::String, #json::Value>,
                ) -> ::core::result::Result<Self, #private::form::FormError> {
                    let mut __mcp_answer = #private::form::Reader::new(__mcp_content);
                    #(#reads)*
                    #[allow(unreachable_patterns)]
                    let __mcp_value = match (#(#bindings,)*) {
                        (#(::core::option::Option::Some(#bindings),)*) => {
                            ::core::option::Option::Some(Self { #(#idents: #bindings),* })
                        }
                        _ => ::core::option::Option::None,
                    };
                    __mcp_answer.finish(__mcp_value)
                }
            }
        };
    }
}

/// What is emitted beside errors: an implementation that compiles, so uses of the type
/// report nothing more.
pub(crate) fn fallback(krate: &Krate, input: &syn::DeriveInput) -> TokenStream {
    let private = krate.private();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let json = quote!(#private::serde_json);
    quote! {
        impl #impl_generics #private::form::ElicitForm for #ident #ty_generics #where_clause {
            fn requested_schema() -> #private::RequestedSchema {
                ::core::unreachable!("the form has compile errors")
            }
            fn from_content(
                _: &#json::Map<::std::string::String, #json::Value>,
            ) -> ::core::result::Result<Self, #private::form::FormError> {
                ::core::unreachable!("the form has compile errors")
            }
        }
    }
}

/// `#private::form::kind::<T>()`, spanned at the field's type. Both methods name the type
/// only here, with the same tokens: a type outside the vocabulary is one error.
fn kind(private: &TokenStream, field: &Field) -> TokenStream {
    let ty = &field.ty;
    // The whole path at the type, so the error points at the field, not at the derive.
    let private = respan(private.clone(), ty.span());
    quote_spanned!(ty.span()=> #private::form::kind::<#ty>())
}

/// `tokens`, every one of them spanned at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            }
            tree.set_span(span);
            tree
        })
        .collect()
}

/// `<T as FormField>::Value`, spanned at the field's type.
fn value_type(private: &TokenStream, field: &Field) -> TokenStream {
    let ty = &field.ty;
    quote_spanned!(ty.span()=> <#ty as #private::form::FormField>::Value)
}

/// Compile-time checks that each constraint applies to the field's type and fits in it.
fn assertions(private: &TokenStream, field: &Field) -> TokenStream {
    let value = value_type(private, field);
    let attrs = &field.attrs;
    let mut traits = Vec::new();
    let keys = [
        (FieldKey::MinLength, quote!(assert_length)),
        (FieldKey::MaxLength, quote!(assert_length)),
        (FieldKey::Format, quote!(assert_length)),
        (FieldKey::LegacyEnumNames, quote!(assert_choice)),
        (FieldKey::MinItems, quote!(assert_items)),
        (FieldKey::MaxItems, quote!(assert_items)),
    ];
    for (key, assertion) in keys {
        if let Some(span) = attrs.key_span(key) {
            traits.push(quote_spanned!(span=> #private::form::#assertion::<#value>();));
        }
    }
    let mut consts = Vec::new();
    for (key, bound) in [("minimum", &attrs.minimum), ("maximum", &attrs.maximum)] {
        if let Some(bound) = bound {
            let message = format!(
                "`{key} = {}` does not fit in `{}`",
                bound.text,
                type_text(&field.ty)
            );
            // `fits` requires the type to be a number field: one error, at the bound.
            consts.push(fits(private, &value, bound.value, bound.span, &message));
        }
    }
    if let Some(default) = literal_number_default(attrs) {
        let message = format!(
            "the default {} does not fit in `{}`",
            default.text,
            type_text(&field.ty)
        );
        consts.push(fits(private, &value, default.value, default.span, &message));
    }
    let traits = (!traits.is_empty()).then(|| quote!(const _: fn() = || { #(#traits)* };));
    quote!(#traits #(#consts)*)
}

fn fits(
    private: &TokenStream,
    value: &TokenStream,
    number: f64,
    span: Span,
    message: &str,
) -> TokenStream {
    quote_spanned! {span=>
        const _: () = ::core::assert!(#private::form::fits::<#value>(#number), #message);
    }
}

/// The type as written, for messages.
fn type_text(ty: &syn::Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

/// A numeric literal default on a field with numeric bounds: checked against the type too.
fn literal_number_default(attrs: &FieldAttrs) -> Option<NumberLit> {
    if attrs.minimum.is_none() && attrs.maximum.is_none() {
        return None;
    }
    number_literal(attrs.default.as_ref()?)
}

fn some<T: ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

fn format_path(private: &TokenStream, format: Format) -> TokenStream {
    let variant = match format {
        Format::Email => quote!(Email),
        Format::Uri => quote!(Uri),
        Format::Date => quote!(Date),
        Format::DateTime => quote!(DateTime),
    };
    quote!(#private::StringFormat::#variant)
}

/// The field's labels and constraints, as a `FieldSpec` for its schema.
fn spec(private: &TokenStream, field: &Field) -> TokenStream {
    let attrs = &field.attrs;
    let value = |n: &Option<Spanned<u64>>| some(n.map(|n| n.value));
    let bound = |n: &Option<NumberLit>| some(n.as_ref().map(|n| n.value));
    let title = some(attrs.title.as_ref().map(syn::LitStr::value));
    let description = attrs.description.as_ref().map(syn::LitStr::value);
    let description = some(description.or_else(|| field.doc.clone()));
    let format = some(attrs.format.map(|f| format_path(private, f.value)));
    let (min_length, max_length) = (value(&attrs.min_length), value(&attrs.max_length));
    let (min_items, max_items) = (value(&attrs.min_items), value(&attrs.max_items));
    let (minimum, maximum) = (bound(&attrs.minimum), bound(&attrs.maximum));
    let legacy = attrs.legacy_enum_names;
    quote! {
        #private::form::FieldSpec {
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

/// The default as `Option<Value>` tokens. A string literal becomes a `String` (the value type
/// of text fields); any other expression is used as written. Either keeps the user's span,
/// so a default of the wrong type is reported on it.
fn default(field: &Field) -> TokenStream {
    let Some(expr) = &field.attrs.default else {
        return quote!(::core::option::Option::None);
    };
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => quote_spanned! {s.span()=>
            ::core::option::Option::Some(::std::string::String::from(#s))
        },
        other => quote_spanned!(other.span()=> ::core::option::Option::Some(#other)),
    }
}

fn property(private: &TokenStream, field: &Field) -> TokenStream {
    let name = &field.name;
    let kind = kind(private, field);
    let spec = spec(private, field);
    let default = default(field);
    quote! {
        __mcp_schema.field(#name, #kind, &#spec, #default);
    }
}

/// The checks of one field's declared constraints, in a fixed order.
fn checks(private: &TokenStream, attrs: &FieldAttrs) -> Vec<TokenStream> {
    let rules = quote!(#private::form::rules);
    let mut out = Vec::new();
    let mut count = |rule: &str, bound: &Option<Spanned<u64>>| {
        if let Some(bound) = bound {
            let (rule, value) = (Ident::new(rule, Span::call_site()), bound.value);
            out.push(quote!(__mcp_field.check(#rules::#rule, #value);));
        }
    };
    count("min_length", &attrs.min_length);
    count("max_length", &attrs.max_length);
    count("min_items", &attrs.min_items);
    count("max_items", &attrs.max_items);
    if let Some(format) = attrs.format {
        let path = format_path(private, format.value);
        out.push(quote!(__mcp_field.check(#rules::format, #path);));
    }
    for (rule, bound) in [("minimum", &attrs.minimum), ("maximum", &attrs.maximum)] {
        if let Some(bound) = bound {
            let (rule, value) = (Ident::new(rule, Span::call_site()), bound.value);
            out.push(quote!(__mcp_field.check(#rules::#rule, #value);));
        }
    }
    out
}

fn read(private: &TokenStream, index: usize, field: &Field) -> TokenStream {
    let binding = format_ident!("__mcp_field_{}", index);
    let name = &field.name;
    let kind = kind(private, field);
    let default = default(field);
    let checks = checks(private, &field.attrs);
    if checks.is_empty() {
        return quote! {
            let #binding = __mcp_answer.field(#name, #kind).finish(#default);
        };
    }
    quote! {
        let #binding = {
            let mut __mcp_field = __mcp_answer.field(#name, #kind);
            #(#checks)*
            __mcp_field.finish(#default)
        };
    }
}
