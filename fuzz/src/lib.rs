//! The fuzz targets' logic, one module per target, so that the same code runs under
//! libFuzzer (`fuzz_targets/*.rs`, through `cargo fuzz`) and over the committed seeds as a
//! plain test (`cargo test` in this directory, no sanitizer needed).
//!
//! Each `run` takes the fuzzer's bytes, drives one entry point of the SDK, and panics only
//! when a property the SDK promises is broken (a panic inside the SDK is a crash too).

pub mod fixtures;
pub mod http_headers;
pub mod input_responses;
pub mod jsonrpc;
pub mod state_token;
pub mod uri_template;

#[cfg(test)]
mod seeds;
