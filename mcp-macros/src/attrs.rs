//! Attribute arguments (`#[tool(name = "x", read_only)]`) parsed into typed values that keep
//! their spans. Unknown and duplicate keys are reported, and parsing goes on.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::{Ident, LitBool, LitStr, Path, Token};

use crate::ctxt::Ctxt;

/// A value and where it was written.
#[derive(Clone, Debug)]
pub(crate) struct Sp<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// What a key accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyKind {
    /// `key = "text"`.
    Str,
    /// `key` or `key = true|false`.
    Flag,
    /// `key(arg = path::to::fn, …)`.
    Completions,
}

/// The keys one macro accepts.
pub(crate) type Keys = &'static [(&'static str, KeyKind)];

/// `#[tool]` keys.
pub(crate) const TOOL_KEYS: Keys = &[
    ("name", KeyKind::Str),
    ("title", KeyKind::Str),
    ("description", KeyKind::Str),
    ("read_only", KeyKind::Flag),
    ("destructive", KeyKind::Flag),
    ("idempotent", KeyKind::Flag),
    ("open_world", KeyKind::Flag),
];

/// `#[prompt]` keys.
pub(crate) const PROMPT_KEYS: Keys = &[
    ("name", KeyKind::Str),
    ("title", KeyKind::Str),
    ("description", KeyKind::Str),
    ("complete", KeyKind::Completions),
];

/// `#[resource]` keys.
pub(crate) const RESOURCE_KEYS: Keys = &[
    ("uri", KeyKind::Str),
    ("template", KeyKind::Str),
    ("name", KeyKind::Str),
    ("title", KeyKind::Str),
    ("description", KeyKind::Str),
    ("mime_type", KeyKind::Str),
    ("complete", KeyKind::Completions),
];

/// Everything the declaration macros accept; each macro allows its own subset of keys.
#[derive(Default, Debug)]
pub(crate) struct HandlerAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) read_only: Option<Sp<bool>>,
    pub(crate) destructive: Option<Sp<bool>>,
    pub(crate) idempotent: Option<Sp<bool>>,
    pub(crate) open_world: Option<Sp<bool>>,
    pub(crate) uri: Option<LitStr>,
    pub(crate) template: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    /// `complete(argument = handler)` entries, in order.
    pub(crate) complete: Vec<(Ident, Path)>,
}

impl HandlerAttrs {
    /// Parses the attribute arguments of `#[macro_name(...)]`.
    pub(crate) fn parse(ctxt: &Ctxt, macro_name: &str, keys: Keys, tokens: TokenStream) -> Self {
        let mut attrs = Self::default();
        let mut seen: Vec<String> = Vec::new();
        let parser = syn::meta::parser(|meta| {
            let Some(ident) = meta.path.get_ident().cloned() else {
                ctxt.error_spanned_by(&meta.path, format!("expected a `#[{macro_name}]` key"));
                return skip_value(&meta);
            };
            let key = ident.to_string();
            let Some(&(_, kind)) = keys.iter().find(|(k, _)| *k == key) else {
                let expected: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
                ctxt.error_spanned_by(
                    &ident,
                    format!(
                        "unknown `#[{macro_name}]` key `{key}`; expected one of: {}",
                        expected.join(", ")
                    ),
                );
                return skip_value(&meta);
            };
            if seen.contains(&key) && kind != KeyKind::Completions {
                ctxt.error_spanned_by(&ident, format!("duplicate `{key}` in `#[{macro_name}]`"));
                return skip_value(&meta);
            }
            seen.push(key.clone());
            match kind {
                KeyKind::Str => {
                    let value: LitStr = meta.value()?.parse()?;
                    attrs.set_str(&key, value);
                }
                KeyKind::Flag => {
                    let value = if meta.input.peek(Token![=]) {
                        let lit: LitBool = meta.value()?.parse()?;
                        Sp {
                            value: lit.value,
                            span: lit.span,
                        }
                    } else {
                        Sp {
                            value: true,
                            span: ident.span(),
                        }
                    };
                    attrs.set_flag(&key, value);
                }
                KeyKind::Completions => {
                    meta.parse_nested_meta(|entry| {
                        let Some(argument) = entry.path.get_ident().cloned() else {
                            return Err(entry.error("expected `argument = completion_function`"));
                        };
                        if attrs.complete.iter().any(|(a, _)| *a == argument) {
                            ctxt.error_spanned_by(
                                &argument,
                                format!("duplicate completion for `{argument}`"),
                            );
                        }
                        let handler: Path = entry.value()?.parse()?;
                        attrs.complete.push((argument, handler));
                        Ok(())
                    })?;
                }
            }
            Ok(())
        });
        if let Err(err) = parser.parse2(tokens) {
            ctxt.syn_error(err);
        }
        attrs
    }

    fn set_str(&mut self, key: &str, value: LitStr) {
        let slot = match key {
            "name" => &mut self.name,
            "title" => &mut self.title,
            "description" => &mut self.description,
            "uri" => &mut self.uri,
            "template" => &mut self.template,
            _ => &mut self.mime_type,
        };
        *slot = Some(value);
    }

    fn set_flag(&mut self, key: &str, value: Sp<bool>) {
        let slot = match key {
            "read_only" => &mut self.read_only,
            "destructive" => &mut self.destructive,
            "idempotent" => &mut self.idempotent,
            _ => &mut self.open_world,
        };
        *slot = Some(value);
    }
}

/// Skips the value of a key that was refused, so parsing can go on.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _group: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}
