//! The parser shared by every attribute: `key = value`, `flag` and `list(...)` arguments,
//! each key looked up among those the attribute accepts, each value typed by the accessor its
//! key's arm calls. Nothing here stops at a mistake: it is recorded, and the next key is read.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Ident, LitBool, LitStr, Path, Token};

use super::Sp;
use crate::ctxt::Ctxt;

/// The keys of one attribute, as an enum.
pub(crate) trait Keyword: Copy + Eq + 'static {
    /// The key as written in the attribute.
    fn as_str(self) -> &'static str;

    /// Whether the key may be written more than once (its values add up).
    fn repeatable(self) -> bool {
        false
    }
}

/// Parses the keys of one attribute, remembering those seen to report duplicates.
pub(crate) struct Keys<'c, K: Keyword> {
    ctxt: &'c Ctxt,
    /// The attribute, as the user writes it (`#[tool]`).
    attr: String,
    accepted: &'static [K],
    seen: Vec<K>,
}

impl<'c, K: Keyword> Keys<'c, K> {
    pub(crate) fn new(ctxt: &'c Ctxt, attr: &str, accepted: &'static [K]) -> Self {
        Self {
            ctxt,
            attr: attr.to_owned(),
            accepted,
            seen: Vec::new(),
        }
    }

    /// Parses `key = value, flag, list(...)` arguments, calling `on_key` for each accepted,
    /// first-seen key. Everything else is reported, and the next key is read.
    pub(crate) fn parse(&mut self, tokens: TokenStream, mut on_key: impl FnMut(K, Arg<'c>)) {
        let ctxt = self.ctxt;
        let parser = syn::meta::parser(|meta| {
            let value = RawValue::parse(meta.input)?;
            let Some(ident) = meta.path.get_ident() else {
                ctxt.error_spanned_by(
                    &meta.path,
                    format!(
                        "expected a `{}` key, one of: {}",
                        self.attr,
                        self.expected()
                    ),
                );
                return Ok(());
            };
            let written = ident.unraw().to_string();
            let Some(key) = self
                .accepted
                .iter()
                .copied()
                .find(|k| k.as_str() == written)
            else {
                ctxt.error_spanned_by(
                    ident,
                    format!(
                        "unknown `{}` key `{written}`; expected one of: {}",
                        self.attr,
                        self.expected()
                    ),
                );
                return Ok(());
            };
            if self.seen.contains(&key) && !key.repeatable() {
                ctxt.error_spanned_by(ident, format!("duplicate `{written}` in `{}`", self.attr));
                return Ok(());
            }
            self.seen.push(key);
            let key_ident = ident.clone();
            on_key(
                key,
                Arg {
                    ctxt,
                    key: key_ident,
                    value,
                },
            );
            Ok(())
        });
        if let Err(err) = parser.parse2(tokens) {
            ctxt.syn_error(err);
        }
    }

    fn expected(&self) -> String {
        let names: Vec<&str> = self.accepted.iter().map(|k| k.as_str()).collect();
        names.join(", ")
    }
}

/// The value written after a key, not yet typed.
enum RawValue {
    /// `key` alone.
    Bare,
    /// `key = tokens` (up to the next comma); the span is the `=`'s.
    Assigned(Span, TokenStream),
    /// `key(tokens)`.
    List(TokenStream),
}

impl RawValue {
    /// Takes whatever follows a key, up to the next top-level comma.
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(Token![=]) {
            let eq: Token![=] = input.parse()?;
            let mut tokens = TokenStream::new();
            while !input.is_empty() && !input.peek(Token![,]) {
                tokens.extend([input.parse::<TokenTree>()?]);
            }
            return Ok(Self::Assigned(eq.span, tokens));
        }
        if let Some((TokenTree::Group(group), _)) = input.cursor().token_tree()
            && group.delimiter() != Delimiter::None
        {
            input.parse::<TokenTree>()?;
            return Ok(Self::List(group.stream()));
        }
        Ok(Self::Bare)
    }
}

/// An accepted key and its value, typed by the accessor the key's arm calls. A value of the
/// wrong type is reported at its span, and the accessor returns `None`.
pub(crate) struct Arg<'c> {
    ctxt: &'c Ctxt,
    key: Ident,
    value: RawValue,
}

impl<'c> Arg<'c> {
    /// Reads the value after `key` (a key the caller looks up itself, such as an argument
    /// of `complete(...)`).
    pub(crate) fn read(ctxt: &'c Ctxt, key: Ident, input: ParseStream<'_>) -> syn::Result<Self> {
        Ok(Self {
            ctxt,
            key,
            value: RawValue::parse(input)?,
        })
    }

    /// Skips the value after a key that was refused.
    pub(crate) fn skip(input: ParseStream<'_>) -> syn::Result<()> {
        RawValue::parse(input).map(drop)
    }

    /// Whether the key was written alone.
    pub(crate) fn is_bare(&self) -> bool {
        matches!(self.value, RawValue::Bare)
    }

    /// Where the key was written.
    pub(crate) fn key_span(&self) -> Span {
        self.key.span()
    }

    /// `key = "text"`.
    pub(crate) fn string(self) -> Option<LitStr> {
        let form = format!("{} = \"...\"", self.key);
        self.assigned(&form, "a string")
    }

    /// `key` alone (true) or `key = true|false`.
    pub(crate) fn flag(self) -> Option<Sp<bool>> {
        match &self.value {
            RawValue::Bare => Some(Sp {
                value: true,
                span: self.key.span(),
            }),
            _ => {
                let form = format!("`{key}` alone, or `{key} = false`", key = self.key);
                let lit: LitBool = self.assigned_as(&form, "`true` or `false`")?;
                Some(Sp {
                    value: lit.value,
                    span: lit.span,
                })
            }
        }
    }

    /// `key = some::path`, or the path in a string (`key = "some::path"`); `placeholder`
    /// shows what the path names in errors.
    pub(crate) fn path(self, placeholder: &str) -> Option<Path> {
        let form = format!("{} = {placeholder}", self.key);
        if let RawValue::Assigned(_, tokens) = &self.value
            && let Ok(lit) = syn::parse2::<LitStr>(tokens.clone())
        {
            return match lit.parse::<Path>() {
                Ok(path) => Some(path),
                Err(_) => {
                    self.ctxt
                        .error_spanned_by(&lit, format!("`{}` takes a path: `{form}`", self.key));
                    None
                }
            };
        }
        self.assigned(&form, "a path")
    }

    /// `key(...)`: the tokens inside the parentheses.
    pub(crate) fn list(self, form: &str) -> Option<TokenStream> {
        match self.value {
            RawValue::List(tokens) => Some(tokens),
            RawValue::Assigned(_, tokens) if !tokens.is_empty() => {
                self.ctxt
                    .error_spanned_by(&tokens, format!("`{}` takes a list: `{form}`", self.key));
                None
            }
            _ => {
                self.ctxt
                    .error_spanned_by(&self.key, format!("`{}` takes a list: `{form}`", self.key));
                None
            }
        }
    }

    /// The value of `key = value` as a `T`, described as `what` in errors.
    fn assigned<T: syn::parse::Parse>(self, form: &str, what: &str) -> Option<T> {
        self.assigned_as(&format!("`{form}`"), what)
    }

    fn assigned_as<T: syn::parse::Parse>(self, form: &str, what: &str) -> Option<T> {
        let key = &self.key;
        match &self.value {
            RawValue::Assigned(eq, tokens) if tokens.is_empty() => {
                self.ctxt
                    .error_at(*eq, format!("`{key}` needs a value after `=`: {form}"));
                None
            }
            RawValue::Assigned(_, tokens) => match syn::parse2::<T>(tokens.clone()) {
                Ok(value) => Some(value),
                Err(_) => {
                    self.ctxt
                        .error_spanned_by(tokens, format!("`{key}` takes {what}: {form}"));
                    None
                }
            },
            RawValue::Bare => {
                self.ctxt
                    .error_spanned_by(key, format!("`{key}` needs a value: {form}"));
                None
            }
            RawValue::List(_) => {
                self.ctxt
                    .error_spanned_by(key, format!("`{key}` takes {what}, not a list: {form}"));
                None
            }
        }
    }
}
