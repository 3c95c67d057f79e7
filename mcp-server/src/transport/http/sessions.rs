//! The 2025-11-25 sessions of one HTTP endpoint, by `Mcp-Session-Id`: bounded in number,
//! expired after a configurable idle time (checked whenever the table is used), and ended by
//! `DELETE`. Modern (2026-07-28) requests never get or need one.
//!
//! Behind an authentication layer, a session belongs to the subject that opened it: another
//! caller presenting its id finds no session (404).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use mcp_core::protocol::new_session_id;

use crate::dispatch::Session;

/// Why a session could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every slot is taken by a live session.
    TooMany,
    /// The system random source failed: no id can be minted.
    NoRandomness,
}

/// A stored session and the authenticated subject that opened it.
#[derive(Debug)]
struct Entry {
    session: Arc<Session>,
    owner: Option<String>,
}

/// The session table.
#[derive(Debug)]
pub(crate) struct Sessions {
    table: Mutex<HashMap<String, Entry>>,
    max: usize,
    idle: Duration,
}

impl Sessions {
    pub(crate) fn new(max: usize, idle: Duration) -> Self {
        Self {
            table: Mutex::default(),
            max,
            idle,
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
    pub(crate) fn get(&self, id: &str, owner: Option<&str>) -> Option<Arc<Session>> {
        let mut table = self.lock();
        let entry = table.get(id)?;
        if self.expired(&entry.session) {
            if let Some(entry) = table.remove(id) {
                entry.session.close();
            }
            return None;
        }
        (entry.owner.as_deref() == owner).then(|| Arc::clone(&entry.session))
    }

    /// Stores a new session of `owner` under a fresh id, after dropping expired ones.
    pub(crate) fn insert(
        &self,
        session: Arc<Session>,
        owner: Option<String>,
    ) -> Result<String, Full> {
        let mut table = self.lock();
        table.retain(|_, entry| {
            let keep = !self.expired(&entry.session);
            if !keep {
                entry.session.close();
            }
            keep
        });
        if table.len() >= self.max {
            return Err(Full::TooMany);
        }
        let id = new_session_id().ok_or(Full::NoRandomness)?;
        table.insert(id.clone(), Entry { session, owner });
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
                entry.session.close();
                true
            }
            None => false,
        }
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        for entry in self.lock().values() {
            entry.session.close();
        }
    }
}
