//! Doc comments to descriptions: one leading space stripped, lines of a paragraph joined
//! with spaces, paragraphs separated by a blank line (as clap does for help text).

use syn::{Attribute, Expr, Lit, Meta};

/// The description written in `attrs`' doc comments, if any.
pub(crate) fn description(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs.iter().filter_map(doc_line).collect();
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines.iter().flat_map(|l| l.split('\n')) {
        let line = line.strip_prefix(' ').unwrap_or(line).trim_end();
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line.trim());
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

/// Whether `attr` is a doc comment.
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

fn doc_line(attr: &Attribute) -> Option<String> {
    if !is_doc(attr) {
        return None;
    }
    match &attr.meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(lines: &[&str]) -> Vec<Attribute> {
        lines
            .iter()
            .map(|l| syn::parse_quote!(#[doc = #l]))
            .collect()
    }

    #[test]
    fn joins_lines_and_keeps_paragraphs() {
        let d = description(&attrs(&[
            " Add two",
            " numbers.",
            "",
            " Second  paragraph.",
        ]));
        assert_eq!(d.as_deref(), Some("Add two numbers.\n\nSecond  paragraph."));
        assert_eq!(description(&attrs(&["", " "])), None);
        assert_eq!(description(&[]), None);
    }
}
