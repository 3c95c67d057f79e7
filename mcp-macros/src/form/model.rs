//! The model of a form struct.

use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use super::attrs::{Container, FieldAttrs, crate_path};
use crate::ctxt::Ctxt;
use crate::doc;
use crate::krate::Krate;

/// One field of the form.
pub(crate) struct Field {
    /// The field as written (`r#type`), for building the struct.
    pub(crate) ident: Ident,
    /// The property name on the wire (`type`).
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) doc: Option<String>,
    pub(crate) attrs: FieldAttrs,
}

/// The form struct.
pub(crate) struct Form {
    pub(crate) ident: Ident,
    pub(crate) generics: syn::Generics,
    pub(crate) fields: Vec<Field>,
    pub(crate) krate: Krate,
}

/// The runtime crate a form or choice names: `::typemcp_server`, or its `crate = path`.
pub(crate) fn krate(ctxt: &Ctxt, input: &DeriveInput, container: Container) -> Krate {
    Krate::new(crate_path(ctxt, &input.attrs, container).as_ref())
}

impl Form {
    /// Reads the struct; `None` (with an error) for anything but a struct with named fields.
    pub(crate) fn from_input(ctxt: &Ctxt, input: &DeriveInput, krate: Krate) -> Option<Self> {
        let named = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => Some(named),
                _ => None,
            },
            _ => None,
        };
        let Some(named) = named else {
            ctxt.error_spanned_by(
                &input.ident,
                "a form is a struct with named fields: each field is one question",
            );
            return None;
        };
        let fields = named
            .named
            .iter()
            .filter_map(|f| {
                let ident = f.ident.clone()?;
                Some(Field {
                    name: ident.unraw().to_string(),
                    ident,
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
            krate,
        })
    }
}
