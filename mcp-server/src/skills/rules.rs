//! What a skill must be before it is served, one rule per function. Each failure names the
//! file at fault ([`BuildError::InvalidSkill`]).

use serde_json::{Map, Value};
use typemcp_core::skills::{self, MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL, SKILL_FILE};

use super::bundle::SkillBundle;
use crate::BuildError;

fn invalid(file: String, reason: impl Into<String>) -> BuildError {
    BuildError::InvalidSkill {
        file,
        reason: reason.into(),
    }
}

/// The skill's path: segments of URI-safe characters, the last a valid skill name.
pub(super) fn path(bundle: &SkillBundle) -> Result<&str, BuildError> {
    let name = bundle.path.rsplit('/').next().unwrap_or_default();
    if let Some(problem) = skills::name_problem(name) {
        return Err(invalid(
            bundle.describe(SKILL_FILE),
            format!("folder {name:?}: {problem}"),
        ));
    }
    for segment in bundle.path.split('/') {
        if !is_uri_segment(segment) {
            return Err(invalid(
                bundle.describe(SKILL_FILE),
                format!("path segment {segment:?} is not a plain URI path segment"),
            ));
        }
    }
    Ok(name)
}

/// Each file's path stays inside the skill: relative, no `.` or `..`, no empty segment.
pub(super) fn file_paths(bundle: &SkillBundle) -> Result<(), BuildError> {
    for (path, _) in &bundle.files {
        let escapes = path.starts_with('/')
            || path.contains('\\')
            || path
                .split('/')
                .any(|s| s.is_empty() || s == "." || s == "..");
        if escapes {
            return Err(invalid(
                bundle.describe(path),
                "leaves the skill's folder (an absolute path, `.`, `..` or an empty segment)",
            ));
        }
        if !path.split('/').all(is_uri_segment) {
            return Err(invalid(
                bundle.describe(path),
                "has characters a resource URI cannot carry unescaped",
            ));
        }
    }
    Ok(())
}

/// No file appears twice.
pub(super) fn unique_files(bundle: &SkillBundle) -> Result<(), BuildError> {
    let mut seen = std::collections::HashSet::new();
    for (path, _) in &bundle.files {
        if !seen.insert(path.as_str()) {
            return Err(invalid(bundle.describe(path), "is given twice"));
        }
    }
    Ok(())
}

/// `SKILL.md` is there, UTF-8, with frontmatter naming the skill as its folder does.
pub(super) fn frontmatter(
    bundle: &SkillBundle,
    name: &str,
) -> Result<Map<String, Value>, BuildError> {
    let file = bundle.describe(SKILL_FILE);
    let (_, bytes) = bundle
        .files
        .iter()
        .find(|(path, _)| path == SKILL_FILE)
        .ok_or_else(|| invalid(file.clone(), "is missing"))?;
    let text = std::str::from_utf8(bytes).map_err(|_| invalid(file.clone(), "is not UTF-8"))?;
    let frontmatter =
        skills::frontmatter(text).map_err(|err| invalid(file.clone(), err.to_string()))?;
    let declared = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if declared != name {
        return Err(invalid(
            file,
            format!("frontmatter names the skill {declared:?}, but its folder is {name:?}"),
        ));
    }
    Ok(frontmatter)
}

/// Within the extension's per-skill limits: 512 files, 16 MiB.
pub(super) fn limits(bundle: &SkillBundle) -> Result<u64, BuildError> {
    if bundle.files.len() > MAX_FILES_PER_SKILL {
        return Err(invalid(
            bundle.describe(SKILL_FILE),
            format!(
                "the skill has {} files, more than the {MAX_FILES_PER_SKILL} every host accepts",
                bundle.files.len()
            ),
        ));
    }
    let total: u64 = bundle.files.iter().map(|(_, b)| b.len() as u64).sum();
    if total > MAX_BYTES_PER_SKILL {
        return Err(invalid(
            bundle.describe(SKILL_FILE),
            format!(
                "the skill's files hold {total} bytes, more than the {MAX_BYTES_PER_SKILL} every host accepts"
            ),
        ));
    }
    Ok(total)
}

/// Letters, digits and `-._~` only: a segment that needs no escaping in a URI.
fn is_uri_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}
