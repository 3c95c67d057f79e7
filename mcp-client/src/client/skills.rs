//! Skills (SEP-2640) from the host's side: list a server's skills, load one, and read its
//! files, every byte verified against the entry it came from before it is handed out.
//!
//! Nothing is fetched ahead of need: listing reads entries only, [`Client::load_skill`]
//! reads the skill's `SKILL.md` alone, and [`LoadedSkill::read`] one file when asked.

use base64::Engine;
use serde_json::{Map, Value, json};
use typemcp_core::protocol::{
    GetSkillResult, Resource, ResourceContents, SKILLS_EXTENSION, Skill, methods, skill_methods,
};
use typemcp_core::skills::{self, SKILL_FILE, VerifyError};

use super::{Client, parse};
use crate::error::ClientError;

impl Client {
    /// Whether the server declares the skills extension.
    pub fn offers_skills(&self) -> bool {
        self.skills_capability().is_some()
    }

    fn skills_capability(&self) -> Option<&Value> {
        self.server()
            .capabilities
            .extensions
            .as_ref()
            .and_then(|e| e.get(SKILLS_EXTENSION))
    }

    fn require_skills(&self, method: &str) -> Result<(), ClientError> {
        if self.offers_skills() {
            Ok(())
        } else {
            Err(ClientError::NotOffered {
                method: method.to_owned(),
                what: SKILLS_EXTENSION,
            })
        }
    }

    /// Every skill the server lists (`skills/list`, all pages): entries only, no file read.
    /// A listing may be partial: a skill named elsewhere is reached with
    /// [`get_skill`](Self::get_skill).
    ///
    /// ```no_run
    /// # async fn run(client: typemcp_client::Client) -> Result<(), typemcp_client::ClientError> {
    /// for entry in client.list_skills().await? {
    ///     let skill = client.load_skill(&entry).await?;
    ///     println!("{}: {} bytes of instructions", entry.uri, skill.instructions().len());
    ///     let forms = skill.read(&client, "references/FORMS.md").await?;
    /// #   let _ = forms;
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_skills(&self) -> Result<Vec<Skill>, ClientError> {
        self.require_skills(skill_methods::LIST)?;
        self.list_all(skill_methods::LIST, "skills").await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`), say one the
    /// server's instructions name.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, ClientError> {
        self.require_skills(skill_methods::GET)?;
        let mut params = Map::new();
        params.insert("uri".to_owned(), json!(uri));
        let answer = self.send(skill_methods::GET, params).await?;
        let result: GetSkillResult = parse(skill_methods::GET, answer)?;
        if result.skill.uri != uri {
            return Err(ClientError::Malformed {
                method: skill_methods::GET.to_owned(),
                reason: format!("asked for {uri}, given {}", result.skill.uri),
            });
        }
        Ok(result.skill)
    }

    /// The direct children of the directory at `uri` (`resources/directory/read`, all
    /// pages), on a server that declares `directoryRead`.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Resource>, ClientError> {
        let method = skill_methods::DIRECTORY_READ;
        let declared = self
            .skills_capability()
            .and_then(|c| c.get("directoryRead"))
            .and_then(Value::as_bool)
            == Some(true);
        if !declared {
            return Err(ClientError::NotOffered {
                method: method.to_owned(),
                what: "io.modelcontextprotocol/skills directoryRead",
            });
        }
        let mut params = Map::new();
        params.insert("uri".to_owned(), json!(uri));
        self.list_all_of(method, "resources", params).await
    }

    /// Loads the skill `entry` describes: reads its `SKILL.md` and verifies it (listed,
    /// its size, its SHA-256 digest, its frontmatter field by field against the entry's).
    /// Any mismatch is [`ClientError::Skill`], and nothing of the skill is returned. A
    /// `"dynamic"` skill cannot be verified and is refused the same way.
    pub async fn load_skill(&self, entry: &Skill) -> Result<LoadedSkill, ClientError> {
        let bytes = self.read_skill_file(entry, &entry.uri).await?;
        let instructions = String::from_utf8(bytes).map_err(|_| {
            ClientError::Skill(VerifyError::Frontmatter {
                uri: entry.uri.clone(),
                source: skills::FrontmatterError::Missing,
            })
        })?;
        Ok(LoadedSkill {
            entry: entry.clone(),
            instructions,
        })
    }

    /// Reads `uri`, one of `entry`'s files, and verifies it; the bytes only when they match.
    async fn read_skill_file(&self, entry: &Skill, uri: &str) -> Result<Vec<u8>, ClientError> {
        // Refused before anything is read: dynamic entries, unlisted files.
        let listed = entry
            .resources
            .files()
            .ok_or_else(|| ClientError::Skill(VerifyError::Dynamic(entry.uri.clone())))?;
        if !listed.iter().any(|file| file.uri == uri) {
            return Err(ClientError::Skill(VerifyError::Unlisted(uri.to_owned())));
        }
        let read = self.read_resource(uri).await?;
        let bytes = contents_bytes(uri, read.contents)?;
        skills::verify(entry, uri, &bytes).map_err(ClientError::Skill)?;
        Ok(bytes)
    }
}

/// A skill whose `SKILL.md` was read and verified, with the entry it was verified against:
/// its other files are read through it, each verified against that same entry.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    entry: Skill,
    instructions: String,
}

impl LoadedSkill {
    /// The entry the skill was loaded from.
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The `SKILL.md`, frontmatter included, as read and verified.
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The URI of the file at `path` relative to the skill's root (`references/FORMS.md`).
    pub fn uri_of(&self, path: &str) -> String {
        let root = self
            .entry
            .uri
            .strip_suffix(SKILL_FILE)
            .unwrap_or(&self.entry.uri);
        format!("{root}{}", path.trim_start_matches('/'))
    }

    /// Reads the skill's file at `path` (relative to its root, as `SKILL.md` refers to it)
    /// and verifies it against the entry: a file the entry does not list is refused unread,
    /// one whose size or digest differs is refused after reading ([`ClientError::Skill`]).
    pub async fn read(&self, client: &Client, path: &str) -> Result<Vec<u8>, ClientError> {
        client
            .read_skill_file(&self.entry, &self.uri_of(path))
            .await
    }
}

/// The raw bytes of `uri` among a read's contents: text as UTF-8, a blob decoded.
fn contents_bytes(uri: &str, contents: Vec<ResourceContents>) -> Result<Vec<u8>, ClientError> {
    let malformed = |reason: String| ClientError::Malformed {
        method: methods::RESOURCES_READ.to_owned(),
        reason,
    };
    let found = contents
        .into_iter()
        .find(|c| c.uri() == uri)
        .ok_or_else(|| malformed(format!("no contents for {uri}")))?;
    match found {
        ResourceContents::Text { text, .. } => Ok(text.into_bytes()),
        ResourceContents::Blob { blob, .. } => base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|err| malformed(format!("the blob of {uri} is not base64: {err}"))),
        _ => Err(malformed(format!(
            "the contents of {uri} are neither text nor a blob"
        ))),
    }
}
