//! The 2025-11-25 sessions of one HTTP endpoint, by `Mcp-Session-Id`: bounded in number,
//! expired after a configurable idle time (checked whenever the table is used), and ended by
//! `DELETE`. Modern (2026-07-28) requests never get or need one.
//!
//! Behind an authentication layer, a session belongs to the subject that opened it: another
//! caller presenting its id finds no session (404).
//!
//! Each session also counts against the caller that opened it ([`Caller`]: the subject, else
//! the peer address): a caller holds at most [`HttpConfig::max_sessions_per_caller`]
//! sessions, so one client cannot take the whole table.
//!
//! Idle sessions give way to new ones before anyone is refused. A session can give way when
//! no exchange uses it (no request of it in flight, no open stream of it: see [`InUse`]) and
//! it has been unused for at least [`HttpConfig::session_min_idle`]; the one ended is then
//! forgotten, its id gets 404, and its client starts a new session.
//! - A caller at its share: its own session unused longest gives way; if none can, the new
//!   session is refused ([`Full::CallerShare`], 429).
//! - The table full: the session unused longest of the caller holding the most sessions
//!   gives way (so a client that opened many loses its own first, not a client with one);
//!   if none can, the new session is refused ([`Full::TooMany`], 503).
//!
//! With a shared store ([`super::session_store`]) the table is this instance's part of the
//! store's sessions: those opened here and those it [adopted](Sessions::adopt) when one of
//! their requests landed here; the store decides expiry then ([`Expiry::Store`]).
//!
//! Each session keeps its resumable SSE streams ([`super::resume`]) beside it; they go with
//! it when it ends.
//!
//! [`HttpConfig::max_sessions_per_caller`]: super::HttpConfig::max_sessions_per_caller
//! [`HttpConfig::session_min_idle`]: super::HttpConfig::session_min_idle

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use typemcp_core::protocol::new_session_id;

use super::resume::{self, Streams};
use crate::caller::Caller;
use crate::session::Session;

/// Why a session could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every slot is taken by a session that cannot give way.
    TooMany,
    /// The caller holds this many sessions, its share, and none of them can give way.
    CallerShare(usize),
    /// The system random source failed: no id can be minted.
    NoRandomness,
    /// The shared session store failed (the reason is in the log).
    Unavailable,
}

/// The bounds of the session table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The most sessions at once.
    pub(crate) max: usize,
    /// The most sessions of one caller at once.
    pub(crate) per_caller: usize,
    /// How long a session may stay unused before it expires.
    pub(crate) idle: Duration,
    /// How long a session must have been unused before it may give way to a new one.
    pub(crate) min_idle: Duration,
}

/// Who decides that a session expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expiry {
    /// This table: the session's last use here.
    Local,
    /// A shared store (the session may be in use on other instances).
    Store,
}

/// A stored session, its streams, the authenticated subject that opened it, and the caller
/// it counts against.
#[derive(Debug)]
struct Entry {
    live: Live,
    owner: Option<String>,
    caller: Caller,
}

/// A live session and its resumable streams.
#[derive(Debug, Clone)]
pub(crate) struct Live {
    pub(crate) session: Arc<Session>,
    pub(crate) streams: Arc<Streams>,
    /// How many exchanges use the session now.
    users: Arc<AtomicUsize>,
    /// When a shared store last confirmed the session (`None`: never, or since told that
    /// it changed).
    verified: Arc<Mutex<Option<Instant>>>,
}

impl Live {
    /// Whether a shared store confirmed the session within `period`.
    pub(crate) fn verified_within(&self, period: Duration) -> bool {
        let verified = *self.verified.lock().unwrap_or_else(PoisonError::into_inner);
        verified.is_some_and(|at| at.elapsed() < period)
    }

    /// A shared store confirmed the session now.
    pub(crate) fn mark_verified(&self) {
        *self.verified.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }
}

/// A session found for one exchange, marked in use until dropped: while any exchange uses
/// it, it does not give way to new sessions. Taken under the table's lock, so that a session
/// is never ended to make room between being found and being used.
#[derive(Debug)]
pub(crate) struct InUse(Live);

impl InUse {
    fn new(live: &Live) -> Self {
        live.users.fetch_add(1, Ordering::AcqRel);
        Self(live.clone())
    }
}

impl Deref for InUse {
    type Target = Live;

    fn deref(&self) -> &Live {
        &self.0
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.users.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The session table.
#[derive(Debug)]
pub(crate) struct Sessions {
    table: Mutex<HashMap<String, Entry>>,
    limits: Limits,
    streams: resume::Settings,
    expiry: Expiry,
}

impl Sessions {
    /// A table within `limits`, its sessions' streams kept as `streams` say, and expired
    /// as `expiry` says.
    pub(crate) fn new(limits: Limits, streams: resume::Settings, expiry: Expiry) -> Self {
        Self {
            table: Mutex::default(),
            limits,
            streams,
            expiry,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn expired(&self, session: &Session) -> bool {
        session.last_used().elapsed() > self.limits.idle
    }

    /// Whether the session may be ended to make room: nothing uses it, and it has been
    /// unused for the minimum idle time.
    fn can_give_way(&self, entry: &Entry) -> bool {
        entry.live.users.load(Ordering::Acquire) == 0
            && entry.live.session.last_used().elapsed() >= self.limits.min_idle
    }

    /// The live session named `id`, if `owner` opened it, marked in use; an expired one is
    /// ended and forgotten.
    pub(crate) fn get(&self, id: &str, owner: Option<&str>) -> Option<InUse> {
        let mut table = self.lock();
        let entry = table.get(id)?;
        if self.expiry == Expiry::Local && self.expired(&entry.live.session) {
            if let Some(entry) = table.remove(id) {
                entry.live.session.close();
            }
            return None;
        }
        (entry.owner.as_deref() == owner).then(|| InUse::new(&entry.live))
    }

    /// Stores a new session of `owner`, counted against `caller`, under a fresh id: after
    /// dropping expired ones, and ending one that can give way when the caller is at its
    /// share or the table is full (see the module documentation).
    pub(crate) fn insert(
        &self,
        session: Arc<Session>,
        owner: Option<String>,
        caller: Caller,
    ) -> Result<String, Full> {
        let id = new_session_id().ok_or(Full::NoRandomness)?;
        self.insert_as(&id, session, owner, caller)?;
        Ok(id)
    }

    /// Stores, under the id another instance minted, a session a shared store holds, and
    /// marks it in use; as [`insert`](Self::insert) otherwise. If a concurrent request
    /// adopted it first, that session is the one used (and `session` is closed).
    pub(crate) fn adopt(
        &self,
        id: &str,
        session: Arc<Session>,
        owner: Option<String>,
        caller: Caller,
    ) -> Result<InUse, Full> {
        let live = self.insert_as(id, session, owner, caller)?;
        Ok(InUse::new(&live))
    }

    /// The live session named `id` here (its streams too), whoever opened it.
    pub(crate) fn peek_live(&self, id: &str) -> Option<Live> {
        self.lock().get(id).map(|entry| entry.live.clone())
    }

    /// The ids of the sessions in use here (a request in flight, an open stream) that a
    /// shared store has not confirmed within `period`.
    pub(crate) fn in_use_unverified(&self, period: Duration) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, entry)| entry.live.users.load(Ordering::Acquire) > 0)
            .filter(|(_, entry)| !entry.live.verified_within(period))
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// A shared store confirmed the session named `id` now, as `record` says.
    pub(crate) fn confirm(&self, id: &str, record: &crate::session::Record) {
        if let Some(entry) = self.lock().get(id) {
            entry.live.session.refresh(record);
            entry.live.mark_verified();
        }
    }

    /// Ends the session named `id` here, whoever opened it (another instance ended it).
    pub(crate) fn end(&self, id: &str) {
        if let Some(entry) = self.lock().remove(id) {
            entry.live.session.close();
        }
    }

    /// Forgets when a shared store last confirmed the session named `id` (it changed on
    /// another instance): its next exchange here reads it again.
    pub(crate) fn invalidate(&self, id: &str) {
        if let Some(entry) = self.lock().get(id) {
            *entry
                .live
                .verified
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = None;
        }
    }

    /// The session named `id` here, whoever opened it (for messages other instances forward,
    /// whose owner they checked).
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        self.lock()
            .get(id)
            .map(|entry| Arc::clone(&entry.live.session))
    }

    fn insert_as(
        &self,
        id: &str,
        session: Arc<Session>,
        owner: Option<String>,
        caller: Caller,
    ) -> Result<Live, Full> {
        let mut table = self.lock();
        // Adopted meanwhile by a concurrent request: that one is the session here.
        if let Some(entry) = table.get(id) {
            session.close();
            return Ok(entry.live.clone());
        }
        table.retain(|_, entry| {
            // A shared session in use here stays, however long since its last request here
            // (its requests may go to other instances).
            let in_use =
                self.expiry == Expiry::Store && entry.live.users.load(Ordering::Acquire) > 0;
            let keep = in_use || !self.expired(&entry.live.session);
            if !keep {
                entry.live.session.close();
            }
            keep
        });
        let held = table
            .values()
            .filter(|entry| entry.caller == caller)
            .count();
        let make_room = if held >= self.limits.per_caller {
            Some(
                self.own_to_give_way(&table, &caller)
                    .ok_or(Full::CallerShare(self.limits.per_caller))?,
            )
        } else if table.len() >= self.limits.max {
            Some(self.any_to_give_way(&table).ok_or(Full::TooMany)?)
        } else {
            None
        };
        if let Some(ended) = make_room.and_then(|id| table.remove(&id)) {
            tracing::info!(
                caller = %ended.caller,
                "an idle session gave way to a new one (its id now gets 404)"
            );
            ended.live.session.close();
        }
        let streams = Streams::new(id, &session, self.streams.clone());
        let users = Arc::default();
        let live = Live {
            session,
            streams,
            users,
            verified: Arc::default(),
        };
        table.insert(
            id.to_owned(),
            Entry {
                live: live.clone(),
                owner,
                caller,
            },
        );
        Ok(live)
    }

    /// The id of `caller`'s session unused longest that can give way.
    fn own_to_give_way(&self, table: &HashMap<String, Entry>, caller: &Caller) -> Option<String> {
        table
            .iter()
            .filter(|(_, entry)| entry.caller == *caller && self.can_give_way(entry))
            .min_by_key(|(_, entry)| entry.live.session.last_used())
            .map(|(id, _)| id.clone())
    }

    /// The id of the session that gives way when the table is full: of those that can, the
    /// one unused longest of the caller holding the most sessions.
    fn any_to_give_way(&self, table: &HashMap<String, Entry>) -> Option<String> {
        let mut holding: HashMap<&Caller, usize> = HashMap::new();
        for entry in table.values() {
            *holding.entry(&entry.caller).or_default() += 1;
        }
        table
            .iter()
            .filter(|(_, entry)| self.can_give_way(entry))
            .max_by_key(|(_, entry)| {
                let count = holding.get(&entry.caller).copied().unwrap_or(0);
                (count, std::cmp::Reverse(entry.live.session.last_used()))
            })
            .map(|(id, _)| id.clone())
    }

    /// Ends the session named `id` if `owner` opened it; returns whether it was there.
    pub(crate) fn remove(&self, id: &str, owner: Option<&str>) -> bool {
        let mut table = self.lock();
        if table
            .get(id)
            .is_none_or(|entry| entry.owner.as_deref() != owner)
        {
            return false;
        }
        table
            .remove(id)
            .inspect(|entry| entry.live.session.close())
            .is_some()
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        for entry in self.lock().values() {
            entry.live.session.close();
        }
    }
}
