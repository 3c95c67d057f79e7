//! Helpers shared by the integration tests of `typemcp-server` (the `integration` binary and
//! `replay_memory.rs`, which declares it by path).

#![allow(dead_code, unreachable_pub)]

pub mod abuse;
pub mod balancer;
pub mod client;
pub mod confirm;
pub mod log_capture;
#[cfg(feature = "redis")]
#[macro_use]
pub mod redis;
pub mod replies;
pub mod sessions_http;
pub mod stdio_pipe;
pub mod task_calls;
pub mod wire;
