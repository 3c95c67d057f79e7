//! Helpers shared by the integration tests of `typemcp-server` (each test file that needs them
//! declares `mod support;`).

#![allow(dead_code, unreachable_pub)]

pub mod abuse;
pub mod log_capture;
#[cfg(feature = "redis")]
#[macro_use]
pub mod redis;
pub mod replies;
pub mod sessions_http;
pub mod stdio_pipe;
pub mod task_calls;
