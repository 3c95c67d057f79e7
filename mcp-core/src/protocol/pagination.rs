//! Cursor-based pagination of list methods.

use serde::{Deserialize, Serialize};

/// The params of a paginated list request (without `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// The opaque cursor of the page wanted; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
