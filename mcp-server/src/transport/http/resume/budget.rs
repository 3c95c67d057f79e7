//! The byte budgets that the replay buffers of an endpoint share: one per session and one for
//! the whole endpoint ([`HttpConfig::replay_bytes_per_session`] and
//! [`HttpConfig::replay_bytes_total`]).
//!
//! Every event kept for replay holds its bytes in both budgets ([`Room`], given back when the
//! event is dropped). When a budget is short, the streams holding its bytes give theirs back,
//! oldest first, if their client is gone ([`Release`]): what a client left behind gives way
//! to what a client is reading. When nothing can be released, the event is not kept.
//!
//! [`HttpConfig::replay_bytes_per_session`]: crate::transport::http::HttpConfig::replay_bytes_per_session
//! [`HttpConfig::replay_bytes_total`]: crate::transport::http::HttpConfig::replay_bytes_total

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

/// Something holding bytes of a budget that it can give back all at once.
pub(crate) trait Release: Send + Sync {
    /// Gives back every byte held, unless a client is there to read them; whether any were.
    fn release(&self) -> bool;
}

/// A number of bytes shared by holders, who are asked to give theirs back, oldest first,
/// when another needs the room.
#[derive(Debug)]
pub(crate) struct ByteBudget {
    limit: usize,
    used: AtomicUsize,
    next_key: AtomicU64,
    /// Every holder, by age (keys increase).
    holders: Mutex<BTreeMap<u64, Weak<dyn Release>>>,
}

impl ByteBudget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            used: AtomicUsize::new(0),
            next_key: AtomicU64::new(0),
            holders: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Weak<dyn Release>>> {
        self.holders.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Enlists a holder, younger than every one before; its key.
    pub(crate) fn enlist(&self, holder: Weak<dyn Release>) -> u64 {
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(key, holder);
        key
    }

    /// Forgets the holder of `key` (it is going away).
    pub(crate) fn dismiss(&self, key: u64) {
        self.lock().remove(&key);
    }

    /// How many bytes are held.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    fn try_take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .is_ok()
    }

    fn give(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Asks the holders other than `except`, oldest first, to give their bytes back, until one
    /// does; whether one did.
    fn release_oldest(&self, except: u64) -> bool {
        // Not under the lock: a release drops events, whose holder may go away meanwhile.
        let holders: Vec<(u64, Weak<dyn Release>)> = self
            .lock()
            .iter()
            .filter(|&(&key, _)| key != except)
            .map(|(&key, holder)| (key, Weak::clone(holder)))
            .collect();
        for (key, holder) in holders {
            match holder.upgrade() {
                Some(holder) if holder.release() => return true,
                Some(_) => {}
                None => self.dismiss(key),
            }
        }
        false
    }
}

/// A claim on a budget: the budget, and the key of the holder claiming.
pub(crate) type Claim<'a> = (&'a Arc<ByteBudget>, u64);

/// Bytes held in two budgets (a session's and the endpoint's), given back when dropped.
#[derive(Debug)]
pub(crate) struct Room {
    budgets: [Arc<ByteBudget>; 2],
    bytes: usize,
}

impl Room {
    /// Room for `bytes` in both budgets, made if need be by releasing other holders, oldest
    /// first; `None` when it cannot be made (then nothing is held, and nothing was released
    /// for an amount larger than a budget).
    pub(crate) fn reserve(claims: [Claim<'_>; 2], bytes: usize) -> Option<Self> {
        if claims.iter().any(|(budget, _)| bytes > budget.limit) {
            return None;
        }
        loop {
            let short = claims
                .iter()
                .position(|(budget, _)| !budget.try_take(bytes));
            let Some(short) = short else {
                let budgets = claims.map(|(budget, _)| Arc::clone(budget));
                return Some(Self { budgets, bytes });
            };
            for (budget, _) in &claims[..short] {
                budget.give(bytes);
            }
            let (budget, key) = claims[short];
            if !budget.release_oldest(key) {
                return None;
            }
        }
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        for budget in &self.budgets {
            budget.give(self.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;

    /// A holder of one room, releasable unless `attached`.
    #[derive(Default)]
    struct Holder {
        room: Mutex<Option<Room>>,
        attached: AtomicBool,
    }

    impl Release for Holder {
        fn release(&self) -> bool {
            if self.attached.load(Ordering::SeqCst) {
                return false;
            }
            self.room
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .is_some()
        }
    }

    fn holder(budgets: [&Arc<ByteBudget>; 2]) -> (Arc<Holder>, [u64; 2]) {
        let holder = Arc::new(Holder::default());
        let weak = Arc::downgrade(&holder) as Weak<dyn Release>;
        let keys = budgets.map(|budget| budget.enlist(Weak::clone(&weak)));
        (holder, keys)
    }

    fn hold(holder: &Holder, budgets: [&Arc<ByteBudget>; 2], keys: [u64; 2], bytes: usize) -> bool {
        let room = Room::reserve([(budgets[0], keys[0]), (budgets[1], keys[1])], bytes);
        let held = room.is_some();
        *holder.room.lock().unwrap_or_else(PoisonError::into_inner) = room;
        held
    }

    #[test]
    fn room_is_held_in_both_budgets_and_given_back_on_drop() {
        let (session, endpoint) = (ByteBudget::new(100), ByteBudget::new(1000));
        let room = Room::reserve([(&session, 0), (&endpoint, 0)], 60);
        assert!(room.is_some());
        assert_eq!((session.used(), endpoint.used()), (60, 60));
        assert!(
            Room::reserve([(&session, 0), (&endpoint, 0)], 50).is_none(),
            "over the session's budget, with nothing to release"
        );
        assert_eq!(
            (session.used(), endpoint.used()),
            (60, 60),
            "nothing half-held"
        );
        drop(room);
        assert_eq!((session.used(), endpoint.used()), (0, 0));
    }

    #[test]
    fn a_short_budget_releases_the_oldest_holder_whose_client_is_gone() {
        let (a, b, endpoint) = (
            ByteBudget::new(100),
            ByteBudget::new(100),
            ByteBudget::new(100),
        );
        let (oldest, oldest_keys) = holder([&a, &endpoint]);
        let (attached, attached_keys) = holder([&b, &endpoint]);
        let (newer, newer_keys) = holder([&a, &endpoint]);
        assert!(hold(&oldest, [&a, &endpoint], oldest_keys, 30));
        assert!(hold(&attached, [&b, &endpoint], attached_keys, 30));
        attached.attached.store(true, Ordering::SeqCst);
        assert!(hold(&newer, [&a, &endpoint], newer_keys, 30));
        assert_eq!(endpoint.used(), 90);

        // A newcomer of session b needs 40 more of the endpoint's 100: the oldest detached holder
        // (of another session) gives its 30 back; the attached one keeps its bytes.
        let (newcomer, keys) = holder([&b, &endpoint]);
        assert!(hold(&newcomer, [&b, &endpoint], keys, 40));
        assert!(
            oldest
                .room
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_none()
        );
        assert!(
            attached
                .room
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some()
        );
        assert!(
            newer
                .room
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some()
        );
        assert_eq!((a.used(), b.used(), endpoint.used()), (30, 70, 100));
    }

    #[test]
    fn room_beyond_a_whole_budget_releases_nothing() {
        let (session, endpoint) = (ByteBudget::new(100), ByteBudget::new(1000));
        let (kept, keys) = holder([&session, &endpoint]);
        assert!(hold(&kept, [&session, &endpoint], keys, 80));
        let (other, other_keys) = holder([&session, &endpoint]);
        assert!(!hold(&other, [&session, &endpoint], other_keys, 101));
        assert_eq!(
            session.used(),
            80,
            "the kept holder was not released for nothing"
        );
    }

    #[test]
    fn when_every_holder_is_attached_the_room_is_refused() {
        let (session, endpoint) = (ByteBudget::new(100), ByteBudget::new(100));
        let (reading, keys) = holder([&session, &endpoint]);
        assert!(hold(&reading, [&session, &endpoint], keys, 90));
        reading.attached.store(true, Ordering::SeqCst);
        let (other, other_keys) = holder([&session, &endpoint]);
        assert!(!hold(&other, [&session, &endpoint], other_keys, 20));
        assert_eq!((session.used(), endpoint.used()), (90, 90));
    }

    #[test]
    fn holders_that_went_away_are_dismissed() {
        let budget = ByteBudget::new(10);
        let (gone, _) = holder([&budget, &ByteBudget::new(10)]);
        drop(gone);
        assert!(!budget.release_oldest(u64::MAX));
        assert!(budget.lock().is_empty());
    }
}
