//! A skill built in code: its path and its files.

use std::path::PathBuf;

use bytes::Bytes;

/// One skill built in code: the skill's path in the `skill://` namespace and its files,
/// `SKILL.md` among them. Register it with
/// [`ServerBuilder::skill`](crate::ServerBuilder::skill); it is checked as a folder's
/// skill is (frontmatter, name, limits) when the server is built.
///
/// ```
/// use typemcp_server::{Server, SkillBundle};
///
/// let skill = SkillBundle::new("release-notes")
///     .file("SKILL.md", "---\nname: release-notes\ndescription: Write release notes\n---\n# Steps\n")
///     .file("templates/notes.md", "## {version}\n");
/// let server = Server::builder().name("docs").version("1.0.0").skill(skill).build().unwrap();
/// assert!(server.capabilities().resources.is_some());
/// ```
#[derive(Debug, Clone)]
pub struct SkillBundle {
    pub(crate) path: String,
    pub(crate) files: Vec<(String, Bytes)>,
    /// The folder it was read from, to name a file in an error.
    pub(crate) origin: Option<PathBuf>,
}

impl SkillBundle {
    /// A skill at `skill://<path>/` (one segment, `git-workflow`, or several,
    /// `acme/billing/refunds`: the last is the skill's name).
    pub fn new(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            files: Vec::new(),
            origin: None,
        }
    }

    /// Marks the skill as read from `folder` (errors name the file there).
    pub(crate) fn read_from(mut self, folder: PathBuf) -> Self {
        self.origin = Some(folder);
        self
    }

    /// How an error names the file at `path` of this skill.
    pub(crate) fn describe(&self, path: &str) -> String {
        match &self.origin {
            Some(folder) => folder.join(path).display().to_string(),
            None => format!("skill://{}/{path}", self.path),
        }
    }

    /// Adds a file at `path` relative to the skill's root (`SKILL.md`,
    /// `references/FORMS.md`), with `/` as the separator.
    pub fn file(mut self, path: impl Into<String>, content: impl Into<Bytes>) -> Self {
        self.files.push((path.into(), content.into()));
        self
    }
}
