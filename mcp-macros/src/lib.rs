//! Procedural macros of the MCP Rust SDK.
//!
//! The declaration macros (`#[tool]`, `#[prompt]`, `#[resource]`) and the form derive
//! (`#[elicit_form]`) live here. Use them through `mcp_server`, which re-exports them.
