//! RFC 6570 level-1 URI templates, as MCP resource templates use them: `notes://{id}` or
//! `files://{owner}/{name}.txt`.
//!
//! A template is parsed once ([`UriTemplate::parse`]) and then matched against URIs
//! ([`UriTemplate::matches`]). A `{name}` expression matches one or more characters up to the
//! next literal part of the template; a variable never spans a `/`.
//!
//! The crate has no dependencies, so that both the runtime (`typemcp-core`, which re-exports it
//! as `typemcp_core::uri_template`) and the proc-macro crate (`typemcp-macros`, which checks templates
//! at compile time) can use it without building each other's dependencies.
//!
//! ```
//! use typemcp_uri_template::{UriTemplate, UriTemplateError};
//!
//! let template = UriTemplate::parse("notes://{id}").unwrap();
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["id"]);
//! assert_eq!(template.matches("notes://7"), Some(vec![("id".to_owned(), "7".to_owned())]));
//! assert!(matches!(UriTemplate::parse("notes://{id"), Err(UriTemplateError::Unbalanced(_))));
//! ```

use std::error::Error;
use std::fmt;

/// Why a URI template was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriTemplateError {
    /// A `{` without a closing `}`, or a stray `}`.
    Unbalanced(String),
    /// An empty or invalid variable name (names are ASCII letters, digits and `_`).
    InvalidVariable {
        /// The template.
        template: String,
        /// The offending name.
        name: String,
    },
    /// Two expressions with nothing between them cannot be matched unambiguously.
    Adjacent(String),
    /// The same variable twice.
    Duplicate {
        /// The template.
        template: String,
        /// The repeated name.
        name: String,
    },
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unbalanced(template) => {
                write!(f, "unbalanced braces in URI template {template:?}")
            }
            Self::InvalidVariable { template, name } => {
                write!(
                    f,
                    "invalid variable name {name:?} in URI template {template:?}"
                )
            }
            Self::Adjacent(template) => {
                write!(f, "adjacent expressions in URI template {template:?}")
            }
            Self::Duplicate { template, name } => {
                write!(
                    f,
                    "duplicate variable {name:?} in URI template {template:?}"
                )
            }
        }
    }
}

impl Error for UriTemplateError {}

/// One piece of a template: literal text, or a `{variable}`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// A parsed URI template.
///
/// ```
/// use typemcp_uri_template::UriTemplate;
///
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
    fn errors_name_the_template_and_the_problem() {
        let err = UriTemplate::parse("a://{a-b}").err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some(r#"invalid variable name "a-b" in URI template "a://{a-b}""#)
        );
        let err = UriTemplate::parse("a://{x}/{x}").err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some(r#"duplicate variable "x" in URI template "a://{x}/{x}""#)
        );
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

    #[test]
    fn keeps_the_source_text() {
        let t = UriTemplate::parse("notes://{id}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.as_str(), "notes://{id}");
        assert_eq!(t.to_string(), "notes://{id}");
    }
}
