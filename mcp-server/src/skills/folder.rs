//! Skills read from a folder tree: each folder holding a `SKILL.md` is a skill, at the
//! folder's path below the root; every file below it is one of its files (a nested skill's
//! files too, as the extension asks). Hidden files and folders (`.git`, `.DS_Store`) are
//! left out. A symbolic link anywhere below the root is refused: reading never leaves the
//! folder.

use std::path::Path;

use bytes::Bytes;
use typemcp_core::skills::SKILL_FILE;

use super::MAX_SKILLS_BYTES;
use super::bundle::SkillBundle;
use crate::BuildError;

/// The skills under `root`.
pub(super) fn load(root: &Path) -> Result<Vec<SkillBundle>, BuildError> {
    let invalid = |file: &Path, reason: String| BuildError::InvalidSkill {
        file: file.display().to_string(),
        reason,
    };
    if !root.is_dir() {
        return Err(invalid(root, "not a folder".to_owned()));
    }
    // Every file, as (path below the root with `/`, bytes).
    let mut files: Vec<(String, Bytes)> = Vec::new();
    let mut total = 0u64;
    for entry in walk(root) {
        let entry = entry.map_err(|err| {
            let path = err.path().unwrap_or(root).to_path_buf();
            invalid(&path, format!("cannot be read: {err}"))
        })?;
        let path = entry.path();
        // The root itself may be a link (the folder the user named); nothing below it.
        if entry.depth() > 0 && entry.path_is_symlink() {
            return Err(invalid(
                path,
                "is a symbolic link: a skill's files must be inside its folder".to_owned(),
            ));
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .ok()
            .and_then(slash_path)
            .ok_or_else(|| invalid(path, "has a name that is not UTF-8".to_owned()))?;
        // Bounded before anything is read: a huge file is refused by its size.
        let size = entry.metadata().map_or(0, |meta| meta.len());
        total = total.saturating_add(size);
        if total > MAX_SKILLS_BYTES {
            return Err(invalid(
                path,
                format!("the skills folder holds more than {MAX_SKILLS_BYTES} bytes"),
            ));
        }
        let bytes =
            std::fs::read(path).map_err(|err| invalid(path, format!("cannot be read: {err}")))?;
        files.push((relative, Bytes::from(bytes)));
    }
    // Each folder holding a SKILL.md is a skill, with every file below it.
    let roots: Vec<String> = files
        .iter()
        .filter_map(|(path, _)| {
            path.strip_suffix(SKILL_FILE)
                .and_then(|dir| dir.strip_suffix('/'))
                .map(str::to_owned)
        })
        .collect();
    if files.iter().any(|(path, _)| path == SKILL_FILE) {
        return Err(invalid(
            &root.join(SKILL_FILE),
            "sits at the root of the skills folder: each skill is a folder of its own".to_owned(),
        ));
    }
    Ok(roots
        .into_iter()
        .map(|skill| {
            let prefix = format!("{skill}/");
            let mut bundle = SkillBundle::new(skill.clone()).read_from(root.join(&skill));
            for (path, bytes) in &files {
                if let Some(inside) = path.strip_prefix(&prefix) {
                    bundle = bundle.file(inside, bytes.clone());
                }
            }
            bundle
        })
        .collect())
}

/// What a watcher compares to tell that the tree under `root` changed: each file's path,
/// length and modification time (hidden ones left out, as [`load`] leaves them), or the
/// error that stopped the walk.
pub(super) fn fingerprint(root: &Path) -> Vec<String> {
    walk(root)
        .map(|entry| match entry.and_then(|e| Ok((e.metadata()?, e))) {
            Ok((meta, entry)) => format!(
                "{} {} {:?}",
                entry.path().display(),
                meta.len(),
                meta.modified().ok()
            ),
            Err(err) => format!("error {err}"),
        })
        .collect()
}

/// Everything below `root` in name order, hidden entries and what is below them left out,
/// links not followed.
fn walk(root: &Path) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !is_hidden(entry.file_name()))
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_str().is_some_and(|name| name.starts_with('.'))
}

/// `path`'s components joined with `/`, if each is UTF-8.
fn slash_path(path: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = path.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}
