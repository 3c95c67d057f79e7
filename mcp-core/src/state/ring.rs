//! Key rings: one key mints, the others only verify, each known by an explicit id.
//!
//! A [`KeyRing`] is what a deployment configures: the key new states are minted with, the
//! keys of states still in flight, and when each of those stops verifying. Its text format
//! and the rotation procedure are documented on the type.

use std::io::Read;
use std::path::Path;

use zeroize::{ZeroizeOnDrop, Zeroizing};

use super::{KeyError, SigningKey};

/// What is wrong with one entry of a key ring.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    /// No `ID:` before the key.
    #[error("no `ID:` before the key (ids are explicit)")]
    MissingId,
    /// An empty id, or one with `:`, `,`, `#`, whitespace or control characters.
    #[error("a key id must be non-empty, without ':', ',', '#', whitespace or control characters")]
    InvalidId,
    /// The same id as an earlier entry.
    #[error("the same key id as entry {first}")]
    DuplicateId {
        /// The earlier entry with that id.
        first: usize,
    },
    /// The key is shorter than 32 bytes.
    #[error("the key needs at least 32 bytes, got {0}")]
    KeyTooShort(usize),
    /// The key is not base64.
    #[error("the key is not valid base64")]
    KeyNotBase64,
    /// The key was refused otherwise.
    #[error("the key was refused")]
    KeyRefused,
    /// The retire time is not decimal Unix seconds.
    #[error("the retire time is not a number of Unix seconds")]
    BadRetireTime,
    /// More fields than `ID:BASE64:RETIRE_AT`.
    #[error("more fields than ID:BASE64:RETIRE_AT")]
    TooManyFields,
    /// The first entry mints and cannot be retired.
    #[error("the minting key (the first entry) cannot be retired")]
    MintingKeyRetired,
}

impl EntryError {
    /// The entry error for a refused key.
    fn from_key(error: &KeyError) -> Self {
        match error {
            KeyError::TooShort(len) => Self::KeyTooShort(*len),
            KeyError::NotBase64 => Self::KeyNotBase64,
            _ => Self::KeyRefused,
        }
    }
}

/// One key of a ring.
#[derive(Clone)]
pub(crate) struct RingKey {
    pub(crate) id: String,
    pub(crate) key: SigningKey,
    /// From this Unix second on, the key verifies nothing.
    pub(crate) retired_at: Option<u64>,
}

impl std::fmt::Debug for RingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("Key");
        out.field("id", &self.id);
        if let Some(at) = self.retired_at {
            out.field("retired_at", &at);
        }
        out.finish_non_exhaustive()
    }
}

/// The keys of a [`StateSigner`](super::StateSigner): the first mints, all verify.
///
/// It loads from text ([`KeyRing::parse`]), an environment variable such as
/// `MCP_REQUEST_STATE_KEYS` ([`KeyRing::from_env`]) or a file ([`KeyRing::from_file`]), or is
/// built in code ([`KeyRing::new`], [`with_verifying_key`](KeyRing::with_verifying_key),
/// [`with_retired_at`](KeyRing::with_retired_at)).
///
/// # Text format
///
/// Entries separated by commas or newlines, each `ID:BASE64` or `ID:BASE64:RETIRE_AT`:
///
/// ```text
/// # minted with from 2026-11-01
/// 2026-11:q3vN0I9a7cTgGgC0tyC4C5Z1b7hE8Ue2X9jPpHVpj6c
/// # verifies states minted before the switch, until 2026-11-01T00:15:00Z
/// 2026-10:Yx4Hn2sV8lWq3qj1qW0oQv0Cz0wTt4mW2b5v3uJmYlE:1793492100
/// ```
///
/// - The **first** entry mints; every entry verifies.
/// - An id is explicit, unique, and non-empty, without `:`, `,`, `#`, whitespace or control
///   characters. Tokens carry it in the clear.
/// - The key is base64 (standard or URL-safe, padded or not) of at least 32 bytes.
/// - `RETIRE_AT` (decimal Unix seconds) retires a verifying key: from that second on it
///   verifies nothing. The minting key cannot be retired.
/// - Blank entries, surrounding whitespace, and lines starting with `#` are ignored.
///
/// Errors name the entry by its position (counting entries from 1, blank lines and comments
/// not counted), never by its text: a key written where its id belongs must not end up in a
/// log. `Debug` shows ids and retire times only.
///
/// # Rotating
///
/// Put the new key first and keep the old one after it, with a retire time at least one TTL
/// (plus the clock skew) after every instance mints with the new key: no state in flight is
/// lost. Drop the old entry after that time.
///
/// ```
/// use typemcp_core::state::{KeyRing, SigningKey, StateSigner};
///
/// # fn main() -> Result<(), typemcp_core::state::KeyError> {
/// let old = StateSigner::from_ring(KeyRing::new("2026-10", SigningKey::new([1u8; 32])?)?);
/// let state = old.sign(b"step 2", None);
///
/// // The new key mints; the old one still verifies, until it retires.
/// let ring = KeyRing::new("2026-11", SigningKey::new([2u8; 32])?)?
///     .with_verifying_key("2026-10", SigningKey::new([1u8; 32])?)?
///     .with_retired_at("2026-10", 4_000_000_000)?;
/// assert_eq!(ring.key_ids(), ["2026-11", "2026-10"]);
/// let rotated = StateSigner::from_ring(ring);
/// assert_eq!(rotated.verify(&state, None).unwrap(), b"step 2");
///
/// // The same, from configuration text (the variable MCP_REQUEST_STATE_KEYS, or a file).
/// let text = "2026-11:AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI,\
///             2026-10:AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE:4000000000";
/// let parsed = KeyRing::parse(text)?;
/// assert_eq!(parsed.minting_key_id(), "2026-11");
/// assert_eq!(parsed.retired_at("2026-10"), Some(4_000_000_000));
/// assert_eq!(StateSigner::from_ring(parsed).verify(&state, None).unwrap(), b"step 2");
/// // Debug shows ids, never keys.
/// assert!(!format!("{:?}", KeyRing::parse(text)?).contains("AgIC"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct KeyRing {
    minting: RingKey,
    verifying: Vec<RingKey>,
}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyRing")
            .field("minting", &self.minting.id)
            .field("verifying", &self.verifying)
            .finish()
    }
}

/// Every key of the ring wipes itself on drop.
impl ZeroizeOnDrop for KeyRing {}

/// The longest key ring file read (far more than any sensible ring).
const MAX_FILE_BYTES: u64 = 1024 * 1024;

impl KeyRing {
    /// A ring of one key, `id`, which mints and verifies.
    pub fn new(id: impl Into<String>, key: SigningKey) -> Result<Self, KeyError> {
        let id = checked_id(id.into(), 1)?;
        Ok(Self::single(id, key))
    }

    /// Adds a key that verifies states (minted by another instance or before a rotation) but
    /// mints none.
    pub fn with_verifying_key(
        mut self,
        id: impl Into<String>,
        key: SigningKey,
    ) -> Result<Self, KeyError> {
        self.add(id.into(), key, None)?;
        Ok(self)
    }

    /// Retires the verifying key `id`: from the Unix second `at` on, it verifies nothing.
    /// The minting key cannot be retired.
    pub fn with_retired_at(mut self, id: &str, at: u64) -> Result<Self, KeyError> {
        if self.minting.id == id {
            return Err(KeyError::Entry {
                entry: 1,
                problem: EntryError::MintingKeyRetired,
            });
        }
        let key = self
            .verifying
            .iter_mut()
            .find(|key| key.id == id)
            .ok_or_else(|| KeyError::UnknownKeyId(id.to_owned()))?;
        key.retired_at = Some(at);
        Ok(self)
    }

    /// A ring from its text (see [`KeyRing`] for the format).
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let mut ring: Option<Self> = None;
        let mut entry = 0;
        let lines = text.lines().map(str::trim).filter(|l| !l.starts_with('#'));
        for text in lines.flat_map(|line| line.split(',')).map(str::trim) {
            if text.is_empty() {
                continue;
            }
            entry += 1;
            let (id, key, retired_at) = parse_entry(text, entry)?;
            match ring.as_mut() {
                Some(ring) => ring.add(id.to_owned(), key, retired_at)?,
                None if retired_at.is_some() => {
                    return Err(KeyError::Entry {
                        entry,
                        problem: EntryError::MintingKeyRetired,
                    });
                }
                None => ring = Some(Self::new(id, key)?),
            }
        }
        ring.ok_or(KeyError::EmptyRing)
    }

    /// A ring from the text of the environment variable `name` (read into a buffer wiped on
    /// drop; the variable itself stays in the environment).
    pub fn from_env(name: &str) -> Result<Self, KeyError> {
        let text = std::env::var(name)
            .map(Zeroizing::new)
            .map_err(|_| KeyError::MissingVariable(name.to_owned()))?;
        Self::parse(&text)
    }

    /// A ring from the text of a file (UTF-8, at most 1 MiB), read into a buffer wiped on
    /// drop.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, KeyError> {
        let path = path.as_ref();
        let failed = |kind| KeyError::File {
            path: path.to_owned(),
            kind,
        };
        let file = std::fs::File::open(path).map_err(|e| failed(e.kind()))?;
        let len = file.metadata().map_or(0, |m| m.len()).min(MAX_FILE_BYTES);
        // Sized up front, so the buffer holding the keys is not reallocated (and the old
        // allocation left unwiped) while reading.
        let capacity = usize::try_from(len).unwrap_or(0).saturating_add(1);
        let mut bytes = Zeroizing::new(Vec::with_capacity(capacity));
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| failed(e.kind()))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(failed(std::io::ErrorKind::FileTooLarge));
        }
        let text =
            std::str::from_utf8(&bytes).map_err(|_| failed(std::io::ErrorKind::InvalidData))?;
        Self::parse(text)
    }

    /// The id of the key that mints.
    pub fn minting_key_id(&self) -> &str {
        &self.minting.id
    }

    /// Every id, the minting key's first.
    pub fn key_ids(&self) -> Vec<&str> {
        self.keys().map(|key| key.id.as_str()).collect()
    }

    /// When the key `id` retires (`None`: it does not, or the ring has no such key).
    pub fn retired_at(&self, id: &str) -> Option<u64> {
        self.keys().find(|key| key.id == id)?.retired_at
    }

    /// A ring of one key, its id unchecked (what [`StateSigner::new`](super::StateSigner::new)
    /// and `with_key_id` have always accepted).
    pub(crate) fn single(id: String, key: SigningKey) -> Self {
        Self {
            minting: RingKey {
                id,
                key,
                retired_at: None,
            },
            verifying: Vec::new(),
        }
    }

    /// Renames the minting key, unchecked.
    pub(crate) fn rename_minting_key(&mut self, id: String) {
        self.minting.id = id;
    }

    /// Adds a verifying key, unchecked (a repeated id is shadowed by the earlier key).
    pub(crate) fn push_verifying_key(&mut self, id: String, key: SigningKey) {
        self.verifying.push(RingKey {
            id,
            key,
            retired_at: None,
        });
    }

    /// The key that mints.
    pub(crate) fn minting(&self) -> &RingKey {
        &self.minting
    }

    /// The first key with this id (as the token carries it).
    pub(crate) fn find(&self, id: &[u8]) -> Option<&RingKey> {
        self.keys().find(|key| key.id.as_bytes() == id)
    }

    fn keys(&self) -> impl Iterator<Item = &RingKey> {
        std::iter::once(&self.minting).chain(&self.verifying)
    }

    /// Adds a verifying key as the next entry, checking its id.
    fn add(
        &mut self,
        id: String,
        key: SigningKey,
        retired_at: Option<u64>,
    ) -> Result<(), KeyError> {
        let entry = self.verifying.len() + 2;
        let id = checked_id(id, entry)?;
        if let Some(first) = self.position(&id) {
            return Err(KeyError::Entry {
                entry,
                problem: EntryError::DuplicateId { first },
            });
        }
        self.verifying.push(RingKey {
            id,
            key,
            retired_at,
        });
        Ok(())
    }

    /// The position (from 1) of the key with this id.
    fn position(&self, id: &str) -> Option<usize> {
        self.keys()
            .position(|key| key.id == id)
            .map(|index| index + 1)
    }
}

/// `id` if it is a valid key id.
fn checked_id(id: String, entry: usize) -> Result<String, KeyError> {
    let invalid = |c: char| matches!(c, ':' | ',' | '#') || c.is_whitespace() || c.is_control();
    if id.is_empty() || id.chars().any(invalid) {
        return Err(KeyError::Entry {
            entry,
            problem: EntryError::InvalidId,
        });
    }
    Ok(id)
}

/// One `ID:BASE64[:RETIRE_AT]` entry.
fn parse_entry(text: &str, entry: usize) -> Result<(&str, SigningKey, Option<u64>), KeyError> {
    let problem = |problem| KeyError::Entry { entry, problem };
    let mut fields = text.split(':').map(str::trim);
    let (Some(id), Some(key), retire, None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(problem(if text.contains(':') {
            EntryError::TooManyFields
        } else {
            EntryError::MissingId
        }));
    };
    let key = SigningKey::from_base64(key).map_err(|e| problem(EntryError::from_key(&e)))?;
    let retired_at = match retire {
        None => None,
        Some(at) if !at.is_empty() && at.bytes().all(|b| b.is_ascii_digit()) => {
            Some(at.parse().map_err(|_| problem(EntryError::BadRetireTime))?)
        }
        Some(_) => return Err(problem(EntryError::BadRetireTime)),
    };
    Ok((id, key, retired_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE";
    const K2: &str = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI";

    fn entry_error(text: &str) -> (usize, EntryError) {
        match KeyRing::parse(text) {
            Err(KeyError::Entry { entry, problem }) => (entry, problem),
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn the_first_entry_mints_and_comments_blanks_and_separators_are_ignored() {
        let text = format!("# keys\n\n  a:{K1} ,\r\n# old\nb:{K2}:1800000000,,\n c:{K1}\n");
        let ring = KeyRing::parse(&text).unwrap();
        assert_eq!(ring.minting_key_id(), "a");
        assert_eq!(ring.key_ids(), ["a", "b", "c"]);
        assert_eq!(ring.retired_at("b"), Some(1_800_000_000));
        assert_eq!(ring.retired_at("a"), None);
        assert_eq!(ring.retired_at("zz"), None);
    }

    #[test]
    fn malformed_entries_are_named_by_position_without_their_text() {
        let cases = [
            (K1.to_owned(), 1, EntryError::MissingId),
            (format!("a:{K1},{K2}"), 2, EntryError::MissingId),
            (format!("a:{K1},:{K2}"), 2, EntryError::InvalidId),
            (format!("a:{K1},b c:{K2}"), 2, EntryError::InvalidId),
            (
                format!("a:{K1}\n#x\nb:{K2},a:{K2}"),
                3,
                EntryError::DuplicateId { first: 1 },
            ),
            (format!("a:{K1},b:c2hvcnQ"), 2, EntryError::KeyTooShort(5)),
            (format!("a:{K1},b:!!{K2}"), 2, EntryError::KeyNotBase64),
            (format!("a:{K1},b:{K2}:soon"), 2, EntryError::BadRetireTime),
            (format!("a:{K1},b:{K2}:-1"), 2, EntryError::BadRetireTime),
            (format!("a:{K1},b:{K2}:"), 2, EntryError::BadRetireTime),
            (
                format!("a:{K1},b:{K2}:99999999999999999999"),
                2,
                EntryError::BadRetireTime,
            ),
            (format!("a:{K1},b:{K2}:1:2"), 2, EntryError::TooManyFields),
            (
                format!("a:{K1}:1800000000,b:{K2}"),
                1,
                EntryError::MintingKeyRetired,
            ),
        ];
        for (text, entry, problem) in cases {
            assert_eq!(entry_error(&text), (entry, problem.clone()), "{text:?}");
            let message = KeyRing::parse(&text).unwrap_err().to_string();
            assert!(message.contains(&format!("entry {entry}")), "{message}");
            for secret in [K1, K2, &K1[..8], &K2[..8]] {
                assert!(!message.contains(secret), "{message}");
            }
        }
        for empty in ["", " \n# only a comment\n, ,"] {
            assert_eq!(KeyRing::parse(empty).err(), Some(KeyError::EmptyRing));
        }
    }

    #[test]
    fn built_in_code_the_same_rules_hold() {
        let key = || SigningKey::from_base64(K1).unwrap();
        assert!(matches!(
            KeyRing::new("", key()),
            Err(KeyError::Entry {
                entry: 1,
                problem: EntryError::InvalidId
            })
        ));
        let ring = KeyRing::new("a", key()).unwrap();
        assert!(matches!(
            ring.clone().with_verifying_key("a", key()),
            Err(KeyError::Entry {
                entry: 2,
                problem: EntryError::DuplicateId { first: 1 }
            })
        ));
        assert!(matches!(
            ring.clone().with_verifying_key("x:y", key()),
            Err(KeyError::Entry {
                entry: 2,
                problem: EntryError::InvalidId
            })
        ));
        assert!(matches!(
            ring.clone().with_retired_at("a", 1),
            Err(KeyError::Entry {
                entry: 1,
                problem: EntryError::MintingKeyRetired
            })
        ));
        assert_eq!(
            ring.with_retired_at("b", 1).err(),
            Some(KeyError::UnknownKeyId("b".to_owned()))
        );
    }

    #[test]
    fn debug_shows_ids_only() {
        let ring = KeyRing::parse(&format!("new:{K1},old:{K2}:1800000000")).unwrap();
        let printed = format!("{ring:?}");
        assert!(
            printed.contains("\"new\"") && printed.contains("\"old\""),
            "{printed}"
        );
        assert!(printed.contains("1800000000"), "{printed}");
        assert!(
            !printed.contains("AQEB") && !printed.contains("1, 1"),
            "{printed}"
        );
    }
}
