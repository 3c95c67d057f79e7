//! `#[form(...)]` on a form struct and on its fields, and `#[choice(...)]` on a choice enum
//! and its variants: typed keys (one keyword type each, so an unknown key is an error at its
//! span listing the known ones) and typed values that keep their spans.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Path, UnOp};

use super::parse::{Entry, entries};
use crate::ctxt::Ctxt;

mod kw {
    syn::custom_keyword!(title);
    syn::custom_keyword!(description);
    syn::custom_keyword!(default);
    syn::custom_keyword!(min_length);
    syn::custom_keyword!(max_length);
    syn::custom_keyword!(format);
    syn::custom_keyword!(minimum);
    syn::custom_keyword!(maximum);
    syn::custom_keyword!(min_items);
    syn::custom_keyword!(max_items);
    syn::custom_keyword!(legacy_enum_names);
}

/// Declares a key enum whose variants are parsed from keyword tokens.
macro_rules! keys {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $kw:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum $name { $($(#[$vdoc])* $variant),* }

        impl $name {
            /// The key as written.
            pub(crate) fn name(self) -> &'static str {
                match self { $(Self::$variant => stringify!($kw)),* }
            }

            /// Reads one key; anything else is an error listing the keys.
            fn parse(input: ParseStream) -> syn::Result<Self> {
                let lookahead = input.lookahead1();
                $(if lookahead.peek(kw::$kw) {
                    input.parse::<kw::$kw>()?;
                    return Ok(Self::$variant);
                })*
                let err = lookahead.error();
                Err(syn::Error::new(err.span(), format!("unknown `#[form]` key: {err}")))
            }
        }
    };
}

keys! {
    /// The keys of `#[form(...)]` on a field.
    FieldKey {
        Title = title,
        Description = description,
        Default = default,
        MinLength = min_length,
        MaxLength = max_length,
        Format = format,
        Minimum = minimum,
        Maximum = maximum,
        MinItems = min_items,
        MaxItems = max_items,
        LegacyEnumNames = legacy_enum_names,
    }
}

/// A value and where it was written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// A numeric literal as written, and its value.
#[derive(Clone, Debug)]
pub(crate) struct NumberLit {
    pub(crate) value: f64,
    pub(crate) text: String,
    pub(crate) span: Span,
}

/// The string formats of the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

impl Format {
    const ALL: [Self; 4] = [Self::Email, Self::Uri, Self::Date, Self::DateTime];

    /// The format as written in a schema.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }
}

/// Everything `#[form(...)]` may say about a field.
#[derive(Default)]
pub(crate) struct FieldAttrs {
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    pub(crate) min_length: Option<Spanned<u64>>,
    pub(crate) max_length: Option<Spanned<u64>>,
    pub(crate) format: Option<Spanned<Format>>,
    pub(crate) minimum: Option<NumberLit>,
    pub(crate) maximum: Option<NumberLit>,
    pub(crate) min_items: Option<Spanned<u64>>,
    pub(crate) max_items: Option<Spanned<u64>>,
    /// Write a titled choice as `enum` + `enumNames` (a flag).
    pub(crate) legacy_enum_names: bool,
    /// Where each key was written, for errors about a key as a whole.
    keys: Vec<(FieldKey, Span)>,
}

impl FieldAttrs {
    /// Reads every `#[form(...)]` of a field; each mistake is recorded and reading goes on.
    pub(crate) fn parse(ctxt: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut out = Self::default();
        entries(
            ctxt,
            attrs,
            "form",
            FieldKey::parse,
            |Entry { key, span, value }| {
                if out.key_span(key).is_some() {
                    ctxt.error_at(span, format!("duplicate `{}` in `#[form]`", key.name()));
                    return;
                }
                out.keys.push((key, span));
                let value = Value {
                    key: key.name(),
                    span,
                    expr: value.as_ref(),
                };
                match key {
                    FieldKey::Title => out.title = value.string(ctxt),
                    FieldKey::Description => out.description = value.string(ctxt),
                    FieldKey::Default => out.default = value.expr(ctxt).cloned(),
                    FieldKey::MinLength => out.min_length = value.count(ctxt),
                    FieldKey::MaxLength => out.max_length = value.count(ctxt),
                    FieldKey::Format => out.format = value.format(ctxt),
                    FieldKey::Minimum => out.minimum = value.number(ctxt),
                    FieldKey::Maximum => out.maximum = value.number(ctxt),
                    FieldKey::MinItems => out.min_items = value.count(ctxt),
                    FieldKey::MaxItems => out.max_items = value.count(ctxt),
                    FieldKey::LegacyEnumNames => out.legacy_enum_names = value.flag(ctxt),
                }
            },
        );
        out
    }

    /// Where `key` was written.
    pub(crate) fn key_span(&self, key: FieldKey) -> Option<Span> {
        self.keys.iter().find(|(k, _)| *k == key).map(|(_, s)| *s)
    }
}

/// A type that takes `crate = path`: a form struct or a choice enum.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Container {
    /// `#[form(crate = ...)]` on a form struct.
    Form,
    /// `#[choice(crate = ...)]` on a choice enum.
    Choice,
}

impl Container {
    fn attribute(self) -> &'static str {
        match self {
            Self::Form => "form",
            Self::Choice => "choice",
        }
    }
}

/// The `crate = path` key of a container: the path generated code names the runtime by.
pub(crate) fn crate_path(
    ctxt: &Ctxt,
    attrs: &[syn::Attribute],
    container: Container,
) -> Option<Path> {
    let key: fn(ParseStream) -> syn::Result<()> = match container {
        Container::Form => |input| container_key(input, "form", "field settings go on the fields"),
        Container::Choice => |input| container_key(input, "choice", "`title` goes on a variant"),
    };
    let name = container.attribute();
    let mut found: Option<Path> = None;
    entries(ctxt, attrs, name, key, |Entry { span, value, .. }| {
        if found.is_some() {
            ctxt.error_at(span, format!("duplicate `crate` in `#[{name}]`"));
            return;
        }
        let value = Value {
            key: "crate",
            span,
            expr: value.as_ref(),
        };
        found = value.path(ctxt);
    });
    found
}

/// The one key of a container attribute, `crate`.
fn container_key(input: ParseStream, name: &str, hint: &str) -> syn::Result<()> {
    let lookahead = input.lookahead1();
    if lookahead.peek(syn::Token![crate]) {
        input.parse::<syn::Token![crate]>()?;
        return Ok(());
    }
    let err = lookahead.error();
    Err(syn::Error::new(
        err.span(),
        format!("unknown `#[{name}]` key on the type: {err} ({hint})"),
    ))
}

/// The `#[choice(title = "...")]` of a variant.
pub(crate) fn choice_title(ctxt: &Ctxt, attrs: &[syn::Attribute]) -> Option<LitStr> {
    let key = |input: ParseStream| -> syn::Result<()> {
        let lookahead = input.lookahead1();
        if lookahead.peek(kw::title) {
            input.parse::<kw::title>()?;
            return Ok(());
        }
        let err = lookahead.error();
        Err(syn::Error::new(
            err.span(),
            format!("unknown `#[choice]` key: {err}"),
        ))
    };
    let mut title: Option<LitStr> = None;
    entries(
        ctxt,
        attrs,
        "choice",
        key,
        |Entry { span, value, .. }| {
            if title.is_some() {
                ctxt.error_at(span, "duplicate `title` in `#[choice]`");
                return;
            }
            let value = Value {
                key: "title",
                span,
                expr: value.as_ref(),
            };
            title = value.string(ctxt);
        },
    );
    title
}

/// The value of one key, read as the type the key takes; a value of another type is
/// recorded as an error (at the value) and read as absent.
struct Value<'a> {
    key: &'static str,
    span: Span,
    expr: Option<&'a Expr>,
}

impl<'a> Value<'a> {
    /// The expression, or an error when the key was written bare.
    fn expr(&self, ctxt: &Ctxt) -> Option<&'a Expr> {
        if self.expr.is_none() {
            ctxt.error_at(
                self.span,
                format!("`{}` takes a value: `{} = ...`", self.key, self.key),
            );
        }
        self.expr
    }

    fn wrong(&self, ctxt: &Ctxt, expr: &Expr, what: &str) {
        ctxt.error_spanned_by(expr, format!("`{}` takes {what}", self.key));
    }

    fn string(&self, ctxt: &Ctxt) -> Option<LitStr> {
        match self.expr(ctxt)? {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.clone()),
            other => {
                self.wrong(ctxt, other, "a string literal");
                None
            }
        }
    }

    fn count(&self, ctxt: &Ctxt) -> Option<Spanned<u64>> {
        match self.expr(ctxt)? {
            Expr::Lit(ExprLit {
                lit: Lit::Int(i), ..
            }) => match i.base10_parse::<u64>() {
                Ok(value) => Some(Spanned {
                    value,
                    span: i.span(),
                }),
                Err(err) => {
                    ctxt.syn_error(err);
                    None
                }
            },
            other => {
                self.wrong(ctxt, other, "a whole number");
                None
            }
        }
    }

    fn number(&self, ctxt: &Ctxt) -> Option<NumberLit> {
        let expr = self.expr(ctxt)?;
        let number = number_literal(expr);
        if number.is_none() {
            self.wrong(ctxt, expr, "a number literal");
        }
        number
    }

    fn flag(&self, ctxt: &Ctxt) -> bool {
        match self.expr {
            None => true,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Bool(b), ..
            })) => b.value,
            Some(other) => {
                self.wrong(ctxt, other, "no value, or `= true` / `= false`");
                false
            }
        }
    }

    fn format(&self, ctxt: &Ctxt) -> Option<Spanned<Format>> {
        let text = self.string(ctxt)?;
        let value = text.value();
        let found = Format::ALL.into_iter().find(|f| f.name() == value);
        if found.is_none() {
            let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            ctxt.error_spanned_by(
                &text,
                format!(
                    "unknown format {value:?}; expected one of: {}",
                    known.join(", ")
                ),
            );
        }
        found.map(|value| Spanned {
            value,
            span: text.span(),
        })
    }

    /// A path, written as is (`crate = my::sdk`) or in a string (`crate = "my::sdk"`).
    fn path(&self, ctxt: &Ctxt) -> Option<Path> {
        match self.expr(ctxt)? {
            Expr::Path(p) if p.qself.is_none() => Some(p.path.clone()),
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => match s.parse::<Path>() {
                Ok(path) => Some(path),
                Err(err) => {
                    ctxt.syn_error(syn::Error::new(s.span(), err));
                    None
                }
            },
            other => {
                self.wrong(ctxt, other, "a path, such as `crate = my::sdk`");
                None
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The number of errors recorded in `ctxt`.
    fn errors(ctxt: Ctxt) -> usize {
        ctxt.finish().to_string().matches("compile_error").count()
    }

    #[test]
    fn every_key_after_a_mistake_is_still_read() {
        let attrs: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[form(min_length = "two", bogus = 1, max_length = 8 8, title = "Name")]),
            syn::parse_quote!(#[form(format = "uri", legacy_enum_names, title = "Again")]),
        ];
        let ctxt = Ctxt::new();
        let parsed = FieldAttrs::parse(&ctxt, &attrs);
        assert!(parsed.min_length.is_none());
        assert!(parsed.max_length.is_none());
        assert_eq!(
            parsed.title.as_ref().map(LitStr::value).as_deref(),
            Some("Name")
        );
        assert_eq!(parsed.format.map(|f| f.value), Some(Format::Uri));
        assert!(parsed.legacy_enum_names);
        assert!(parsed.key_span(FieldKey::Format).is_some());
        // "two", `bogus`, `8 8`, the second `title`.
        assert_eq!(errors(ctxt), 4);
    }

    #[test]
    fn keys_and_formats_round_trip_their_names() {
        for format in Format::ALL {
            let ctxt = Ctxt::new();
            let name = format.name();
            let attrs = [syn::parse_quote!(#[form(format = #name)])];
            assert_eq!(
                FieldAttrs::parse(&ctxt, &attrs).format.map(|f| f.value),
                Some(format)
            );
            assert_eq!(errors(ctxt), 0);
        }
        let ctxt = Ctxt::new();
        let attrs = [syn::parse_quote!(#[form(minimum = -1.5, maximum = 3, min_items = 1)])];
        let parsed = FieldAttrs::parse(&ctxt, &attrs);
        assert_eq!(
            parsed.minimum.map(|n| (n.value, n.text)),
            Some((-1.5, "-1.5".to_owned()))
        );
        assert_eq!(parsed.maximum.as_ref().map(|n| n.value), Some(3.0));
        assert_eq!(parsed.min_items.map(|n| n.value), Some(1));
        assert_eq!(FieldKey::MinItems.name(), "min_items");
        assert_eq!(errors(ctxt), 0);
    }

    #[test]
    fn the_crate_path_is_a_path_or_a_string() {
        for attr in [
            syn::parse_quote!(#[form(crate = my::sdk)]),
            syn::parse_quote!(#[form(crate = "my::sdk")]),
        ] {
            let ctxt = Ctxt::new();
            let path = crate_path(&ctxt, &[attr], Container::Form);
            let shown = path.map(|p| quote::ToTokens::to_token_stream(&p).to_string());
            assert_eq!(shown.as_deref(), Some("my :: sdk"));
            assert_eq!(errors(ctxt), 0);
        }
        let ctxt = Ctxt::new();
        let attrs = [syn::parse_quote!(#[choice(title = "x", crate = 1)])];
        assert!(crate_path(&ctxt, &attrs, Container::Choice).is_none());
        assert_eq!(errors(ctxt), 2);
    }
}
