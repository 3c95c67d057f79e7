//! The skills a server serves at one moment, indexed for each method that reads them: the
//! entries (`skills/list`, `skills/get`), each file by URI (`resources/read`), each
//! directory's children (`resources/directory/read`) and the `SKILL.md` resources
//! (`resources/list`).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use base64::Engine;
use bytes::Bytes;
use typemcp_core::protocol::{
    DIRECTORY_MIME_TYPE, Resource, ResourceContents, Skill, SkillResource, SkillResources,
};
use typemcp_core::skills::SKILL_FILE;

use super::bundle::SkillBundle;
use super::{MAX_SKILLS_BYTES, folder, rules};
use crate::BuildError;

/// Where skills come from: read again on every reload.
#[derive(Debug, Clone)]
pub(crate) enum SkillSource {
    /// Every skill below a folder.
    Folder(PathBuf),
    /// One skill built in code.
    Bundle(SkillBundle),
}

/// One file served.
#[derive(Debug)]
struct File {
    bytes: Bytes,
    mime_type: String,
}

/// The skills being served, from their sources.
#[derive(Debug, Default)]
pub(crate) struct SkillSet {
    sources: Vec<SkillSource>,
    /// Each skill's entry, in the order of their sources (a folder's sorted by path).
    entries: Vec<Skill>,
    /// The `SKILL.md` of each skill as a resource (for `resources/list`).
    manifests: Vec<Resource>,
    /// Entry index by the URI of its `SKILL.md`.
    by_uri: HashMap<String, usize>,
    files: HashMap<String, File>,
    /// Each directory's direct children, by the directory's URI.
    directories: BTreeMap<String, BTreeMap<String, Resource>>,
}

impl SkillSet {
    /// Reads and checks every skill of `sources`.
    pub(crate) fn load(sources: Vec<SkillSource>) -> Result<Self, BuildError> {
        let mut bundles = Vec::new();
        for source in &sources {
            match source {
                SkillSource::Folder(root) => bundles.extend(folder::load(root)?),
                SkillSource::Bundle(bundle) => bundles.push(bundle.clone()),
            }
        }
        let mut set = Self {
            sources,
            ..Self::default()
        };
        let mut names: HashMap<String, String> = HashMap::new();
        let mut total = 0u64;
        for bundle in bundles {
            let name = rules::path(&bundle)?.to_owned();
            rules::file_paths(&bundle)?;
            rules::unique_files(&bundle)?;
            let frontmatter = rules::frontmatter(&bundle, &name)?;
            total += rules::limits(&bundle)?;
            if total > MAX_SKILLS_BYTES {
                return Err(BuildError::InvalidSkill {
                    file: bundle.describe(SKILL_FILE),
                    reason: format!("the skills hold more than {MAX_SKILLS_BYTES} bytes together"),
                });
            }
            if let Some(first) = names.insert(name.clone(), bundle.path.clone()) {
                return Err(BuildError::InvalidSkill {
                    file: bundle.describe(SKILL_FILE),
                    reason: format!(
                        "the skill name {name:?} is already served at skill://{first}/"
                    ),
                });
            }
            set.add(&bundle, frontmatter);
        }
        Ok(set)
    }

    /// Indexes one checked skill.
    fn add(
        &mut self,
        bundle: &SkillBundle,
        frontmatter: serde_json::Map<String, serde_json::Value>,
    ) {
        let root = format!("skill://{}", bundle.path);
        let uri = format!("{root}/{SKILL_FILE}");
        let mut manifest = Vec::with_capacity(bundle.files.len());
        // SKILL.md first, then the others in the order given.
        let mut files: Vec<&(String, Bytes)> = bundle.files.iter().collect();
        files.sort_by_key(|(path, _)| path != SKILL_FILE);
        for (path, bytes) in files {
            let file_uri = format!("{root}/{path}");
            manifest.push(SkillResource::of(file_uri.clone(), bytes));
            let mime_type = mime_type(path, bytes);
            self.index_directories(&file_uri, bytes.len() as u64, &mime_type);
            self.files.insert(
                file_uri,
                File {
                    bytes: bytes.clone(),
                    mime_type,
                },
            );
        }
        let entry = Skill::new(uri.clone(), frontmatter, SkillResources::Files(manifest));
        let mut resource = Resource::new(uri.clone(), entry.name().unwrap_or_default());
        resource.description = entry.description().map(str::to_owned);
        resource.mime_type = Some(MARKDOWN.to_owned());
        resource.size = self.files.get(&uri).map(|f| f.bytes.len() as u64);
        self.manifests.push(resource);
        self.by_uri.insert(uri, self.entries.len());
        self.entries.push(entry);
    }

    /// Lists the file at `uri` in its folder, and each folder in its parent, up to the
    /// namespace's first segment.
    fn index_directories(&mut self, uri: &str, size: u64, mime_type: &str) {
        let Some(path) = uri.strip_prefix("skill://") else {
            return;
        };
        let segments: Vec<&str> = path.split('/').collect();
        for depth in 1..segments.len() {
            let parent = format!("skill://{}", segments[..depth].join("/"));
            let child = format!("{parent}/{}", segments[depth]);
            let name = segments[depth];
            let is_file = depth == segments.len() - 1;
            let mut resource = Resource::new(child.clone(), name);
            if is_file {
                resource.mime_type = Some(mime_type.to_owned());
                resource.size = Some(size);
            } else {
                resource.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
            }
            self.directories
                .entry(parent)
                .or_default()
                .entry(child)
                .or_insert(resource);
        }
    }

    /// What tells that a folder among the sources changed (see [`folder::fingerprint`]).
    pub(crate) fn fingerprint(&self) -> Vec<String> {
        let folders = self.sources.iter().filter_map(|source| match source {
            SkillSource::Folder(root) => Some(root),
            SkillSource::Bundle(_) => None,
        });
        folders.flat_map(|root| folder::fingerprint(root)).collect()
    }

    /// Whether the server was given skills to serve (a folder, even an empty one, or a
    /// skill in code): then it declares the extension, whatever the folders hold now.
    pub(crate) fn is_configured(&self) -> bool {
        !self.sources.is_empty()
    }

    /// Where the skills came from (read again by a reload).
    pub(crate) fn sources(&self) -> &[SkillSource] {
        &self.sources
    }

    /// Every entry.
    pub(crate) fn entries(&self) -> &[Skill] {
        &self.entries
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub(crate) fn get(&self, uri: &str) -> Option<&Skill> {
        self.by_uri.get(uri).map(|&i| &self.entries[i])
    }

    /// Each skill's `SKILL.md`, as `resources/list` lists it.
    pub(crate) fn manifests(&self) -> &[Resource] {
        &self.manifests
    }

    /// The contents of the file at `uri`: text when it is UTF-8, else base64.
    pub(crate) fn read(&self, uri: &str) -> Option<ResourceContents> {
        let file = self.files.get(uri)?;
        Some(match std::str::from_utf8(&file.bytes) {
            Ok(text) => ResourceContents::text(uri, &file.mime_type, text),
            Err(_) => ResourceContents::blob(
                uri,
                &file.mime_type,
                base64::engine::general_purpose::STANDARD.encode(&file.bytes),
            ),
        })
    }

    /// The direct children of the directory at `uri`, if it is one.
    pub(crate) fn directory(&self, uri: &str) -> Option<impl ExactSizeIterator<Item = &Resource>> {
        self.directories.get(uri).map(BTreeMap::values)
    }
}

const MARKDOWN: &str = "text/markdown";

/// The MIME type of a skill's file: Markdown for `.md`, else as its extension says, else
/// text or bytes.
fn mime_type(path: &str, bytes: &[u8]) -> String {
    if path.ends_with(".md") {
        return MARKDOWN.to_owned();
    }
    match mime_guess::from_path(path).first() {
        Some(mime) => mime.essence_str().to_owned(),
        None if std::str::from_utf8(bytes).is_ok() => "text/plain".to_owned(),
        None => "application/octet-stream".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(path: &str, name: &str) -> SkillBundle {
        SkillBundle::new(path).file(
            "SKILL.md",
            format!("---\nname: {name}\ndescription: d\n---\nbody\n"),
        )
    }

    fn load(bundles: Vec<SkillBundle>) -> Result<SkillSet, BuildError> {
        SkillSet::load(bundles.into_iter().map(SkillSource::Bundle).collect())
    }

    fn reason(result: Result<SkillSet, BuildError>) -> (String, String) {
        match result {
            Err(BuildError::InvalidSkill { file, reason }) => (file, reason),
            other => panic!("expected InvalidSkill, got {other:?}"),
        }
    }

    #[test]
    fn directories_list_their_direct_children() {
        let set = load(vec![
            skill("acme/refunds", "refunds")
                .file("templates/a.md", "a")
                .file("templates/regional/eu.md", "eu"),
        ])
        .unwrap();
        let children = |uri: &str| -> Vec<(String, Option<String>)> {
            set.directory(uri)
                .map(|c| c.map(|r| (r.name.clone(), r.mime_type.clone())).collect())
                .unwrap_or_default()
        };
        assert_eq!(
            children("skill://acme"),
            [("refunds".into(), Some(DIRECTORY_MIME_TYPE.into()))]
        );
        assert_eq!(
            children("skill://acme/refunds/templates"),
            [
                ("a.md".into(), Some(MARKDOWN.into())),
                ("regional".into(), Some(DIRECTORY_MIME_TYPE.into()))
            ]
        );
        assert!(set.directory("skill://acme/refunds/SKILL.md").is_none());
        let entry = set.get("skill://acme/refunds/SKILL.md").unwrap();
        let files = entry.resources.files().unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].uri, entry.uri, "SKILL.md comes first");
    }

    #[test]
    fn binary_files_are_read_as_base64() {
        let set = load(vec![
            skill("a", "a").file("logo.png", vec![0x89u8, 0xff, 0x00]),
        ])
        .unwrap();
        match set.read("skill://a/logo.png") {
            Some(ResourceContents::Blob {
                blob, mime_type, ..
            }) => {
                assert_eq!(blob, "if8A");
                assert_eq!(mime_type.as_deref(), Some("image/png"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_malformed_skill_is_refused_naming_its_file() {
        let (file, why) = reason(load(vec![SkillBundle::new("a").file("notes.md", "x")]));
        assert_eq!(
            (file.as_str(), why.as_str()),
            ("skill://a/SKILL.md", "is missing")
        );
        let (_, why) = reason(load(vec![
            SkillBundle::new("a").file("SKILL.md", "# no frontmatter"),
        ]));
        assert!(why.contains("frontmatter"), "{why}");
        let (_, why) = reason(load(vec![skill("a", "b")]));
        assert!(why.contains("names the skill \"b\""), "{why}");
        let (_, why) = reason(load(vec![skill("Bad_Name", "Bad_Name")]));
        assert!(why.contains("lowercase"), "{why}");
        let (_, why) = reason(load(vec![skill("x/a", "a"), skill("y/a", "a")]));
        assert!(why.contains("already served at skill://x/a/"), "{why}");
        let (file, why) = reason(load(vec![skill("a", "a").file("../etc/passwd", "x")]));
        assert_eq!(file, "skill://a/../etc/passwd");
        assert!(why.contains("leaves the skill's folder"), "{why}");
        let (_, why) = reason(load(vec![skill("a", "a").file("SKILL.md", "again")]));
        assert!(why.contains("twice"), "{why}");
        let many = (0..512).fold(skill("a", "a"), |b, i| b.file(format!("f{i}.txt"), "x"));
        let (_, why) = reason(load(vec![many]));
        assert!(why.contains("513 files"), "{why}");
        let big = skill("a", "a").file("big.bin", vec![0u8; 16 * 1024 * 1024]);
        let (_, why) = reason(load(vec![big]));
        assert!(why.contains("more than the 16777216"), "{why}");
    }
}
