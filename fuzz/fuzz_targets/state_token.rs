//! Fuzz target `state_token`: see `mcp_fuzz::state_token` for the input layout and what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::state_token::run(data));
