//! What the client knows of the tools' mirrored arguments (`x-mcp-header`, SEP-2243), from
//! its last `tools/list`: the headers each tool's calls carry over 2026-07-28 HTTP, the tools
//! listed with annotations that break the rules (clients must not call them), and the names
//! called since that the listing did not hold (not listed again for each call). Bounded: at
//! most [`MAX_REMEMBERED_TOOLS`] of each.

use std::collections::{HashMap, HashSet};

use typemcp_core::protocol::Tool;
use typemcp_core::protocol::param_headers::{self, ParamHeader};

/// The most tools (and names) each part of the table remembers.
pub(crate) const MAX_REMEMBERED_TOOLS: usize = 10_000;

/// The client's table of mirrored arguments.
#[derive(Debug, Default)]
pub(crate) struct HeaderTable {
    /// The mirrored arguments of each tool listed.
    tools: HashMap<String, Vec<ParamHeader>>,
    /// Tools listed with `x-mcp-header` annotations that break SEP-2243.
    refused: HashSet<String>,
    /// Names called since the listing that it did not hold.
    unknown: HashSet<String>,
}

/// What the table says of a tool about to be called.
#[derive(Debug, PartialEq)]
pub(crate) enum Lookup {
    /// Listed: its mirrored arguments (none, often).
    Listed(Vec<ParamHeader>),
    /// Listed with annotations that break the rules: not to be called.
    Refused,
    /// Not listed, nor looked up since the listing: worth listing again.
    Unseen,
    /// Looked up since the listing and not in it: called as it is (the server says what it
    /// thinks of it).
    Unknown,
}

impl HeaderTable {
    /// The table of a listing, which keeps the tools whose annotations follow the rules (the
    /// others are left out, with a warning).
    pub(crate) fn of(tools: &mut Vec<Tool>) -> Self {
        let mut table = Self::default();
        tools.retain(|tool| match param_headers::scan(&tool.input_schema) {
            Ok(found) => {
                if table.tools.len() < MAX_REMEMBERED_TOOLS {
                    table.tools.insert(tool.name.clone(), found);
                }
                true
            }
            Err(invalid) => {
                tracing::warn!(tool = %tool.name, %invalid, "a tool with an invalid x-mcp-header left out");
                if table.refused.len() < MAX_REMEMBERED_TOOLS {
                    table.refused.insert(tool.name.clone());
                }
                false
            }
        });
        table
    }

    /// What the table says of `name`.
    pub(crate) fn lookup(&self, name: &str) -> Lookup {
        if let Some(found) = self.tools.get(name) {
            return Lookup::Listed(found.clone());
        }
        if self.refused.contains(name) {
            return Lookup::Refused;
        }
        if self.unknown.contains(name) {
            return Lookup::Unknown;
        }
        Lookup::Unseen
    }

    /// Remembers that the listing does not hold `name`.
    pub(crate) fn not_listed(&mut self, name: &str) {
        if self.unknown.len() < MAX_REMEMBERED_TOOLS {
            self.unknown.insert(name.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: serde_json::Value) -> Tool {
        serde_json::from_value(json!({"name": name, "inputSchema": schema})).unwrap()
    }

    #[test]
    fn a_listing_sorts_its_tools_and_remembers_what_it_did_not_hold() {
        let mirrored = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}});
        let broken = json!({"type": "object", "properties": {
            "region": {"type": "object", "x-mcp-header": "Region"}}});
        let mut tools = vec![
            tool("query", mirrored),
            tool("plain", json!({"type": "object"})),
            tool("broken", broken),
        ];
        let mut table = HeaderTable::of(&mut tools);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["query", "plain"], "the broken tool is left out");
        assert!(matches!(table.lookup("query"), Lookup::Listed(found) if found.len() == 1));
        assert_eq!(table.lookup("plain"), Lookup::Listed(Vec::new()));
        assert_eq!(table.lookup("broken"), Lookup::Refused);
        assert_eq!(table.lookup("later"), Lookup::Unseen);
        table.not_listed("later");
        assert_eq!(table.lookup("later"), Lookup::Unknown);
    }
}
