//! URI template matching (`typemcp_uri_template`).
//!
//! Input: the template, a NUL byte, then URIs separated by NUL bytes (non-UTF-8 input is
//! read lossily). A template that parses must describe exactly its variables; every match
//! must give one non-empty, `/`-free value per variable, in order, and substituting the
//! values back into the template must give the URI again. Values picked so that matching is
//! unambiguous (no `/`, none containing the literal that follows its variable) must match
//! back to themselves.

use typemcp_uri_template::UriTemplate;

/// Parses, matches, and checks the round trips.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut pieces = text.split('\0');
    let template_text = pieces.next().unwrap_or_default();
    let Ok(template) = UriTemplate::parse(template_text) else {
        return;
    };
    assert_eq!(template.as_str(), template_text);
    let variables: Vec<&str> = template.variables().collect();
    for uri in pieces {
        check_match(&template, &variables, uri);
        // The URI's pieces, as values substituted into the template.
        let values: Vec<String> = uri
            .split(['/', '\u{1}'])
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect();
        if values.len() >= variables.len() {
            check_expansion(&template, &variables, &values[..variables.len()]);
        }
    }
}

/// Checks one match against the URI it came from.
fn check_match(template: &UriTemplate, variables: &[&str], uri: &str) {
    let Some(values) = template.matches(uri) else {
        return;
    };
    assert_eq!(values.len(), variables.len(), "{template} on {uri:?}");
    for ((name, value), variable) in values.iter().zip(variables) {
        assert_eq!(name, variable);
        assert!(
            !value.is_empty() && !value.contains('/'),
            "{name}={value:?}"
        );
    }
    assert_eq!(expand(template, &values), uri, "{template} on {uri:?}");
}

/// Substitutes `values` into the template and matches the result, unless a value is
/// ambiguous: the literal after its variable occurs in the value followed by that literal
/// before the value ends (matching stops a variable at the first occurrence).
fn check_expansion(template: &UriTemplate, variables: &[&str], values: &[String]) {
    let pairs: Vec<(String, String)> = variables
        .iter()
        .map(|v| (*v).to_owned())
        .zip(values.iter().cloned())
        .collect();
    let uri = expand(template, &pairs);
    let literals = literals_after_variables(template.as_str());
    let ambiguous = pairs.iter().zip(&literals).any(|((_, value), next)| {
        next.as_deref()
            .is_some_and(|next| format!("{value}{next}").find(next) < Some(value.len()))
    });
    if !ambiguous {
        assert_eq!(template.matches(&uri), Some(pairs), "{template} on {uri:?}");
    }
}

/// Each variable's following literal (the text up to the next `{`), if any.
fn literals_after_variables(template: &str) -> Vec<Option<String>> {
    template
        .split('{')
        .skip(1)
        .map(|piece| {
            let after = piece.split_once('}').map_or("", |(_, after)| after);
            (!after.is_empty()).then(|| after.to_owned())
        })
        .collect()
}

/// The template with its variables replaced, in order, by the values.
fn expand(template: &UriTemplate, values: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    let mut rest = template.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        if let Some((_, value)) = values.next() {
            out.push_str(value);
        }
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        rest = rest.get(close + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}
