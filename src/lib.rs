//! Shared support for the workspace's examples and end-to-end tests.
