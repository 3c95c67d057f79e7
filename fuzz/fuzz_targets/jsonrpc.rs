//! Fuzz target `jsonrpc`: see `mcp_fuzz::jsonrpc` for the input layout and what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_fuzz::jsonrpc::run(data));
