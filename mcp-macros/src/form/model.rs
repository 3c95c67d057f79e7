//! The model of a form struct.

use syn::{Data, DeriveInput, Fields, Ident, Type};

use super::attrs::FieldAttrs;
use crate::ctxt::Ctxt;
use crate::doc;

/// One field of the form.
pub(crate) struct Field {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) doc: Option<String>,
    pub(crate) attrs: FieldAttrs,
}

/// The form struct.
pub(crate) struct Form {
    pub(crate) ident: Ident,
    pub(crate) generics: syn::Generics,
    pub(crate) fields: Vec<Field>,
}

impl Form {
    /// Reads the struct; `None` (with an error) for anything but a struct with named fields.
    pub(crate) fn from_input(ctxt: &Ctxt, input: &DeriveInput) -> Option<Self> {
        let named = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => named,
                _ => {
                    ctxt.error_spanned_by(
                        &input.ident,
                        "a form is a struct with named fields: each field is one question",
                    );
                    return None;
                }
            },
            _ => {
                ctxt.error_spanned_by(
                    &input.ident,
                    "a form is a struct with named fields: each field is one question",
                );
                return None;
            }
        };
        let fields = named
            .named
            .iter()
            .filter_map(|f| {
                Some(Field {
                    ident: f.ident.clone()?,
                    ty: f.ty.clone(),
                    doc: doc::description(&f.attrs),
                    attrs: FieldAttrs::parse(ctxt, &f.attrs),
                })
            })
            .collect();
        Some(Self {
            ident: input.ident.clone(),
            generics: input.generics.clone(),
            fields,
        })
    }
}
