//! The baseline of known failures, `conformance/expected-failures.yml`.

/// The `server:` entries of the baseline file.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    pub(crate) entries: Vec<BaselineEntry>,
}

/// `- scenario` or `- scenario:check-id`, with the comment line right above it.
#[derive(Debug)]
pub(crate) struct BaselineEntry {
    pub(crate) scenario: String,
    pub(crate) comment: Option<String>,
}

impl Baseline {
    /// Reads the flat YAML the CLI accepts (`server:` followed by `- item` lines).
    pub(crate) fn parse(text: &str) -> Self {
        let mut baseline = Self::default();
        let mut in_server = false;
        let mut comment = None;
        for line in text.lines() {
            let trimmed = line.trim();
            if let Some(c) = trimmed.strip_prefix('#') {
                comment = Some(c.trim().to_owned());
                continue;
            }
            if !line.starts_with([' ', '-']) && trimmed.ends_with(':') {
                in_server = trimmed == "server:";
            } else if let (true, Some(item)) = (in_server, trimmed.strip_prefix("- ")) {
                let item = item.trim().trim_matches(['"', '\'']);
                let scenario = item.split(':').next().unwrap_or(item).to_owned();
                baseline.entries.push(BaselineEntry {
                    scenario,
                    comment: comment.take(),
                });
            }
            comment = None;
        }
        baseline
    }

    pub(crate) fn lists(&self, scenario: &str) -> bool {
        self.entries.iter().any(|entry| entry.scenario == scenario)
    }
}
