//! The value of a choice, as serde would write the variant: `#[serde(rename = "...")]`, or
//! the variant's name (unrawed) under the enum's `#[serde(rename_all = "...")]` rule.

use proc_macro2::TokenTree;
use syn::parse::ParseStream;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

use crate::ctxt::Ctxt;

mod kw {
    syn::custom_keyword!(rename);
    syn::custom_keyword!(rename_all);
}

/// A serde `rename_all` rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    const ALL: [Self; 8] = [
        Self::Lower,
        Self::Upper,
        Self::Pascal,
        Self::Camel,
        Self::Snake,
        Self::ScreamingSnake,
        Self::Kebab,
        Self::ScreamingKebab,
    ];

    /// The rule as written.
    fn name(self) -> &'static str {
        match self {
            Self::Lower => "lowercase",
            Self::Upper => "UPPERCASE",
            Self::Pascal => "PascalCase",
            Self::Camel => "camelCase",
            Self::Snake => "snake_case",
            Self::ScreamingSnake => "SCREAMING_SNAKE_CASE",
            Self::Kebab => "kebab-case",
            Self::ScreamingKebab => "SCREAMING-KEBAB-CASE",
        }
    }

    /// A PascalCase variant name under this rule.
    pub(crate) fn apply(self, variant: &str) -> String {
        let words = words(variant);
        let lower = || words.iter().map(|w| w.to_lowercase());
        let upper = || words.iter().map(|w| w.to_uppercase());
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_lowercase(),
            Self::Upper => variant.to_uppercase(),
            Self::Camel => {
                let mut out: String = lower().next().unwrap_or_default();
                out.extend(lower().skip(1).map(|w| capitalized(&w)));
                out
            }
            Self::Snake => lower().collect::<Vec<_>>().join("_"),
            Self::ScreamingSnake => upper().collect::<Vec<_>>().join("_"),
            Self::Kebab => lower().collect::<Vec<_>>().join("-"),
            Self::ScreamingKebab => upper().collect::<Vec<_>>().join("-"),
        }
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().collect::<String>() + chars.as_str()
    })
}

/// Splits a PascalCase name into words.
fn words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        match words.last_mut() {
            Some(word) if !c.is_uppercase() => word.push(c),
            _ => words.push(c.to_string()),
        }
    }
    words
}

/// What `#[serde(...)]` says about names; serde's other keys are left to serde.
#[derive(Default)]
pub(crate) struct SerdeNames {
    pub(crate) rename: Option<String>,
    pub(crate) rename_all: Option<RenameRule>,
}

/// Which of the two keys an entry is.
enum SerdeKey {
    Rename,
    RenameAll,
    Other,
}

impl SerdeNames {
    /// Reads every `#[serde(...)]` in `attrs`. A value that is not a string literal, or an
    /// unknown rule, is recorded and reading goes on.
    pub(crate) fn parse(ctxt: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut out = Self::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            let Ok(list) = attr.meta.require_list() else {
                continue;
            };
            let parsed = list.parse_args_with(|input: ParseStream| {
                while !input.is_empty() {
                    let (key, value) = entry(input)?;
                    let text = |what: &str| match &value {
                        Some(Expr::Lit(ExprLit {
                            lit: Lit::Str(s), ..
                        })) => Some(s.clone()),
                        Some(other) => {
                            ctxt.error_spanned_by(
                                other,
                                format!("`{what}` takes a string literal"),
                            );
                            None
                        }
                        None => None,
                    };
                    match key {
                        SerdeKey::Rename => {
                            if let Some(name) = text("rename") {
                                out.rename = Some(name.value());
                            }
                        }
                        SerdeKey::RenameAll => {
                            if let Some(rule) = text("rename_all") {
                                out.rename_all = rule_named(ctxt, &rule).or(out.rename_all);
                            }
                        }
                        SerdeKey::Other => {}
                    }
                    if !input.is_empty() {
                        input.parse::<Token![,]>()?;
                    }
                }
                Ok(())
            });
            if let Err(err) = parsed {
                ctxt.syn_error(err);
            }
        }
        out
    }
}

/// One entry: its key, and its value when it is `= expression` (a list such as
/// `rename(serialize = "...")` is skipped).
fn entry(input: ParseStream) -> syn::Result<(SerdeKey, Option<Expr>)> {
    let key = if input.peek(kw::rename_all) {
        input.parse::<kw::rename_all>()?;
        SerdeKey::RenameAll
    } else if input.peek(kw::rename) {
        input.parse::<kw::rename>()?;
        SerdeKey::Rename
    } else {
        // Any other serde key, a keyword included.
        input.step(|cursor| match cursor.token_tree() {
            Some((_, rest)) => Ok(((), rest)),
            None => Err(cursor.error("expected a serde key")),
        })?;
        SerdeKey::Other
    };
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        let value: Expr = input.parse()?;
        return Ok((key, Some(value)));
    }
    // `key(...)` or anything else up to the next `,`.
    input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    })?;
    Ok((key, None))
}

fn rule_named(ctxt: &Ctxt, rule: &LitStr) -> Option<RenameRule> {
    let value = rule.value();
    let found = RenameRule::ALL.into_iter().find(|r| r.name() == value);
    if found.is_none() {
        let known: Vec<&str> = RenameRule::ALL.iter().map(|r| r.name()).collect();
        ctxt.error_spanned_by(
            rule,
            format!(
                "unknown serde `rename_all` rule {value:?}; expected one of: {}",
                known.join(", ")
            ),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_like_serde() {
        let cases = [
            (RenameRule::Lower, "dateTime", "datetime"),
            (RenameRule::Snake, "DateTime", "date_time"),
            (RenameRule::Kebab, "DateTime", "date-time"),
            (RenameRule::Camel, "DateTime", "dateTime"),
            (RenameRule::ScreamingSnake, "DateTime", "DATE_TIME"),
            (RenameRule::ScreamingKebab, "DateTime", "DATE-TIME"),
            (RenameRule::Upper, "Staging", "STAGING"),
            (RenameRule::Pascal, "DateTime", "DateTime"),
        ];
        for (rule, name, want) in cases {
            assert_eq!(rule.apply(name), want, "{}", rule.name());
        }
    }
}
