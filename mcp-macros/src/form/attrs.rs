//! `#[form(...)]` on a field: typed values with spans.

use proc_macro2::Span;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};

use crate::attrs::Sp;
use crate::ctxt::Ctxt;

/// A numeric literal as written, and its value.
#[derive(Clone, Debug)]
pub(crate) struct NumberLit {
    pub(crate) value: f64,
    pub(crate) text: String,
    pub(crate) span: Span,
}

/// The accepted `format` values.
pub(crate) const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The keys of `#[form(...)]`.
pub(crate) const KEYS: &[&str] = &[
    "title",
    "description",
    "default",
    "min_length",
    "max_length",
    "format",
    "minimum",
    "maximum",
    "min_items",
    "max_items",
    "legacy_enum_names",
];

/// Everything `#[form(...)]` may say about a field.
#[derive(Default, Debug)]
pub(crate) struct FieldAttrs {
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    pub(crate) min_length: Option<Sp<u64>>,
    pub(crate) max_length: Option<Sp<u64>>,
    pub(crate) format: Option<LitStr>,
    pub(crate) minimum: Option<NumberLit>,
    pub(crate) maximum: Option<NumberLit>,
    pub(crate) min_items: Option<Sp<u64>>,
    pub(crate) max_items: Option<Sp<u64>>,
    /// Write a titled choice as `enum` + `enumNames` (a flag).
    pub(crate) legacy_enum_names: bool,
    /// The spans of the keys, by name, for errors about a key as a whole.
    pub(crate) key_spans: Vec<(&'static str, Span)>,
}

impl FieldAttrs {
    /// Parses every `#[form(...)]` attribute of a field.
    pub(crate) fn parse(ctxt: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut out = Self::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("form")) {
            let result = attr.parse_nested_meta(|meta| {
                let Some(ident) = meta.path.get_ident().cloned() else {
                    return Err(meta.error("expected a `#[form]` key"));
                };
                let key = ident.to_string();
                let Some(&known) = KEYS.iter().find(|k| **k == key) else {
                    ctxt.error_spanned_by(
                        &ident,
                        format!(
                            "unknown `#[form]` key `{key}`; expected one of: {}",
                            KEYS.join(", ")
                        ),
                    );
                    let _: Expr = meta.value()?.parse()?;
                    return Ok(());
                };
                if out.key_spans.iter().any(|(k, _)| *k == known) {
                    ctxt.error_spanned_by(&ident, format!("duplicate `{key}` in `#[form]`"));
                    let _: Expr = meta.value()?.parse()?;
                    return Ok(());
                }
                out.key_spans.push((known, ident.span()));
                if known == "legacy_enum_names" {
                    // A flag, or `= true` / `= false`.
                    out.legacy_enum_names = if meta.input.peek(syn::Token![=]) {
                        meta.value()?.parse::<syn::LitBool>()?.value
                    } else {
                        true
                    };
                    return Ok(());
                }
                let value: Expr = meta.value()?.parse()?;
                out.set(ctxt, known, value);
                Ok(())
            });
            if let Err(err) = result {
                ctxt.syn_error(err);
            }
        }
        out
    }

    fn set(&mut self, ctxt: &Ctxt, key: &str, value: Expr) {
        match key {
            "title" => self.title = string(ctxt, key, &value),
            "description" => self.description = string(ctxt, key, &value),
            "format" => self.format = string(ctxt, key, &value),
            "default" => self.default = Some(value),
            "min_length" => self.min_length = count(ctxt, key, &value),
            "max_length" => self.max_length = count(ctxt, key, &value),
            "min_items" => self.min_items = count(ctxt, key, &value),
            "max_items" => self.max_items = count(ctxt, key, &value),
            "minimum" => self.minimum = number(ctxt, key, &value),
            _ => self.maximum = number(ctxt, key, &value),
        }
    }

    /// Where `key` was written.
    pub(crate) fn key_span(&self, key: &str) -> Option<Span> {
        self.key_spans
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| *s)
    }
}

fn string(ctxt: &Ctxt, key: &str, value: &Expr) -> Option<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        _ => {
            ctxt.error_spanned_by(value, format!("`{key}` takes a string literal"));
            None
        }
    }
}

fn count(ctxt: &Ctxt, key: &str, value: &Expr) -> Option<Sp<u64>> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => match i.base10_parse::<u64>() {
            Ok(n) => Some(Sp {
                value: n,
                span: i.span(),
            }),
            Err(err) => {
                ctxt.syn_error(err);
                None
            }
        },
        _ => {
            ctxt.error_spanned_by(value, format!("`{key}` takes a whole number"));
            None
        }
    }
}

/// A numeric literal, possibly negative.
pub(crate) fn number_literal(value: &Expr) -> Option<NumberLit> {
    let (negative, lit) = match value {
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match expr.as_ref() {
            Expr::Lit(ExprLit { lit, .. }) => (true, lit),
            _ => return None,
        },
        _ => return None,
    };
    let (magnitude, text) = match lit {
        Lit::Int(i) => (i.base10_parse::<f64>().ok()?, i.base10_digits().to_owned()),
        Lit::Float(f) => (f.base10_parse::<f64>().ok()?, f.base10_digits().to_owned()),
        _ => return None,
    };
    let span = syn::spanned::Spanned::span(value);
    Some(if negative {
        NumberLit {
            value: -magnitude,
            text: format!("-{text}"),
            span,
        }
    } else {
        NumberLit {
            value: magnitude,
            text,
            span,
        }
    })
}

fn number(ctxt: &Ctxt, key: &str, value: &Expr) -> Option<NumberLit> {
    let parsed = number_literal(value);
    if parsed.is_none() {
        ctxt.error_spanned_by(value, format!("`{key}` takes a number literal"));
    }
    parsed
}
