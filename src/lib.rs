//! Shared support for the workspace's examples and end-to-end tests.

/// Compiles the README's code blocks as doctests, so the quick start cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
