//! Skills (SEP-2640), the logic both ends share: a `SKILL.md`'s frontmatter, the naming
//! rules, SHA-256 digests, and verifying a file read against the entry that listed it.
//! No I/O: the server reads folders, the client reads resources.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::protocol::{Skill, SkillResource};

/// The file every skill has at its root.
pub const SKILL_FILE: &str = "SKILL.md";

/// Resources per skill every host must accept (`SKILL.md` included).
pub const MAX_FILES_PER_SKILL: usize = 512;

/// Total bytes per skill every host must accept (16 MiB).
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;

/// `sha256:` and the 64 lowercase hex digits of `bytes`' SHA-256.
///
/// ```
/// assert_eq!(
///     typemcp_core::skills::digest(b"abc"),
///     "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// ```
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Why a `SKILL.md`'s frontmatter cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontmatterError {
    /// The file does not begin with a `---` line, or the block is never closed.
    #[error("SKILL.md does not begin with a `---` delimited YAML frontmatter block")]
    Missing,
    /// The block is not YAML, or not a mapping.
    #[error("the frontmatter is not a YAML mapping: {0}")]
    NotYaml(String),
    /// `name` or `description` is missing, empty or not a string.
    #[error("the frontmatter has no non-empty string `{0}`")]
    MissingField(&'static str),
}

/// The YAML frontmatter of a `SKILL.md`, as the JSON object an entry carries: every field
/// the author wrote, with `name` and `description` checked to be non-empty strings.
///
/// ```
/// let text = "---\nname: pdf\ndescription: Fill PDF forms\nlicense: MIT\n---\n# PDF\n";
/// let frontmatter = typemcp_core::skills::frontmatter(text).unwrap();
/// assert_eq!(frontmatter["name"], "pdf");
/// assert_eq!(frontmatter["license"], "MIT");
/// assert!(typemcp_core::skills::frontmatter("# no frontmatter").is_err());
/// ```
pub fn frontmatter(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let block = frontmatter_block(text).ok_or(FrontmatterError::Missing)?;
    let value: Value =
        yaml_serde::from_str(block).map_err(|err| FrontmatterError::NotYaml(err.to_string()))?;
    let Value::Object(map) = value else {
        return Err(FrontmatterError::NotYaml("not a mapping".to_owned()));
    };
    for field in ["name", "description"] {
        if map
            .get(field)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(FrontmatterError::MissingField(field));
        }
    }
    Ok(map)
}

/// The text between the opening `---` line and the closing one (a BOM before it allowed).
fn frontmatter_block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            return Some(rest[..offset].trim_end_matches(['\n', '\r']));
        }
        offset += line.len();
    }
    None
}

/// Why a skill name breaks the Agent Skills naming rules, if it does: 1 to 64 characters,
/// lowercase letters, digits and hyphens, no hyphen first, last or twice in a row.
///
/// ```
/// use typemcp_core::skills::name_problem;
/// assert_eq!(name_problem("pdf-processing"), None);
/// assert!(name_problem("PDF").is_some());
/// assert!(name_problem("a--b").is_some());
/// ```
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 64 {
        return Some("a skill name has 1 to 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("a skill name has only lowercase letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some("a skill name has no hyphen first, last or twice in a row");
    }
    None
}

/// The skill name a `…/<name>/SKILL.md` URI ends in.
///
/// ```
/// use typemcp_core::skills::name_of_uri;
/// assert_eq!(name_of_uri("skill://acme/billing/refunds/SKILL.md"), Some("refunds"));
/// assert_eq!(name_of_uri("skill://refunds/notes.md"), None);
/// ```
pub fn name_of_uri(uri: &str) -> Option<&str> {
    let path = uri.split_once("://").map_or(uri, |(_, path)| path);
    let root = path.strip_suffix(SKILL_FILE)?.strip_suffix('/')?;
    let name = root.rsplit('/').next()?;
    (!name.is_empty()).then_some(name)
}

/// Why content read for a skill cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The entry's manifest does not list this file.
    #[error("{0} is not listed in the skill's entry")]
    Unlisted(String),
    /// The file's length differs from the entry's `size`.
    #[error("{uri} is {actual} bytes, the entry says {expected}")]
    Size {
        /// The file.
        uri: String,
        /// What the entry says.
        expected: u64,
        /// What was read.
        actual: u64,
    },
    /// The file's SHA-256 differs from the entry's `digest`.
    #[error("{0} does not match the digest in the skill's entry")]
    Digest(String),
    /// The `SKILL.md` read has no usable frontmatter.
    #[error("{uri}: {source}")]
    Frontmatter {
        /// The file.
        uri: String,
        /// What is wrong with it.
        source: FrontmatterError,
    },
    /// The `SKILL.md` read has frontmatter other than the entry's.
    #[error("the frontmatter of {uri} differs from the entry's in `{field}`")]
    FrontmatterDiffers {
        /// The file.
        uri: String,
        /// The first field that differs.
        field: String,
    },
    /// The entry is `"dynamic"`: there is nothing to verify against.
    #[error("{0} is a dynamic skill: its content cannot be verified")]
    Dynamic(String),
}

/// Checks `bytes`, read at `uri`, against the entry's manifest: listed, of the listed size
/// and digest (size first, so an oversized read is refused before it is hashed). When
/// `uri` is the skill's `SKILL.md`, its frontmatter must also equal the entry's, field by
/// field.
///
/// ```
/// use typemcp_core::protocol::{Skill, SkillResource, SkillResources};
/// use typemcp_core::skills::{frontmatter, verify};
///
/// let text = "---\nname: a\ndescription: b\n---\nbody\n";
/// let uri = "skill://a/SKILL.md";
/// let files = SkillResources::Files(vec![SkillResource::of(uri, text.as_bytes())]);
/// let entry = Skill::new(uri, frontmatter(text).unwrap(), files);
/// assert!(verify(&entry, uri, text.as_bytes()).is_ok());
/// assert!(verify(&entry, uri, b"---\nname: a\ndescription: c\n---\nbody\n").is_err());
/// ```
pub fn verify(entry: &Skill, uri: &str, bytes: &[u8]) -> Result<(), VerifyError> {
    let files = entry
        .resources
        .files()
        .ok_or_else(|| VerifyError::Dynamic(entry.uri.clone()))?;
    let listed = listed(files, uri).ok_or_else(|| VerifyError::Unlisted(uri.to_owned()))?;
    if listed.size != bytes.len() as u64 {
        return Err(VerifyError::Size {
            uri: uri.to_owned(),
            expected: listed.size,
            actual: bytes.len() as u64,
        });
    }
    if !constant_time_eq(digest(bytes).as_bytes(), listed.digest.as_bytes()) {
        return Err(VerifyError::Digest(uri.to_owned()));
    }
    if uri == entry.uri {
        verify_frontmatter(entry, bytes)?;
    }
    Ok(())
}

/// Compares the frontmatter of `bytes` (the entry's `SKILL.md`) with the entry's.
pub fn verify_frontmatter(entry: &Skill, bytes: &[u8]) -> Result<(), VerifyError> {
    let uri = entry.uri.clone();
    let text = std::str::from_utf8(bytes).map_err(|_| VerifyError::Frontmatter {
        uri: uri.clone(),
        source: FrontmatterError::Missing,
    })?;
    let read = frontmatter(text).map_err(|source| VerifyError::Frontmatter {
        uri: uri.clone(),
        source,
    })?;
    let fields = read.keys().chain(entry.frontmatter.keys());
    for field in fields {
        if read.get(field) != entry.frontmatter.get(field) {
            return Err(VerifyError::FrontmatterDiffers {
                uri,
                field: field.clone(),
            });
        }
    }
    Ok(())
}

fn listed<'a>(files: &'a [SkillResource], uri: &str) -> Option<&'a SkillResource> {
    files.iter().find(|file| file.uri == uri)
}

/// Equality in time independent of where the inputs differ (digests are compared this way
/// out of habit: they are public, but cost nothing to compare carefully).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::SkillResources;

    #[test]
    fn frontmatter_needs_both_delimiters_and_both_fields() {
        assert_eq!(frontmatter("name: a\n"), Err(FrontmatterError::Missing));
        assert_eq!(
            frontmatter("---\nname: a\ndescription: b\n"),
            Err(FrontmatterError::Missing)
        );
        assert_eq!(
            frontmatter("---\nname: a\n---\n"),
            Err(FrontmatterError::MissingField("description"))
        );
        assert_eq!(
            frontmatter("---\nname: ''\ndescription: b\n---\n"),
            Err(FrontmatterError::MissingField("name"))
        );
        assert!(matches!(
            frontmatter("---\n- a\n- b\n---\n"),
            Err(FrontmatterError::NotYaml(_))
        ));
        let crlf =
            frontmatter("\u{feff}---\r\nname: a\r\ndescription: b\r\n---  \r\nbody").unwrap();
        assert_eq!(crlf["description"], "b");
    }

    #[test]
    fn frontmatter_keeps_every_field_in_order() {
        let map =
            frontmatter("---\nname: a\ndescription: b\nmetadata:\n  version: '2'\n---\n").unwrap();
        assert_eq!(
            map.keys().collect::<Vec<_>>(),
            ["name", "description", "metadata"]
        );
        assert_eq!(map["metadata"]["version"], "2");
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
    }

    fn entry(text: &str, other: &[u8]) -> Skill {
        let uri = "skill://a/SKILL.md";
        Skill::new(
            uri,
            frontmatter(text).unwrap(),
            SkillResources::Files(vec![
                SkillResource::of(uri, text.as_bytes()),
                SkillResource::of("skill://a/notes.md", other),
            ]),
        )
    }

    #[test]
    fn a_read_is_refused_on_any_mismatch() {
        let text = "---\nname: a\ndescription: b\n---\nbody\n";
        let skill = entry(text, b"notes");
        assert_eq!(verify(&skill, "skill://a/notes.md", b"notes"), Ok(()));
        assert!(matches!(
            verify(&skill, "skill://a/notes.md", b"notes!"),
            Err(VerifyError::Size {
                expected: 5,
                actual: 6,
                ..
            })
        ));
        assert!(matches!(
            verify(&skill, "skill://a/notes.md", b"Notes"),
            Err(VerifyError::Digest(_))
        ));
        assert!(matches!(
            verify(&skill, "skill://a/other.md", b"notes"),
            Err(VerifyError::Unlisted(_))
        ));
        // The manifest matching a SKILL.md whose frontmatter is not the entry's.
        let changed = "---\nname: a\ndescription: c\n---\nbody\n";
        let mut tampered = entry(changed, b"notes");
        tampered.frontmatter = frontmatter(text).unwrap();
        assert!(matches!(
            verify(&tampered, "skill://a/SKILL.md", changed.as_bytes()),
            Err(VerifyError::FrontmatterDiffers { field, .. }) if field == "description"
        ));
        let mut dynamic = skill.clone();
        dynamic.resources = SkillResources::Dynamic(crate::protocol::Dynamic::Dynamic);
        assert!(matches!(
            verify(&dynamic, "skill://a/SKILL.md", text.as_bytes()),
            Err(VerifyError::Dynamic(_))
        ));
    }
}
