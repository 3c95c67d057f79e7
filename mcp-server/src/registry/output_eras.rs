//! What each protocol era gets of a tool's structured output.
//!
//! 2026-07-28 (SEP-2106) lets a tool's `outputSchema` be any JSON Schema and its
//! `structuredContent` any JSON value. The 2025-11-25 era requires both to be objects, and its
//! clients refuse a whole `tools/list` that lists any other `outputSchema`. So each era has a
//! row saying what its clients may be given: a tool whose output schema the era cannot take is
//! listed there without `outputSchema`, and its results go without `structuredContent`: the
//! same JSON as text content only (the text block every structured result carries already).

use serde_json::{Map, Value};
use typemcp_core::protocol::{CallToolResult, ContentBlock, Tool};

#[cfg(sessions)]
use super::schema;

/// What the protocol era a request is served in gives of structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputEra {
    /// 2026-07-28: every request describes itself in `_meta`.
    Current,
    /// 2025-11-25 and earlier: a session opened by `initialize`.
    #[cfg(sessions)]
    Legacy,
}

/// What one era's clients may be given as structured output.
struct OutputRow {
    /// Whether a tool may be listed with this `outputSchema`.
    takes_schema: fn(&Map<String, Value>) -> bool,
    /// Whether a result may carry this value as `structuredContent`.
    takes_value: fn(&Value) -> bool,
}

/// 2026-07-28: any schema, any value.
const CURRENT: OutputRow = OutputRow {
    takes_schema: |_| true,
    takes_value: |_| true,
};

/// 2025-11-25: an object schema, an object value.
#[cfg(sessions)]
const LEGACY: OutputRow = OutputRow {
    takes_schema: schema::root_is_object,
    takes_value: Value::is_object,
};

impl OutputEra {
    fn output(self) -> &'static OutputRow {
        match self {
            Self::Current => &CURRENT,
            #[cfg(sessions)]
            Self::Legacy => &LEGACY,
        }
    }

    /// Whether this era's clients may be given the structured output `tool` promises.
    fn takes_output_of(self, tool: &Tool) -> bool {
        tool.output_schema
            .as_ref()
            .is_none_or(|schema| (self.output().takes_schema)(schema))
    }

    /// `tool` as listed to this era's clients.
    pub(crate) fn listed(self, tool: &Tool) -> Tool {
        let mut listed = tool.clone();
        if !self.takes_output_of(tool) {
            listed.output_schema = None;
        }
        listed
    }

    /// A result of `tool` as given to this era's clients: `structuredContent` the era cannot
    /// take is removed, its JSON kept as a text block.
    pub(crate) fn shape(self, tool: &Tool, result: &mut CallToolResult) {
        let Some(value) = &result.structured_content else {
            return;
        };
        if self.takes_output_of(tool) && (self.output().takes_value)(value) {
            return;
        }
        let text = value.to_string();
        if !result
            .content
            .iter()
            .any(|block| block.as_text() == Some(text.as_str()))
        {
            result.content.push(ContentBlock::text(text));
        }
        result.structured_content = None;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool_with_output(schema: Value) -> Tool {
        let mut tool = Tool::new("t");
        tool.output_schema = schema.as_object().cloned();
        tool
    }

    #[test]
    fn an_array_schema_is_listed_to_the_current_era_only() {
        let tool = tool_with_output(json!({"type": "array", "items": {"type": "string"}}));
        assert_eq!(OutputEra::Current.listed(&tool), tool);
        assert_eq!(OutputEra::Legacy.listed(&tool).output_schema, None);

        let object = tool_with_output(json!({"type": "object"}));
        assert_eq!(OutputEra::Legacy.listed(&object), object);
    }

    #[test]
    fn a_non_object_value_reaches_the_legacy_era_as_text_only() {
        let tool = tool_with_output(json!({"type": "array"}));
        let value = json!(["a", "b"]);
        let mut current = CallToolResult::structured(value.clone());
        OutputEra::Current.shape(&tool, &mut current);
        assert_eq!(current, CallToolResult::structured(value.clone()));

        let mut legacy = CallToolResult::structured(value.clone());
        OutputEra::Legacy.shape(&tool, &mut legacy);
        assert_eq!(legacy.structured_content, None);
        assert_eq!(legacy.content.len(), 1, "the text is not repeated");
        assert_eq!(legacy.content[0].as_text(), Some(r#"["a","b"]"#));

        // A hand-built result without the text block gets one; one without a schema too.
        let mut bare = CallToolResult::success(Vec::new());
        bare.structured_content = Some(json!(7));
        OutputEra::Legacy.shape(&Tool::new("t"), &mut bare);
        assert_eq!(bare.structured_content, None);
        assert_eq!(bare.content[0].as_text(), Some("7"));
    }

    #[test]
    fn an_object_value_of_an_object_schema_reaches_both_eras() {
        let tool = tool_with_output(json!({"type": "object"}));
        let mut legacy = CallToolResult::structured(json!({"celsius": 21.5}));
        OutputEra::Legacy.shape(&tool, &mut legacy);
        assert_eq!(legacy.structured_content, Some(json!({"celsius": 21.5})));
    }
}
