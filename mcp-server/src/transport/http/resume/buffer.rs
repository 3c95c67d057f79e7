//! The replay buffer of one stream: its events, numbered in order, kept so that a client
//! that lost its connection can have them again, within a bound in bytes.
//!
//! - An event the client acknowledged (a resume naming it or a later event) is dropped.
//! - When the bound is reached, events already sent on a connection are dropped, oldest
//!   first; a resume from before them is then refused ([`Replay::resumable_after`]).
//! - Events never sent are never dropped for room: when they alone fill the bound, the
//!   buffer is full ([`Replay::make_room`] is false) and the producer waits (or gives up).
//! - An event larger than the bound, or one the session's or endpoint's budget has no room
//!   for, is never kept: it is handed to the connection serving the stream and forgotten
//!   once sent ([`Replay::pass`]), or, with no connection, not kept at all
//!   ([`Replay::lose`]). Either way a resume from before it is refused from then on, and
//!   the events before it, useless for a resume, are dropped with it.
//! - Every kept event holds its bytes in the session's and the endpoint's budget
//!   ([`Room`]), given back when it is dropped.

use std::collections::VecDeque;

use bytes::Bytes;

use super::budget::Room;

/// One event in the buffer.
#[derive(Debug)]
struct Entry {
    seq: u64,
    message: Bytes,
    /// The budgets' room the event holds; `None` for an event passed on without being kept.
    room: Option<Room>,
}

/// The kept events of one stream.
#[derive(Debug)]
pub(crate) struct Replay {
    events: VecDeque<Entry>,
    /// Bytes of kept events (passed ones not counted).
    bytes: usize,
    limit: usize,
    /// The number the next event gets (0 is the priming event, never stored).
    next: u64,
    /// The highest event sent on some connection.
    sent: u64,
    /// Every event after this one is still kept (those up to it were acknowledged, dropped
    /// for room, or passed on without being kept).
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

    /// Whether an event of `len` bytes can ever be kept here.
    pub(crate) fn can_keep(&self, len: usize) -> bool {
        len <= self.limit
    }

    /// Makes room for an event of `len` bytes by dropping sent events; whether it fits.
    pub(crate) fn make_room(&mut self, len: usize) -> bool {
        while self.bytes.saturating_add(len) > self.limit {
            match self.events.front() {
                Some(entry) if entry.seq <= self.sent => self.drop_front(),
                _ => break,
            }
        }
        self.bytes.saturating_add(len) <= self.limit
    }

    /// Keeps an event (after [`Replay::make_room`]) in the `room` it holds; its number.
    pub(crate) fn push(&mut self, message: Bytes, room: Room) -> u64 {
        self.bytes += message.len();
        self.append(message, Some(room))
    }

    /// Appends an event that is not kept: it waits for the connection serving the stream,
    /// and is dropped once sent, or when that connection goes ([`Replay::drop_passed`]); its
    /// number.
    pub(crate) fn pass(&mut self, message: Bytes) -> u64 {
        self.append(message, None)
    }

    /// Numbers an event that is not kept at all (no connection would take it): the events
    /// before it are dropped, and a resume from before it is refused; its number.
    pub(crate) fn lose(&mut self) -> u64 {
        let seq = self.next;
        self.next += 1;
        self.drop_through(seq);
        seq
    }

    /// Drops every event: the stream is released, nothing of it is kept from now on.
    pub(crate) fn release(&mut self) {
        self.drop_through(self.next - 1);
    }

    fn append(&mut self, message: Bytes, room: Option<Room>) -> u64 {
        let seq = self.next;
        self.next += 1;
        self.events.push_back(Entry { seq, message, room });
        seq
    }

    /// Whether a passed event still waits for its connection (the producer then waits too,
    /// so that at most one event per stream is held without being kept).
    pub(crate) fn passing(&self) -> bool {
        self.events.back().is_some_and(|entry| entry.room.is_none())
    }

    /// The connection a passed event waited for is gone: the event is dropped, with those
    /// before it.
    pub(crate) fn drop_passed(&mut self) {
        if let Some(seq) = self.passed() {
            self.drop_through(seq);
        }
    }

    fn passed(&self) -> Option<u64> {
        self.events
            .iter()
            .rev()
            .find(|entry| entry.room.is_none())
            .map(|entry| entry.seq)
    }

    /// The number of the last event pushed (0 before any).
    pub(crate) fn last(&self) -> u64 {
        self.next - 1
    }

    /// The first kept event after `seq`. Kept events are numbered without gaps, so it is
    /// found by its place.
    pub(crate) fn after(&self, seq: u64) -> Option<(u64, Bytes)> {
        let first = self.events.front()?.seq;
        let index = usize::try_from(seq.saturating_add(1).saturating_sub(first)).ok()?;
        self.events
            .get(index)
            .map(|entry| (entry.seq, entry.message.clone()))
    }

    /// Records that the events up to `seq` went out on a connection; a passed one among
    /// them is dropped, with those before it.
    pub(crate) fn mark_sent(&mut self, seq: u64) {
        self.sent = self.sent.max(seq);
        if let Some(passed) = self.passed().filter(|&passed| passed <= self.sent) {
            self.drop_through(passed);
        }
    }

    /// Whether a client that has every event up to `seq` can get all the later ones: `seq`
    /// was minted, and nothing after it was dropped.
    pub(crate) fn resumable_after(&self, seq: u64) -> bool {
        seq >= self.floor && seq < self.next
    }

    /// Drops the events up to `seq`, which the client says it has.
    pub(crate) fn acknowledge(&mut self, seq: u64) {
        while self.events.front().is_some_and(|entry| entry.seq <= seq) {
            self.drop_front();
        }
        self.floor = self.floor.max(seq);
        self.sent = self.sent.max(seq);
    }

    /// How many bytes of events are kept.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Drops the events up to `seq`: a resume from before it is refused from now on.
    fn drop_through(&mut self, seq: u64) {
        while self.events.front().is_some_and(|entry| entry.seq <= seq) {
            self.drop_front();
        }
        self.floor = self.floor.max(seq);
    }

    fn drop_front(&mut self) {
        if let Some(entry) = self.events.pop_front() {
            if entry.room.is_some() {
                self.bytes -= entry.message.len();
            }
            self.floor = self.floor.max(entry.seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::budget::ByteBudget;
    use super::*;

    fn event(len: usize) -> Bytes {
        Bytes::from(vec![b'x'; len])
    }

    /// Room in an ample budget.
    fn room(budget: &Arc<ByteBudget>, len: usize) -> Room {
        Room::reserve([(budget, 0), (budget, 0)], len).expect("room")
    }

    fn keep(replay: &mut Replay, budget: &Arc<ByteBudget>, len: usize) -> u64 {
        assert!(replay.make_room(len));
        replay.push(event(len), room(budget, len))
    }

    #[test]
    fn events_are_numbered_from_one_and_read_in_order() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(100);
        assert_eq!(keep(&mut replay, &budget, 10), 1);
        assert_eq!(keep(&mut replay, &budget, 10), 2);
        assert_eq!(replay.after(0).map(|(seq, _)| seq), Some(1));
        assert_eq!(replay.after(1).map(|(seq, _)| seq), Some(2));
        assert_eq!(replay.after(2), None);
        assert!(replay.resumable_after(0) && replay.resumable_after(2));
        assert!(!replay.resumable_after(3), "an id never minted");
    }

    #[test]
    fn unsent_events_are_never_dropped_for_room() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(25);
        keep(&mut replay, &budget, 10);
        keep(&mut replay, &budget, 10);
        assert!(!replay.make_room(10), "full of unsent events");
        assert_eq!(replay.bytes(), 20);
        replay.mark_sent(1);
        keep(&mut replay, &budget, 10);
        assert_eq!(replay.bytes(), 20);
        assert_eq!(
            budget.used(),
            2 * 20,
            "the dropped event gave its room back"
        );
        assert!(!replay.resumable_after(0), "event 1 was dropped");
        assert!(replay.resumable_after(1));
    }

    #[test]
    fn an_event_over_the_bound_is_never_kept_even_in_an_empty_buffer() {
        let mut replay = Replay::new(4);
        assert!(!replay.can_keep(100));
        assert!(!replay.make_room(100));
        assert_eq!(replay.bytes(), 0);
    }

    #[test]
    fn a_passed_event_is_sent_once_then_forgotten_with_what_came_before() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(100);
        keep(&mut replay, &budget, 10);
        replay.mark_sent(1);
        assert_eq!(replay.pass(event(500)), 2);
        assert!(replay.passing());
        assert_eq!(replay.bytes(), 10, "a passed event is not counted");
        assert_eq!(
            replay.after(1).map(|(seq, m)| (seq, m.len())),
            Some((2, 500))
        );
        replay.mark_sent(2);
        assert!(!replay.passing());
        assert_eq!((replay.bytes(), budget.used()), (0, 0));
        assert!(
            !replay.resumable_after(1),
            "a resume would need the passed event"
        );
        assert!(replay.resumable_after(2));
        assert_eq!(keep(&mut replay, &budget, 10), 3, "and the stream goes on");
    }

    #[test]
    fn a_passed_event_whose_connection_went_is_dropped() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(100);
        keep(&mut replay, &budget, 10);
        replay.pass(event(500));
        replay.drop_passed();
        assert!(!replay.passing());
        assert_eq!(replay.after(0), None);
        assert_eq!(budget.used(), 0);
        assert!(!replay.resumable_after(0) && !replay.resumable_after(1));
    }

    #[test]
    fn a_lost_event_drops_what_came_before_and_refuses_resumes_from_before_it() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(100);
        keep(&mut replay, &budget, 10);
        keep(&mut replay, &budget, 10);
        assert_eq!(replay.lose(), 3);
        assert_eq!((replay.bytes(), budget.used()), (0, 0));
        assert!(!replay.resumable_after(0) && !replay.resumable_after(2));
        assert_eq!(keep(&mut replay, &budget, 10), 4);
        assert!(
            replay.resumable_after(3),
            "after the lost event, the stream resumes"
        );
    }

    #[test]
    fn a_release_drops_everything() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(100);
        keep(&mut replay, &budget, 10);
        keep(&mut replay, &budget, 10);
        replay.release();
        assert_eq!((replay.bytes(), budget.used()), (0, 0));
        assert!(!replay.resumable_after(0) && !replay.resumable_after(1));
    }

    #[test]
    fn acknowledged_events_are_dropped() {
        let budget = ByteBudget::new(1 << 20);
        let mut replay = Replay::new(100);
        for _ in 0..3 {
            keep(&mut replay, &budget, 5);
        }
        replay.acknowledge(2);
        assert_eq!(replay.bytes(), 5);
        assert_eq!(budget.used(), 2 * 5);
        assert_eq!(replay.after(0).map(|(seq, _)| seq), Some(3));
        assert!(!replay.resumable_after(1));
        assert!(replay.resumable_after(2));
    }
}
