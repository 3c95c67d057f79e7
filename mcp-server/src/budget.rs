//! A transport's budget of requests served at once, and the rule that a request waiting for
//! the client gives its place back meanwhile.
//!
//! stdio reads its input in one loop: with every place taken, it stops reading until one is
//! free, so a client that writes without reading holds back its own writes instead of
//! growing the server. A request whose handler waits for the client's answer to a pushed
//! request (a 2025-11-25 session) must not keep its place while it waits: the answer comes
//! in on the same input, and with every place held by such waits the reader would never
//! read it. [`waiting_for_client`] gives the place back for the wait and takes one again
//! afterwards.

#[cfg(sessions)]
use std::future::Future;
#[cfg(sessions)]
use std::sync::{Arc, Mutex, PoisonError};

#[cfg(sessions)]
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many stdio requests are served at once by default.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;

/// The largest stdio message accepted by default, in bytes (4 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

#[cfg(sessions)]
tokio::task_local! {
    /// The place of the request the current task serves, if its transport has a budget.
    static PLACE: Place;
}

#[cfg(sessions)]
struct Place {
    budget: Arc<Semaphore>,
    permit: Mutex<Option<OwnedSemaphorePermit>>,
}

/// How many requests may be served at once.
#[cfg(feature = "stdio")] // Used by the stdio transport.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    places: Arc<Semaphore>,
}

#[cfg(feature = "stdio")]
impl Budget {
    pub(crate) fn new(places: usize) -> Self {
        Self {
            places: Arc::new(Semaphore::new(places.max(1))),
        }
    }

    /// Waits for a free place.
    pub(crate) async fn admit(&self) -> Option<OwnedSemaphorePermit> {
        // The semaphore is never closed, so this only fails if it were.
        Arc::clone(&self.places).acquire_owned().await.ok()
    }

    /// Runs `serve` in the place `permit` holds, freed when it ends.
    pub(crate) fn run<F: Future>(
        &self,
        permit: Option<OwnedSemaphorePermit>,
        serve: F,
    ) -> impl Future<Output = F::Output> + use<F> {
        let place = Place {
            budget: Arc::clone(&self.places),
            permit: Mutex::new(permit),
        };
        PLACE.scope(place, serve)
    }
}

/// Runs `wait` (for the client's answer) with the current request's place given back, and
/// takes a place again when it ends. Outside a budgeted request, just runs `wait`.
#[cfg(sessions)]
pub(crate) async fn waiting_for_client<T>(wait: impl Future<Output = T>) -> T {
    let budget = PLACE
        .try_with(|place| {
            let held = place
                .permit
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            held.map(|permit| {
                drop(permit);
                Arc::clone(&place.budget)
            })
        })
        .ok()
        .flatten();
    let Some(budget) = budget else {
        return wait.await;
    };
    let out = wait.await;
    let permit = budget.acquire_owned().await.ok();
    let _ = PLACE.try_with(|place| {
        *place.permit.lock().unwrap_or_else(PoisonError::into_inner) = permit;
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "stdio")]
    #[tokio::test]
    async fn a_wait_for_the_client_frees_the_place_and_takes_one_again() {
        let budget = Budget::new(1);
        let permit = budget.admit().await;
        assert_eq!(budget.places.available_permits(), 0);
        let places = Arc::clone(&budget.places);
        budget
            .run(permit, async move {
                let seen = waiting_for_client(async { places.available_permits() }).await;
                assert_eq!(seen, 1, "the place is free while waiting");
                assert_eq!(places.available_permits(), 0, "and taken again after");
            })
            .await;
        assert_eq!(budget.places.available_permits(), 1, "freed at the end");
    }

    #[tokio::test]
    async fn outside_a_budget_the_wait_just_runs() {
        assert_eq!(waiting_for_client(async { 7 }).await, 7);
    }
}
