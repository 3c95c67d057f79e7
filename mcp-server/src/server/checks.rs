//! The checks every route passes before it is registered (what fails them is a
//! [`BuildError`]).

use crate::build_error::BuildError;
use crate::registry::AnyResourceRoute;

/// The checks every route passes before it is registered: its schema, its template, and
/// what its handler needs from the server.
pub(crate) struct Checks<'a> {
    pub(crate) states: &'a http::Extensions,
    pub(crate) has_signer: bool,
}

impl Checks<'_> {
    /// Checks a handler's needs against what the server has.
    fn require(
        &self,
        handler: impl FnOnce() -> String,
        requirements: &crate::handler::Requirements,
    ) -> Result<(), BuildError> {
        use crate::handler::Unmet;
        requirements
            .check(self.states, self.has_signer)
            .map_err(|unmet| match unmet {
                Unmet::State(state) => BuildError::MissingState {
                    handler: handler(),
                    state,
                },
                Unmet::Signer(extractor) => BuildError::MissingSigner {
                    handler: handler(),
                    extractor,
                },
            })
    }

    /// Checks a tool; the route as registered.
    pub(crate) fn tool(&self, tool: &crate::ToolRoute) -> Result<crate::ToolRoute, BuildError> {
        let name = &tool.tool().name;
        let prepared = tool.prepare()?;
        self.require(|| format!("tool {name:?}"), tool.requirements())?;
        Ok(prepared)
    }

    pub(crate) fn prompt(&self, prompt: &crate::PromptRoute) -> Result<(), BuildError> {
        let name = &prompt.prompt().name;
        self.require(|| format!("prompt {name:?}"), prompt.requirements())
    }

    pub(crate) fn resource(&self, resource: &AnyResourceRoute) -> Result<(), BuildError> {
        match resource {
            AnyResourceRoute::Static(route) => {
                let uri = &route.resource().uri;
                self.require(|| format!("resource {uri:?}"), route.requirements())
            }
            AnyResourceRoute::Template(route) => {
                let template = &route.resource_template().uri_template;
                route
                    .check()
                    .map_err(|source| BuildError::InvalidUriTemplate {
                        template: template.clone(),
                        source,
                    })?;
                self.require(
                    || format!("resource template {template:?}"),
                    route.requirements(),
                )
            }
        }
    }
}

/// Tool names SHOULD be 1–128 characters of `[A-Za-z0-9_.-]`; clients may hide others.
pub(crate) fn warn_on_unusual_name(name: &str) {
    let ok = (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !ok {
        tracing::warn!(
            tool = name,
            "tool names should be 1-128 characters of [A-Za-z0-9_.-]"
        );
    }
}
