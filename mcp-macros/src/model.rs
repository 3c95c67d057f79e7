//! The model of an annotated function: what the expansion needs, read once from syn.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type};
use typemcp_uri_template::{UriTemplate, UriTemplateError};

use crate::attrs::{ARG, ArgAttrs};
use crate::ctxt::Ctxt;
use crate::doc;

/// One parameter of the function.
pub(crate) struct Param {
    /// The argument or template-variable name, when the pattern is a plain identifier
    /// (arguments need one): the identifier unrawed (`r#type` is `type`).
    pub(crate) name: Option<String>,
    /// The declared type.
    pub(crate) ty: Type,
    /// The parameter's doc comment.
    pub(crate) doc: Option<String>,
    /// Its `#[arg(...)]` settings.
    pub(crate) arg: ArgAttrs,
}

/// The annotated function.
pub(crate) struct HandlerFn {
    /// The function as written, minus the doc comments and `#[arg]` attributes on its
    /// parameters (rustc refuses those; they become argument descriptions and settings).
    pub(crate) item: ItemFn,
    /// The function's doc comment, paragraphs preserved.
    pub(crate) description: Option<String>,
    /// The function's doc attributes (kept on the generated item).
    pub(crate) docs: Vec<Attribute>,
    /// Parameters other than a receiver.
    pub(crate) params: Vec<Param>,
    /// Where a receiver (`self`) was written, if any.
    pub(crate) receiver: Option<Span>,
    /// The return type (`()` when none is written).
    pub(crate) output: Type,
}

impl HandlerFn {
    pub(crate) fn from_item(ctxt: &Ctxt, mut item: ItemFn) -> Self {
        let docs: Vec<Attribute> = item
            .attrs
            .iter()
            .filter(|a| doc::is_doc(a))
            .cloned()
            .collect();
        let description = doc::description(&docs);
        let mut params = Vec::new();
        let mut receiver = None;
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Receiver(r) => receiver = Some(r.span()),
                FnArg::Typed(typed) => {
                    let doc = doc::description(&typed.attrs);
                    let arg = ArgAttrs::parse(ctxt, &typed.attrs);
                    typed
                        .attrs
                        .retain(|a| !doc::is_doc(a) && !a.path().is_ident(ARG));
                    let name = match typed.pat.as_ref() {
                        Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.unraw().to_string()),
                        _ => None,
                    };
                    params.push(Param {
                        name,
                        ty: (*typed.ty).clone(),
                        doc,
                        arg,
                    });
                }
            }
        }
        let output = match &item.sig.output {
            ReturnType::Default => syn::parse_quote!(()),
            ReturnType::Type(_, ty) => (**ty).clone(),
        };
        Self {
            item,
            description,
            docs,
            params,
            receiver,
            output,
        }
    }

    /// The function's name.
    pub(crate) fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// The parameter whose wire name is `wire`.
    pub(crate) fn param(&self, wire: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name.as_deref() == Some(wire))
    }
}

/// A resource's URI template, parsed once when the attribute is read.
pub(crate) struct Template {
    /// The template as written.
    pub(crate) lit: LitStr,
    /// The parsed template, or why it was refused (reported by the checks).
    pub(crate) parsed: Result<UriTemplate, UriTemplateError>,
}

impl Template {
    pub(crate) fn parse(lit: LitStr) -> Self {
        let parsed = UriTemplate::parse(&lit.value());
        Self { lit, parsed }
    }

    /// The template's variables (none when it is malformed).
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parsed.iter().flat_map(UriTemplate::variables)
    }
}
