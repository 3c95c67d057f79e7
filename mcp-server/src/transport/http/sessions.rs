//! The 2025-11-25 sessions of one HTTP endpoint, by `Mcp-Session-Id`: bounded in number,
//! expired after a configurable idle time (checked whenever the table is used), and ended by
//! `DELETE`. Modern (2026-07-28) requests never get or need one.
//!
//! Behind an authentication layer, a session belongs to the subject that opened it: another
//! caller presenting its id finds no session (404).
//!
//! Each session keeps its resumable SSE streams ([`super::resume`]) beside it; they go with
//! it when it ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use mcp_core::protocol::new_session_id;

use super::resume::{self, Streams};
use crate::dispatch::Session;

/// Why a session could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every slot is taken by a live session.
    TooMany,
    /// The system random source failed: no id can be minted.
    NoRandomness,
}

/// A stored session, its streams, and the authenticated subject that opened it.
#[derive(Debug)]
struct Entry {
    live: Live,
    owner: Option<String>,
}

/// A live session and its resumable streams.
#[derive(Debug, Clone)]
pub(crate) struct Live {
    pub(crate) session: Arc<Session>,
    pub(crate) streams: Arc<Streams>,
}

/// The session table.
#[derive(Debug)]
pub(crate) struct Sessions {
    table: Mutex<HashMap<String, Entry>>,
    max: usize,
    idle: Duration,
    streams: resume::Settings,
}

impl Sessions {
    pub(crate) fn new(max: usize, idle: Duration, streams: resume::Settings) -> Self {
        Self {
            table: Mutex::default(),
            max,
            idle,
            streams,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn expired(&self, session: &Session) -> bool {
        session.last_used().elapsed() > self.idle
    }

    /// The live session named `id`, if `owner` opened it; an expired one is ended and
    /// forgotten.
    pub(crate) fn get(&self, id: &str, owner: Option<&str>) -> Option<Live> {
        let mut table = self.lock();
        let entry = table.get(id)?;
        if self.expired(&entry.live.session) {
            if let Some(entry) = table.remove(id) {
                entry.live.session.close();
            }
            return None;
        }
        (entry.owner.as_deref() == owner).then(|| entry.live.clone())
    }

    /// Stores a new session of `owner` under a fresh id, after dropping expired ones.
    pub(crate) fn insert(
        &self,
        session: Arc<Session>,
        owner: Option<String>,
    ) -> Result<String, Full> {
        let mut table = self.lock();
        table.retain(|_, entry| {
            let keep = !self.expired(&entry.live.session);
            if !keep {
                entry.live.session.close();
            }
            keep
        });
        if table.len() >= self.max {
            return Err(Full::TooMany);
        }
        let id = new_session_id().ok_or(Full::NoRandomness)?;
        let streams = Streams::new(&id, &session, self.streams.clone());
        let live = Live { session, streams };
        table.insert(id.clone(), Entry { live, owner });
        Ok(id)
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
        match table.remove(id) {
            Some(entry) => {
                entry.live.session.close();
                true
            }
            None => false,
        }
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        for entry in self.lock().values() {
            entry.live.session.close();
        }
    }
}
