//! The integration tests of `typemcp-core`, in one binary: each module was a test binary of its
//! own (its doc comment says what it covers); [`common`] holds the keys, clocks and states
//! they share.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod fuzz_regressions;
mod key_rings;
mod sealed_states;
mod spec_examples;
mod state_tokens;
mod token_properties;
