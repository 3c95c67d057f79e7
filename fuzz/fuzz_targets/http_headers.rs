//! Fuzz target `http_headers`: see `mcp_fuzz::http_headers` for the input layout and what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::http_headers::run(data));
