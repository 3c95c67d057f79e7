//! The one binding builder: how each parameter of a declared function is filled from an
//! invocation, what it adds to the arguments schema, and what it needs from the server.
//!
//! Parameters are classified by trait, never by the spelling of their type. Generated code
//! calls `(&&&ParamProbe::<T>::new()).method(..)`: method resolution picks `Arguments<T>`,
//! then an extractor, then a named argument (see
//! `typemcp_server::__private_v0_1::ParamProbe`). Each expression is spanned on the
//! parameter's type, so a type that fits nowhere is reported there.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::krate::Krate;
use crate::model::{HandlerFn, Param, Template};

/// Where a parameter's value comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// A tool or prompt argument, by its wire name (or the whole arguments object, or an
    /// extractor: the probe decides).
    Argument(&'a str),
    /// A parameter whose pattern is not a plain name: only an extractor fits.
    Extractor,
    /// A resource template's variable, read from the URI.
    UriVariable(&'a str),
    /// Any other resource parameter: an extractor.
    ResourceExtractor,
}

/// One parameter, ready to expand.
pub(super) struct Binding {
    /// The local the value is bound to before the call.
    pub(super) ident: Ident,
    pub(super) ty: Type,
    /// The expression filling it from `invocation` (a `&Invocation`; uses `?` on a
    /// `Rejection`).
    pub(super) value: TokenStream,
    /// Its entry among the described parameters (`generator` in scope), if it may
    /// describe arguments: `(name, doc, header, schema)`.
    pub(super) describe: Option<TokenStream>,
    /// The statement adding its needs to `requirements`, if it may need anything.
    pub(super) require: Option<TokenStream>,
}

/// The bindings of a tool's or a prompt's parameters.
pub(super) fn arguments(f: &HandlerFn, krate: &Krate) -> Vec<Binding> {
    bindings(f, krate, |p| match &p.name {
        Some(name) => Source::Argument(name),
        None => Source::Extractor,
    })
}

/// The bindings of a resource's parameters: template variables by name, extractors.
pub(super) fn resource(f: &HandlerFn, template: Option<&Template>, krate: &Krate) -> Vec<Binding> {
    bindings(f, krate, |p| {
        let variable = p
            .name
            .as_ref()
            .filter(|name| template.is_some_and(|t| t.variables().any(|v| v == *name)));
        match variable {
            Some(name) => Source::UriVariable(name),
            None => Source::ResourceExtractor,
        }
    })
}

fn bindings<'f>(
    f: &'f HandlerFn,
    krate: &Krate,
    source: impl Fn(&'f Param) -> Source<'f>,
) -> Vec<Binding> {
    let private = krate.private();
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ty = &p.ty;
            let probe = quote_spanned!(ty.span()=> (&&&#private::ParamProbe::<#ty>::new()));
            let doc = match p.doc.as_deref() {
                Some(text) => quote!(::core::option::Option::Some(#text)),
                None => quote!(::core::option::Option::None),
            };
            // `ParamProbe::require` never fails to resolve: a type that is no extractor falls
            // through to the argument case, which needs nothing (its error is reported
            // once, by the extraction).
            let require = quote_spanned!(ty.span()=> #probe.require(requirements););
            let (value, describe, require) = match source(p) {
                Source::Argument(name) => (
                    quote_spanned!(ty.span()=> #probe.extract(invocation, #name)?),
                    Some(argument_entry(p, name, &doc, &probe, &private)),
                    Some(require),
                ),
                Source::Extractor => (
                    quote_spanned!(ty.span()=> #private::extractor::<#ty>(invocation)?),
                    Some(quote_spanned!(ty.span()=>
                        ("", #doc, ::core::option::Option::None, #private::extractor_schema::<#ty>(generator)))),
                    Some(require),
                ),
                Source::UriVariable(name) => (
                    quote_spanned!(ty.span()=> #private::uri_variable::<#ty>(invocation, #name)?),
                    None,
                    None,
                ),
                Source::ResourceExtractor => (
                    quote_spanned!(ty.span()=> #private::resource_extractor::<#ty>(invocation)?),
                    None,
                    Some(require),
                ),
            };
            Binding {
                ident: format_ident!("__mcp_param_{}", i),
                ty: ty.clone(),
                value,
                describe,
                require,
            }
        })
        .collect()
}

/// The described entry of a named argument. A mirrored one (`#[arg(header = "..")]`) also
/// asserts that its type is an argument, not an extractor, at the parameter's type.
fn argument_entry(
    p: &Param,
    name: &str,
    doc: &TokenStream,
    probe: &TokenStream,
    private: &TokenStream,
) -> TokenStream {
    let ty = &p.ty;
    match &p.arg.header {
        None => quote_spanned!(ty.span()=>
            (#name, #doc, ::core::option::Option::None, #probe.describe(generator))),
        Some(header) => quote_spanned!(ty.span()=>
        (#name, #doc, ::core::option::Option::Some(#header), {
            #private::header_argument::<#ty>();
            #probe.describe(generator)
        })),
    }
}
