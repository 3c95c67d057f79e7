//! Matching URIs against RFC 6570 level-1 templates such as `test://template/{id}/data`.
//!
//! A `{name}` expression matches one or more characters up to the next literal part of the
//! template; a variable never spans a `/`.

use std::fmt;

/// A parse error of a URI template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriTemplateError {
    /// A `{` without a closing `}`, or a stray `}`.
    #[error("unbalanced braces in URI template {0:?}")]
    Unbalanced(String),
    /// An empty or invalid variable name.
    #[error("invalid variable name {name:?} in URI template {template:?}")]
    InvalidVariable {
        /// The template.
        template: String,
        /// The offending name.
        name: String,
    },
    /// Two expressions with nothing between them cannot be matched unambiguously.
    #[error("adjacent expressions in URI template {0:?}")]
    Adjacent(String),
    /// The same variable twice.
    #[error("duplicate variable {name:?} in URI template {template:?}")]
    Duplicate {
        /// The template.
        template: String,
        /// The repeated name.
        name: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// A parsed URI template.
///
/// ```
/// use mcp_core::uri_template::UriTemplate;
/// let t = UriTemplate::parse("test://template/{id}/data").unwrap();
/// let vars = t.matches("test://template/123/data").unwrap();
/// assert_eq!(vars, vec![("id".to_string(), "123".to_string())]);
/// assert!(t.matches("test://template/123/other").is_none());
/// assert!(t.matches("test://template//data").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template with `{name}` expressions.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                None => {
                    parts.push(Part::Literal(rest.to_owned()));
                    break;
                }
                Some(i) if rest.as_bytes()[i] == b'}' => {
                    return Err(UriTemplateError::Unbalanced(template.to_owned()));
                }
                Some(i) => {
                    if i > 0 {
                        parts.push(Part::Literal(rest[..i].to_owned()));
                    }
                    let after = &rest[i + 1..];
                    let end = after
                        .find(['}', '{'])
                        .filter(|&j| after.as_bytes()[j] == b'}')
                        .ok_or_else(|| UriTemplateError::Unbalanced(template.to_owned()))?;
                    let name = &after[..end];
                    let valid = !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                    if !valid {
                        return Err(UriTemplateError::InvalidVariable {
                            template: template.to_owned(),
                            name: name.to_owned(),
                        });
                    }
                    if matches!(parts.last(), Some(Part::Variable(_))) {
                        return Err(UriTemplateError::Adjacent(template.to_owned()));
                    }
                    if parts
                        .iter()
                        .any(|p| matches!(p, Part::Variable(v) if v == name))
                    {
                        return Err(UriTemplateError::Duplicate {
                            template: template.to_owned(),
                            name: name.to_owned(),
                        });
                    }
                    parts.push(Part::Variable(name.to_owned()));
                    rest = &after[end + 1..];
                }
            }
        }
        Ok(Self {
            source: template.to_owned(),
            parts,
        })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable(v) => Some(v.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Matches `uri`, returning each variable's (non-empty) value. A variable never spans a
    /// `/`, so `{id}` matches exactly one path segment.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut rest = uri;
        let mut values = Vec::new();
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(lit) => rest = rest.strip_prefix(lit.as_str())?,
                Part::Variable(name) => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    values.push((name.clone(), value.to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(values)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_templates() {
        assert!(matches!(
            UriTemplate::parse("a://{id"),
            Err(UriTemplateError::Unbalanced(_))
        ));
        assert!(matches!(
            UriTemplate::parse("a://id}"),
            Err(UriTemplateError::Unbalanced(_))
        ));
        assert!(matches!(
            UriTemplate::parse("a://{}"),
            Err(UriTemplateError::InvalidVariable { .. })
        ));
        assert!(matches!(
            UriTemplate::parse("a://{a-b}"),
            Err(UriTemplateError::InvalidVariable { .. })
        ));
        assert!(matches!(
            UriTemplate::parse("a://{a}{b}"),
            Err(UriTemplateError::Adjacent(_))
        ));
        assert!(matches!(
            UriTemplate::parse("a://{a}/{a}"),
            Err(UriTemplateError::Duplicate { .. })
        ));
    }

    #[test]
    fn matches_several_variables() {
        let t = UriTemplate::parse("files://{owner}/{name}.txt").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            t.matches("files://ann/notes.txt"),
            Some(vec![
                ("owner".into(), "ann".into()),
                ("name".into(), "notes".into())
            ])
        );
        assert_eq!(t.matches("files://ann/sub/notes.txt"), None);
        assert_eq!(t.variables().collect::<Vec<_>>(), ["owner", "name"]);
        let tail = UriTemplate::parse("notes://{id}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            tail.matches("notes://7"),
            Some(vec![("id".into(), "7".into())])
        );
        assert_eq!(tail.matches("notes://"), None);
    }
}
