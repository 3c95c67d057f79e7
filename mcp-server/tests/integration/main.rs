//! The integration tests of `typemcp-server`, in one binary: each module was a test binary of
//! its own (its doc comment says what it covers), and [`support`] holds what they share. The
//! two resident-memory measurements (`tests/replay_memory.rs`, `tests/task_memory_rss.rs`)
//! and the compile-error snapshots (`tests/ui.rs`) stay binaries of their own: the first need
//! the process to themselves, the last runs the compiler.
//!
//! Modules behind a feature (`http2`, `auth-jwt`, `schema-validation`, `redis`) are compiled
//! in only with it: `cargo test -p typemcp-server --features auth-jwt --test integration http_auth`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod abuse_flows;
mod abuse_http;
mod abuse_stdio;
mod build_errors;
mod capability_message;
mod forms;
mod fuzz_regressions;
mod host_origin;
mod http2;
mod http_auth;
mod http_sessions;
mod layers;
mod legacy_era;
mod legacy_pushed;
mod macro_hygiene;
mod multi_round;
mod output_eras;
mod param_headers;
mod reask_reasons;
mod replay_budget;
mod request_span;
mod request_state;
mod resource_mime;
mod schema_formats;
mod schema_shapes;
mod schema_validation;
mod service_layers;
mod shared_sessions;
mod single_use;
mod single_use_redis;
mod skills;
mod sse_resume;
mod task_bounds;
mod task_bounds_redis;
mod tasks;
mod tasks_redis;
