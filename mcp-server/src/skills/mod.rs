#![doc = include_str!("../docs/skills.md")]
//!
//! ## The module
//!
//! What a server serves of the skills extension, in parts:
//!
//! - [`SkillBundle`]: one skill built in code, its files given as text or bytes (with
//!   `include_str!`/`include_bytes!`, a single binary carries them);
//! - `folder`: skills read from a folder tree ([`ServerBuilder::skills_dir`](crate::ServerBuilder::skills_dir));
//! - `rules`: what a skill must be, one small function per rule, each failure a
//!   [`BuildError::InvalidSkill`](crate::BuildError::InvalidSkill) naming the file;
//! - `set`: the skills being served, indexed for `skills/list`, `skills/get`,
//!   `resources/read` and `resources/directory/read` (the dispatcher's rows are
//!   `crate::dispatch`'s).
//!
//! Every file a skill serves is held in memory, read once: its digest is of those bytes, so
//! what is read is what was listed until the skills are reloaded
//! ([`Server::reload_skills`](crate::Server::reload_skills)).

mod bundle;
mod folder;
mod rules;
mod set;

pub use bundle::SkillBundle;
pub(crate) use set::{SkillSet, SkillSource};

/// The bytes all of a server's skills may hold together (each skill holds at most 16 MiB,
/// the extension's limit).
pub const MAX_SKILLS_BYTES: u64 = 64 * 1024 * 1024;
