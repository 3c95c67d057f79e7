//! SSE event ids of a 2025-11-25 session: `<session tag>.<stream>.<sequence>`.
//!
//! The tag is derived from the session id (the first 8 bytes of its SHA-256, in hex), so an
//! id names the session that minted it without revealing the session id; the stream number
//! is unique within the session, and the sequence counts that stream's events (0 is the
//! priming event, which carries no message). Ids are therefore unique across every stream
//! of the session, and a `Last-Event-ID` is a cursor into exactly one stream.

use sha2::{Digest, Sha256};

/// The part of every event id that names its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tag(String);

impl Tag {
    /// The tag of the session named `session_id`.
    pub(crate) fn of_session(session_id: &str) -> Self {
        let digest = Sha256::digest(session_id.as_bytes());
        Self(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
    }
}

/// One event of one stream of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventId {
    /// The stream, numbered from 1 within the session.
    pub(crate) stream: u64,
    /// The event within the stream; 0 is the priming event.
    pub(crate) seq: u64,
}

/// Why a `Last-Event-ID` names no event of this session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadEventId {
    /// Not an event id this server mints.
    Malformed,
    /// Minted for another session.
    OtherSession,
}

impl EventId {
    /// The id as sent in the `id` field of an event of the session tagged `tag`.
    pub(crate) fn render(self, tag: &Tag) -> String {
        format!("{}.{}.{}", tag.0, self.stream, self.seq)
    }

    /// Reads a `Last-Event-ID` sent on the session tagged `tag`.
    pub(crate) fn parse(text: &str, tag: &Tag) -> Result<Self, BadEventId> {
        let mut parts = text.trim().split('.');
        let (Some(their_tag), Some(stream), Some(seq), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(BadEventId::Malformed);
        };
        let number = |digits: &str| {
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(BadEventId::Malformed);
            }
            digits.parse::<u64>().map_err(|_| BadEventId::Malformed)
        };
        let id = Self {
            stream: number(stream)?,
            seq: number(seq)?,
        };
        let well_formed_tag =
            their_tag.len() == tag.0.len() && their_tag.bytes().all(|b| b.is_ascii_hexdigit());
        if !well_formed_tag {
            return Err(BadEventId::Malformed);
        }
        if their_tag != tag.0 {
            return Err(BadEventId::OtherSession);
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_name_their_session() {
        let tag = Tag::of_session("session-a");
        let id = EventId { stream: 3, seq: 17 };
        let text = id.render(&tag);
        assert_eq!(text.split('.').count(), 3, "{text}");
        assert_eq!(EventId::parse(&text, &tag), Ok(id));
        assert_eq!(EventId::parse(&format!(" {text} "), &tag), Ok(id));
        let other = Tag::of_session("session-b");
        assert_ne!(tag, other);
        assert_eq!(EventId::parse(&text, &other), Err(BadEventId::OtherSession));
    }

    #[test]
    fn garbled_ids_are_malformed() {
        let tag = Tag::of_session("s");
        let good = EventId { stream: 1, seq: 0 }.render(&tag);
        let prefix = good.split('.').next().unwrap_or_default().to_owned();
        for garbled in [
            String::new(),
            "1".to_owned(),
            "a.b.c".to_owned(),
            format!("{prefix}.1"),
            format!("{prefix}.1.2.3"),
            format!("{prefix}.-1.2"),
            format!("{prefix}.+1.2"),
            format!("{prefix}.1."),
            format!("{prefix}.1.99999999999999999999999"),
            format!("{prefix}x.1.2"),
            format!("{}.1.2", "z".repeat(prefix.len())),
            "é.1.2".to_owned(),
        ] {
            assert_eq!(
                EventId::parse(&garbled, &tag),
                Err(BadEventId::Malformed),
                "{garbled:?}"
            );
        }
    }
}
