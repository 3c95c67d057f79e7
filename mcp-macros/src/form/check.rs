//! The rules of a form that can be decided from the tokens alone, one function each (the
//! shape of each value, such as a known `format`, is checked as it is parsed). Rules that
//! depend on a field's type (is it text? does 300 fit in it?) are checked by the compiler
//! through traits, in the expansion.

use syn::{Expr, ExprLit, Lit};

use super::attrs::{FieldAttrs, number_literal};
use super::model::{Field, Form};
use crate::ctxt::Ctxt;

pub(crate) fn form(ctxt: &Ctxt, form: &Form) {
    must_not_be_generic(ctxt, form);
    for field in &form.fields {
        bounds_are_ordered(ctxt, &field.attrs);
        default_respects_bounds(ctxt, field);
    }
}

/// A form is one concrete question set: its schema and checks are generated for the field
/// types as written.
fn must_not_be_generic(ctxt: &Ctxt, form: &Form) {
    if !form.generics.params.is_empty() {
        ctxt.error_spanned_by(&form.generics, "a form cannot be generic");
    }
}

/// A lower bound above the upper bound can never be satisfied.
fn bounds_are_ordered(ctxt: &Ctxt, attrs: &FieldAttrs) {
    if let (Some(min), Some(max)) = (&attrs.min_length, &attrs.max_length)
        && min.value > max.value
    {
        ctxt.error_at(
            min.span,
            format!(
                "`min_length = {}` is greater than `max_length = {}`",
                min.value, max.value
            ),
        );
    }
    if let (Some(min), Some(max)) = (&attrs.min_items, &attrs.max_items)
        && min.value > max.value
    {
        ctxt.error_at(
            min.span,
            format!(
                "`min_items = {}` is greater than `max_items = {}`",
                min.value, max.value
            ),
        );
    }
    if let (Some(min), Some(max)) = (&attrs.minimum, &attrs.maximum)
        && min.value > max.value
    {
        ctxt.error_at(
            min.span,
            format!(
                "`minimum = {}` is greater than `maximum = {}`",
                min.text, max.text
            ),
        );
    }
}

/// A literal default must itself be a valid answer.
fn default_respects_bounds(ctxt: &Ctxt, field: &Field) {
    let attrs = &field.attrs;
    let Some(default) = &attrs.default else {
        return;
    };
    if let Some(number) = number_literal(default) {
        if let Some(min) = attrs.minimum.as_ref().filter(|m| number.value < m.value) {
            ctxt.error_spanned_by(
                default,
                format!(
                    "the default {} is below `minimum = {}`",
                    number.text, min.text
                ),
            );
        }
        if let Some(max) = attrs.maximum.as_ref().filter(|m| number.value > m.value) {
            ctxt.error_spanned_by(
                default,
                format!(
                    "the default {} is above `maximum = {}`",
                    number.text, max.text
                ),
            );
        }
    }
    if let Expr::Lit(ExprLit {
        lit: Lit::Str(text),
        ..
    }) = default
    {
        let length = text.value().chars().count() as u64;
        if let Some(min) = attrs.min_length.as_ref().filter(|m| length < m.value) {
            ctxt.error_spanned_by(
                default,
                format!(
                    "the default has {length} characters, fewer than `min_length = {}`",
                    min.value
                ),
            );
        }
        if let Some(max) = attrs.max_length.as_ref().filter(|m| length > m.value) {
            ctxt.error_spanned_by(
                default,
                format!(
                    "the default has {length} characters, more than `max_length = {}`",
                    max.value
                ),
            );
        }
    }
}
