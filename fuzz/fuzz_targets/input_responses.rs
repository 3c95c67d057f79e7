//! Fuzz target `input_responses`: see `mcp_fuzz::input_responses` for the input layout and what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::input_responses::run(data));
