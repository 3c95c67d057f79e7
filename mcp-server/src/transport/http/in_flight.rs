//! The per-caller share of HTTP exchanges in flight: each request to the endpoint (a POST of
//! either era, a 2025-11-25 GET stream, a DELETE) holds one place of its caller
//! ([`Caller`]) from the moment its head is checked until its response body has ended and its
//! handler's reply has resolved (whichever comes last: a resumable 2025-11-25 stream goes on
//! after its client left). A caller holding [`HttpConfig::max_in_flight_per_caller`] places is
//! refused further ones with 429 until one ends, while every other caller is served.
//!
//! The cost per request is two short critical sections on one map (enter, leave); the map
//! holds only callers with a place taken, so it is bounded by the open connections.
//!
//! [`HttpConfig::max_in_flight_per_caller`]: super::HttpConfig::max_in_flight_per_caller

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, HttpBody};
use axum::response::Response;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};

use super::sessions::InUse;
use crate::caller::Caller;
use crate::server::Serving;

/// The places in flight of every caller.
#[derive(Debug)]
pub(crate) struct InFlight {
    limit: usize,
    callers: Mutex<HashMap<Caller, usize>>,
}

/// One caller's place, given back when dropped.
#[derive(Debug)]
pub(crate) struct Place {
    table: Arc<InFlight>,
    caller: Caller,
}

impl InFlight {
    /// A table granting each caller at most `limit` places.
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            callers: Mutex::default(),
        })
    }

    /// The most places a caller may hold.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Caller, usize>> {
        self.callers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for `caller`, or `None` when it holds all of its share.
    pub(crate) fn enter(self: &Arc<Self>, caller: Caller) -> Option<Place> {
        {
            let mut callers = self.lock();
            let held = callers.entry(caller.clone()).or_insert(0);
            if *held >= self.limit {
                return None;
            }
            *held += 1;
        }
        Some(Place {
            table: Arc::clone(self),
            caller,
        })
    }

    /// How many places `caller` holds.
    #[cfg(test)]
    fn held(&self, caller: &Caller) -> usize {
        self.lock().get(caller).copied().unwrap_or(0)
    }
}

impl Place {
    /// The caller holding this place.
    pub(crate) fn caller(&self) -> &Caller {
        &self.caller
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut callers = self.table.lock();
        if let Some(held) = callers.get_mut(&self.caller) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                callers.remove(&self.caller);
            }
        }
    }
}

/// What one exchange holds until its answer is sent and its handler is done: its caller's
/// place and, on a 2025-11-25 session, the session's mark of use (a session in use does not
/// give way to new ones). Shared between the response body and the handler's reply.
///
/// A request also counts as served (`Serving`) until then: a graceful shutdown stops the
/// server only once its answer is out, the last event of a session's stream included.
#[derive(Debug)]
pub(crate) struct Held {
    _place: Place,
    _session: Option<InUse>,
    _serving: Option<Serving>,
}

impl Held {
    /// Holds `place` and, if given, the session in use and the request's count as served.
    pub(crate) fn new(place: Place, session: Option<InUse>, serving: Option<Serving>) -> Arc<Self> {
        Arc::new(Self {
            _place: place,
            _session: session,
            _serving: serving,
        })
    }
}

/// `response`, its body holding `held` until it ends (sent whole, or dropped when the
/// client goes away).
pub(crate) fn until_sent(response: Response, held: Arc<Held>) -> Response {
    response.map(|inner| Body::new(HeldBody { inner, _held: held }))
}

/// A response body that keeps what its exchange holds alive as long as itself.
struct HeldBody {
    inner: Body,
    _held: Arc<Held>,
}

impl HttpBody for HeldBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    fn peer(last: u8) -> Caller {
        Caller::Address(IpAddr::from([127, 0, 0, last]))
    }

    #[test]
    fn a_caller_gets_its_share_and_no_more_while_others_still_enter() {
        let table = InFlight::new(2);
        let first = table.enter(peer(1));
        let second = table.enter(peer(1));
        assert!(first.is_some() && second.is_some());
        assert!(
            table.enter(peer(1)).is_none(),
            "a third place over a share of 2"
        );
        assert!(
            table.enter(peer(2)).is_some(),
            "another caller is still served"
        );
        drop(first);
        assert_eq!(table.held(&peer(1)), 1);
        assert!(
            table.enter(peer(1)).is_some(),
            "a place given back is free again"
        );
    }

    #[test]
    fn callers_without_places_are_forgotten() {
        let table = InFlight::new(4);
        let place = table.enter(peer(3));
        drop(place);
        assert!(table.lock().is_empty());
    }
}
