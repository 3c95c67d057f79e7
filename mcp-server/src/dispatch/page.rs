//! Pagination of list results with opaque cursors.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use typemcp_core::McpError;

/// Cuts one page out of `items`. The cursor is opaque to clients (base64 of an offset);
/// an unreadable cursor is `-32602`.
pub(crate) fn page<T: Clone>(
    items: impl ExactSizeIterator<Item = T>,
    cursor: Option<&str>,
    page_size: Option<usize>,
) -> Result<(Vec<T>, Option<String>), McpError> {
    let total = items.len();
    let start = match cursor {
        None => 0,
        Some(cursor) => decode(cursor)
            .filter(|&offset| offset <= total)
            .ok_or_else(|| McpError::invalid_params("Invalid cursor"))?,
    };
    let size = page_size.unwrap_or(usize::MAX);
    let page: Vec<T> = items.skip(start).take(size).collect();
    let end = start + page.len();
    let next = (end < total).then(|| encode(end));
    Ok((page, next))
}

fn encode(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("o:{offset}"))
}

fn decode(cursor: &str) -> Option<usize> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    std::str::from_utf8(&bytes)
        .ok()?
        .strip_prefix("o:")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_through_items_and_rejects_bad_cursors() {
        let items = [1, 2, 3, 4, 5];
        let (first, next) = page(items.iter().copied(), None, Some(2)).expect("page");
        assert_eq!(first, [1, 2]);
        let (second, next) = page(items.iter().copied(), next.as_deref(), Some(2)).expect("page");
        assert_eq!(second, [3, 4]);
        let (third, next) = page(items.iter().copied(), next.as_deref(), Some(2)).expect("page");
        assert_eq!((third, next), (vec![5], None));
        assert!(page(items.iter().copied(), Some("garbage!"), Some(2)).is_err());
        assert!(page(items.iter().copied(), Some(&encode(99)), Some(2)).is_err());
        let (all, next) = page(items.iter().copied(), None, None).expect("page");
        assert_eq!((all.len(), next), (5, None));
    }
}
