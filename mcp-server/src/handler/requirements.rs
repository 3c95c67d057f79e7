//! What a handler needs from the server it is registered on, checked once when the server
//! is built (or when a route is added while it runs) instead of failing every call.
//!
//! Extractors declare their needs through [`FromInvocation::requirements`]: `State<T>` needs a
//! `T` registered with [`ServerBuilder::state`](crate::ServerBuilder::state), `Round<S>` needs
//! a request-state signer.
//!
//! ```
//! use typemcp_server::{Server, State, ToolRoute, BuildError};
//!
//! #[derive(Clone)]
//! struct Db;
//!
//! let route = ToolRoute::new("count", |_db: State<Db>| async { "0" });
//! let err = Server::builder().tool(route).build().unwrap_err();
//! assert!(matches!(err, BuildError::MissingState { .. }));
//! assert!(err.to_string().contains("State<"));
//! ```

use std::fmt;

use super::FromInvocation;

/// The needs of one handler, collected from its parameters.
#[derive(Default, Clone)]
pub struct Requirements {
    states: Vec<StateNeed>,
    signer: Option<&'static str>,
    reads_request_state: bool,
}

/// A `State<T>` parameter: the type's name, and how to find it among the registered states.
#[derive(Clone, Copy)]
struct StateNeed {
    type_name: &'static str,
    registered: fn(&http::Extensions) -> bool,
}

impl fmt::Debug for Requirements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Requirements")
            .field(
                "states",
                &self.states.iter().map(|s| s.type_name).collect::<Vec<_>>(),
            )
            .field("signer", &self.signer)
            .field("reads_request_state", &self.reads_request_state)
            .finish()
    }
}

impl Requirements {
    /// The handler reads shared state of type `T` (`State<T>`).
    pub fn state<T: Clone + Send + Sync + 'static>(&mut self) {
        self.states.push(StateNeed {
            type_name: std::any::type_name::<T>(),
            registered: |states| states.get::<T>().is_some(),
        });
    }

    /// The handler signs and verifies `requestState` (`Round<S>`); `extractor` names the
    /// parameter's type for the error message.
    pub fn request_state_signer(&mut self, extractor: &'static str) {
        self.signer.get_or_insert(extractor);
        self.reads_request_state = true;
    }

    /// The handler reads the echoed `requestState` or mints one (`RequestState`), so the
    /// server derives the request's binding for it. A handler without such a parameter, on a
    /// request that carries no state, skips that work; a state it returns anyway is refused.
    pub fn reads_request_state(&mut self) {
        self.reads_request_state = true;
    }

    /// Whether the handler takes part in multi-round requests (see
    /// [`reads_request_state`](Self::reads_request_state)).
    pub(crate) fn takes_part_in_rounds(&self) -> bool {
        self.reads_request_state
    }

    /// Collects the needs of the extractor `T`.
    pub fn extractor<T: FromInvocation>(&mut self) {
        T::requirements(self);
    }

    /// The first need the server does not meet: `Err` with what is missing.
    pub(crate) fn check(&self, states: &http::Extensions, has_signer: bool) -> Result<(), Unmet> {
        if let Some(need) = self.states.iter().find(|need| !(need.registered)(states)) {
            return Err(Unmet::State(need.type_name));
        }
        match self.signer {
            Some(extractor) if !has_signer => Err(Unmet::Signer(extractor)),
            _ => Ok(()),
        }
    }
}

/// A need the server does not meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unmet {
    /// No state of this type was registered.
    State(&'static str),
    /// This extractor needs a request-state signer, and the server has none.
    Signer(&'static str),
}
