//! Reading the entries of a helper attribute (`#[form(key = value, flag)]`) without ever
//! stopping early: an unknown key or a value that is not an expression is recorded, the
//! rest of its entry is skipped, and parsing goes on with the next entry, so every mistake
//! of one build is reported together.

use proc_macro2::{Span, TokenTree};
use syn::parse::ParseStream;
use syn::parse::discouraged::Speculative;
use syn::{Attribute, Expr, Token};

use crate::ctxt::Ctxt;

/// One recognised entry: its key, where the key was written, and its value (`None` for a
/// bare `key`).
pub(crate) struct Entry<K> {
    pub(crate) key: K,
    pub(crate) span: Span,
    pub(crate) value: Option<Expr>,
}

/// Visits the entries of every attribute in `attrs` named `name`, each key read by `key`,
/// in the order written (so errors about values come out in source order too).
pub(crate) fn entries<K>(
    ctxt: &Ctxt,
    attrs: &[Attribute],
    name: &str,
    key: fn(ParseStream) -> syn::Result<K>,
    mut visit: impl FnMut(Entry<K>),
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
        let list = match attr.meta.require_list() {
            Ok(list) => list,
            Err(_) => {
                ctxt.error_spanned_by(attr, format!("expected `#[{name}(...)]`"));
                continue;
            }
        };
        let parsed = list.parse_args_with(|input: ParseStream| {
            while !input.is_empty() {
                let span = input.span();
                match key(input).and_then(|key| value(input).map(|value| (key, value))) {
                    Ok((key, value)) => visit(Entry { key, span, value }),
                    Err(err) => {
                        ctxt.syn_error(err);
                        skip_entry(ctxt, input);
                    }
                }
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
            }
            Ok(())
        });
        // Only reached when an entry could not be skipped, which `skip_entry` rules out.
        if let Err(err) = parsed {
            ctxt.syn_error(err);
        }
    }
}

/// `= expression` or nothing, up to the next `,`.
fn value(input: ParseStream) -> syn::Result<Option<Expr>> {
    if input.is_empty() || input.peek(Token![,]) {
        return Ok(None);
    }
    input.parse::<Token![=]>()?;
    let fork = input.fork();
    let expr: Expr = fork.parse()?;
    if !fork.is_empty() && !fork.peek(Token![,]) {
        return Err(fork.error("expected `,`"));
    }
    input.advance_to(&fork);
    Ok(Some(expr))
}

/// Skips to the next `,` of this list (or its end), leaving the `,` to be read.
fn skip_entry(ctxt: &Ctxt, input: ParseStream) {
    let skipped = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
    if let Err(err) = skipped {
        ctxt.syn_error(err);
    }
}
