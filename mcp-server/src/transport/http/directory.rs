//! Where an endpoint finds its 2025-11-25 sessions: its own table ([`Sessions`]) and, given
//! a shared store ([`super::session_store`]), the store through [`Shared`]. The endpoint asks
//! here, and never which of the two holds a session: finding one, opening one, ending one,
//! and the messages that belong to a session another instance may be serving (answers to the
//! server's requests, cancellations, resumed streams).

use std::sync::Arc;

use axum::response::Response;
use typemcp_core::RequestId;

use super::HttpConfig;
use super::resume::{self, Refused};
use super::session_store::SessionBounds;
use super::sessions::{Expiry, Full, InUse, Limits, Sessions};
use super::shared::{Forwarded, Found, Shared};
use crate::Server;
use crate::caller::Caller;
use crate::session::Session;

/// The shared store failed: the message is refused (503), the reason in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unavailable;

/// What became of a client's answer to a request the server pushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answered {
    /// Taken (or, late or unknown, dropped and logged): 202.
    Accepted,
    /// The instance that pushed the request is gone: 410.
    OwnerGone,
    /// Too large to forward to the instance that pushed it: 413.
    TooLarge,
    /// The shared store failed: 503.
    Unavailable,
}

/// An endpoint's sessions.
#[derive(Debug)]
pub(crate) struct Directory {
    sessions: Arc<Sessions>,
    shared: Option<Shared>,
}

impl Directory {
    /// The sessions of an endpoint configured with `config`.
    pub(crate) fn new(config: &HttpConfig) -> Self {
        let shared = config.session_store.as_ref().and_then(|store| {
            let bounds = SessionBounds::new(
                config.max_sessions,
                config.max_sessions_per_caller,
                config.session_idle,
                config.session_min_idle,
            );
            let shared = Shared::new(Arc::clone(store), bounds, config.keep_alive);
            if shared.is_none() {
                tracing::error!("no instance name could be drawn: sessions are not shared");
            }
            shared
        });
        let streams = resume::Settings::of(config);
        let streams = if shared.is_some() {
            streams.shared()
        } else {
            streams
        };
        let limits = Limits {
            max: config.max_sessions,
            per_caller: config.max_sessions_per_caller,
            idle: config.session_idle,
            min_idle: config.session_min_idle,
        };
        let expiry = if shared.is_some() {
            Expiry::Store
        } else {
            Expiry::Local
        };
        Self {
            sessions: Arc::new(Sessions::new(limits, streams, expiry)),
            shared,
        }
    }

    /// The live session `id` of `owner`, marked in use (`None`: no such session, here or in
    /// the store); one another instance opened is adopted, counted against `caller()`.
    pub(crate) async fn find(
        &self,
        server: &Server,
        id: &str,
        owner: Option<&str>,
        caller: &(dyn Fn() -> Caller + Sync),
    ) -> Result<Option<InUse>, Unavailable> {
        let Some(shared) = &self.shared else {
            return Ok(self.sessions.get(id, owner));
        };
        if Box::pin(shared.listen(&self.sessions)).await.is_err() {
            return Err(Unavailable);
        }
        let caller = caller();
        match Box::pin(shared.find(server, &self.sessions, id, owner, &caller)).await {
            Found::Live(live) => Ok(Some(live)),
            Found::Unknown => Ok(None),
            Found::Unavailable => Err(Unavailable),
        }
    }

    /// Keeps a session `initialize` just opened for `owner`, counted against `caller`, under
    /// a fresh id (and in the store); why not, otherwise.
    pub(crate) async fn open(
        &self,
        session: &Arc<Session>,
        owner: Option<String>,
        caller: &Caller,
    ) -> Result<String, Full> {
        let id = self
            .sessions
            .insert(Arc::clone(session), owner.clone(), caller.clone())?;
        let Some(shared) = &self.shared else {
            return Ok(id);
        };
        let owner = owner.as_deref();
        let stored = match Box::pin(shared.listen(&self.sessions)).await {
            Ok(()) => Box::pin(shared.open(&id, session, owner, caller)).await,
            Err(()) => Err(Full::Unavailable),
        };
        match stored {
            Ok(()) => Ok(id),
            Err(full) => {
                self.sessions.remove(&id, owner);
                Err(full)
            }
        }
    }

    /// Ends the session `id` of `owner`, here and in the store; whether it was there.
    pub(crate) async fn remove(&self, id: &str, owner: Option<&str>) -> Result<bool, Unavailable> {
        // The store first: if it fails, the session lives on here too.
        let stored = match &self.shared {
            None => false,
            Some(shared) => shared.remove(id, owner).await.map_err(|()| Unavailable)?,
        };
        let here = self.sessions.remove(id, owner);
        Ok(here || stored)
    }

    /// The client's answer (raw JSON-RPC) on session `id` to a request the server pushed:
    /// to the request waiting here, or forwarded to the instance that pushed it.
    pub(crate) async fn answer(&self, id: &str, session: &Session, bytes: &[u8]) -> Answered {
        if session.answer(bytes) {
            return Answered::Accepted;
        }
        let Some(shared) = &self.shared else {
            return Answered::Accepted;
        };
        match shared.forward_answer(id, bytes).await {
            None | Some(Forwarded::Delivered) => Answered::Accepted,
            Some(Forwarded::OwnerGone) => Answered::OwnerGone,
            Some(Forwarded::TooLarge) => Answered::TooLarge,
            Some(Forwarded::Unavailable) => Answered::Unavailable,
        }
    }

    /// `notifications/cancelled` on session `id`: cancels `request` here, or on the instance
    /// serving it.
    pub(crate) async fn cancel(&self, id: &str, session: &Session, request: RequestId) {
        if session.cancel(&request) {
            tracing::debug!(request_id = %request, "request cancelled by the client");
        } else if let Some(shared) = &self.shared {
            shared.forward_cancel(id, request).await;
        }
    }

    /// GET with `Last-Event-ID` on the live session `id`: the stream resumed here, or relayed
    /// from the instance holding it; the refusal's message otherwise.
    pub(crate) async fn resume(
        &self,
        id: &str,
        live: &InUse,
        last_event_id: &str,
        keep_alive: std::time::Duration,
    ) -> Result<Response, &'static str> {
        match resume::resume(&live.streams, last_event_id, keep_alive) {
            Ok(stream) => Ok(stream),
            Err(Refused::Elsewhere) => match &self.shared {
                Some(shared) => Box::pin(shared.resume_elsewhere(id, last_event_id)).await,
                None => Err(Refused::Elsewhere.message()),
            },
            Err(refused) => {
                tracing::debug!(?refused, "refused to resume a stream");
                Err(refused.message())
            }
        }
    }
}
