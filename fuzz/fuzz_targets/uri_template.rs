//! Fuzz target `uri_template`: see `mcp_fuzz::uri_template` for the input layout and what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::uri_template::run(data));
