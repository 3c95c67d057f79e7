//! The replay buffer of one stream: its events, numbered in order, kept so that a client
//! that lost its connection can have them again, within a bound in bytes.
//!
//! - An event the client acknowledged (a resume naming it or a later event) is dropped.
//! - When the bound is reached, events already sent on a connection are dropped, oldest
//!   first; a resume from before them is then refused ([`Replay::resumable_after`]).
//! - Events never sent are never dropped: when they alone fill the bound, the buffer is
//!   full ([`Replay::make_room`] is false) and the producer waits (or gives up).
//!   One event is always admitted into an empty buffer, however large.

use std::collections::VecDeque;

use bytes::Bytes;

/// The kept events of one stream.
#[derive(Debug)]
pub(crate) struct Replay {
    events: VecDeque<(u64, Bytes)>,
    bytes: usize,
    limit: usize,
    /// The number the next event gets (0 is the priming event, never stored).
    next: u64,
    /// The highest event sent on some connection.
    sent: u64,
    /// Every event after this one is still kept (those up to it were acknowledged or
    /// dropped for room).
    floor: u64,
}

impl Replay {
    /// An empty buffer holding at most `limit` bytes of events.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            events: VecDeque::new(),
            bytes: 0,
            limit,
            next: 1,
            sent: 0,
            floor: 0,
        }
    }

    /// Makes room for an event of `len` bytes by dropping sent events; whether it fits.
    pub(crate) fn make_room(&mut self, len: usize) -> bool {
        while self.bytes.saturating_add(len) > self.limit {
            match self.events.front() {
                Some(&(seq, _)) if seq <= self.sent => self.drop_front(),
                _ => break,
            }
        }
        self.events.is_empty() || self.bytes.saturating_add(len) <= self.limit
    }

    /// Appends an event (after [`Replay::make_room`]); returns its number.
    pub(crate) fn push(&mut self, message: Bytes) -> u64 {
        let seq = self.next;
        self.next += 1;
        self.bytes += message.len();
        self.events.push_back((seq, message));
        seq
    }

    /// The number of the last event pushed (0 before any).
    pub(crate) fn last(&self) -> u64 {
        self.next - 1
    }

    /// The first kept event after `seq`. Kept events are numbered without gaps, so it is
    /// found by its place.
    pub(crate) fn after(&self, seq: u64) -> Option<(u64, Bytes)> {
        let &(first, _) = self.events.front()?;
        let index = usize::try_from(seq.saturating_add(1).saturating_sub(first)).ok()?;
        self.events
            .get(index)
            .map(|(kept, message)| (*kept, message.clone()))
    }

    /// Records that the events up to `seq` went out on a connection.
    pub(crate) fn mark_sent(&mut self, seq: u64) {
        self.sent = self.sent.max(seq);
    }

    /// Whether a client that has every event up to `seq` can get all the later ones: `seq`
    /// was minted, and nothing after it was dropped.
    pub(crate) fn resumable_after(&self, seq: u64) -> bool {
        seq >= self.floor && seq < self.next
    }

    /// Drops the events up to `seq`, which the client says it has.
    pub(crate) fn acknowledge(&mut self, seq: u64) {
        while self.events.front().is_some_and(|&(kept, _)| kept <= seq) {
            self.drop_front();
        }
        self.floor = self.floor.max(seq);
        self.sent = self.sent.max(seq);
    }

    /// How many bytes of events are kept.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    fn drop_front(&mut self) {
        if let Some((seq, message)) = self.events.pop_front() {
            self.bytes -= message.len();
            self.floor = self.floor.max(seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(len: usize) -> Bytes {
        Bytes::from(vec![b'x'; len])
    }

    #[test]
    fn events_are_numbered_from_one_and_read_in_order() {
        let mut replay = Replay::new(100);
        assert!(replay.make_room(10));
        assert_eq!(replay.push(event(10)), 1);
        assert_eq!(replay.push(event(10)), 2);
        assert_eq!(replay.after(0).map(|(seq, _)| seq), Some(1));
        assert_eq!(replay.after(1).map(|(seq, _)| seq), Some(2));
        assert_eq!(replay.after(2), None);
        assert!(replay.resumable_after(0) && replay.resumable_after(2));
        assert!(!replay.resumable_after(3), "an id never minted");
    }

    #[test]
    fn unsent_events_are_never_dropped_for_room() {
        let mut replay = Replay::new(25);
        assert!(replay.make_room(10));
        replay.push(event(10));
        assert!(replay.make_room(10));
        replay.push(event(10));
        assert!(!replay.make_room(10), "full of unsent events");
        assert_eq!(replay.bytes(), 20);
        replay.mark_sent(1);
        assert!(replay.make_room(10), "the sent event makes room");
        replay.push(event(10));
        assert_eq!(replay.bytes(), 20);
        assert!(!replay.resumable_after(0), "event 1 was dropped");
        assert!(replay.resumable_after(1));
    }

    #[test]
    fn one_oversized_event_fits_an_empty_buffer() {
        let mut replay = Replay::new(4);
        assert!(replay.make_room(100));
        replay.push(event(100));
        assert!(!replay.make_room(1));
    }

    #[test]
    fn acknowledged_events_are_dropped() {
        let mut replay = Replay::new(100);
        for _ in 0..3 {
            replay.push(event(5));
        }
        replay.acknowledge(2);
        assert_eq!(replay.bytes(), 5);
        assert_eq!(replay.after(0).map(|(seq, _)| seq), Some(3));
        assert!(!replay.resumable_after(1));
        assert!(replay.resumable_after(2));
    }
}
