//! Procedural macros of the MCP Rust SDK. Use them through `typemcp_server`, which re-exports
//! them; generated code reaches the runtime only through `::typemcp_server` (or the path given
//! with `crate = path`) and its versioned hidden module `__private_v0_1` ([`krate`]).
//!
//! Every macro is parse → IR → check → expand: attributes are parsed into typed values that
//! keep their spans ([`attrs`]), the function into a small model ([`model`]), each rule is one
//! function in [`check`], and [`expand`] only writes tokens. Errors are collected
//! ([`ctxt`]) and reported together, beside fallback items so one mistake does not cascade.

// The crate documentation is for maintainers: it links the internal modules.
#![allow(rustdoc::private_intra_doc_links)]

mod attrs;
mod check;
mod continuation;
mod ctxt;
mod doc;
mod expand;
mod form;
mod krate;
mod model;
mod tool_input;

use proc_macro::TokenStream;

/// Declares a tool from an async function. See `typemcp_server::tool` for the attribute keys.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::handler(expand::Kind::Tool, attr.into(), item.into()).into()
}

/// Declares a prompt from an async function. See `typemcp_server::prompt`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::handler(expand::Kind::Prompt, attr.into(), item.into()).into()
}

/// Declares a resource or resource template from an async function. See
/// `typemcp_server::resource`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::handler(expand::Kind::Resource, attr.into(), item.into()).into()
}

/// Marks a struct with named fields as a tool's whole `arguments` object. See
/// `typemcp_server::ToolInput`.
#[proc_macro_derive(ToolInput, attributes(tool_input))]
pub fn derive_tool_input(item: TokenStream) -> TokenStream {
    tool_input::derive(item.into()).into()
}

/// Derives `ElicitForm` for a struct whose fields are the questions. See
/// `typemcp_server::ElicitForm`.
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(item: TokenStream) -> TokenStream {
    form::derive_form(item.into()).into()
}

/// The attribute spelling of `#[derive(ElicitForm)]`. See `typemcp_server::elicit_form`.
#[proc_macro_attribute]
pub fn elicit_form(attr: TokenStream, item: TokenStream) -> TokenStream {
    form::attribute(attr.into(), item.into()).into()
}

/// Derives `FormChoice` for a unit-only enum. See `typemcp_server::FormChoice`.
#[proc_macro_derive(FormChoice, attributes(choice, serde))]
pub fn derive_form_choice(item: TokenStream) -> TokenStream {
    form::derive_choice(item.into()).into()
}

/// Derives `Continuation` for a multi-round state enum. See `typemcp_server::state::Continuation`.
#[proc_macro_derive(Continuation, attributes(awaits, continuation))]
pub fn derive_continuation(item: TokenStream) -> TokenStream {
    continuation::derive(item.into()).into()
}
