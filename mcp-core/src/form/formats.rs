//! The four string formats of a form field (`email`, `uri`, `date`, `date-time`), checked
//! by hand: each is a small grammar, so no validator crate is needed.

use crate::protocol::StringFormat;

/// Whether `text` is written in `format`.
pub(crate) fn matches(format: StringFormat, text: &str) -> bool {
    match format {
        StringFormat::Email => is_email(text),
        StringFormat::Uri => is_uri(text),
        StringFormat::Date => is_date(text),
        StringFormat::DateTime => is_date_time(text),
    }
}

/// The name of a format in messages (as written in a schema).
pub(crate) fn describe(format: StringFormat) -> &'static str {
    match format {
        StringFormat::Email => "email address",
        StringFormat::Uri => "URI",
        StringFormat::Date => "date",
        StringFormat::DateTime => "date-time",
    }
}

/// The shape `local@domain.tld`: one `@`, no spaces, a dot inside the domain.
pub(crate) fn is_email(text: &str) -> bool {
    match text.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !text.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

/// An absolute URI (RFC 3986): a scheme, `:`, then only URI characters, with every `%`
/// starting an escape of two hex digits, at most one `#`, and brackets only in the
/// authority (for IPv6 hosts).
pub(crate) fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut scheme_chars = scheme.chars();
    let scheme_ok = scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || rest.matches('#').count() > 1 {
        return false;
    }
    let authority_end = match rest.strip_prefix("//") {
        Some(after) => 2 + after.find(['/', '?', '#']).unwrap_or(after.len()),
        None => 0,
    };
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let ok = match bytes[i] {
            b'%' => {
                let escape = bytes.get(i + 1..i + 3);
                if !escape.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
                i += 2;
                true
            }
            b'[' | b']' => i < authority_end,
            b => b.is_ascii_alphanumeric() || b"-._~:/?#@!$&'()*+,;=".contains(&b),
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// A full date, `YYYY-MM-DD`, that exists in the calendar (RFC 3339 `full-date`).
pub(crate) fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// A date and time with an offset, `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` (RFC 3339
/// `date-time`; `T` and `Z` in either case, a leap second allowed).
pub(crate) fn is_date_time(text: &str) -> bool {
    if !text.is_char_boundary(10) || text.len() < 20 {
        return false;
    }
    let (date, rest) = text.split_at(10);
    let b = rest.as_bytes();
    if !is_date(date) || !matches!(b[0], b'T' | b't') || b[3] != b':' || b[6] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[1..3]), digits(&b[4..6]), digits(&b[7..9]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut offset = &b[9..];
    if let Some(fraction) = offset.strip_prefix(b".") {
        let count = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if count == 0 {
            return false;
        }
        offset = &fraction[count..];
    }
    match offset {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2]), digits(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

/// The value of a run of ASCII digits.
fn digits(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |n, b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        for ok in ["ann@example.com", "a.b+c@mail.example.org"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.com",
            "ann@example",
            "ann@.com",
            "ann@example.",
            "a@b@c.d",
            "ann smith@example.com",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn uris() {
        for ok in [
            "https://example.com/a?b=c#d",
            "mailto:ann@example.com",
            "urn:isbn:0451450523",
            "file:///etc/hosts",
            "http://[::1]:8080/",
            "https://example.com/caf%C3%A9",
        ] {
            assert!(is_uri(ok), "{ok}");
        }
        for bad in [
            "",
            "not a uri",
            "//no-scheme",
            "/relative/path",
            "1http://example.com",
            "ht tp://example.com",
            "https://example.com/a b",
            "https://example.com/%zz",
            "https://example.com/%4",
            "https://example.com/#a#b",
            "https://example.com/[x]",
            "https://example.com/café",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
    }

    #[test]
    fn dates() {
        for ok in ["2024-02-29", "2000-02-29", "2023-12-31", "0001-01-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-01-00",
            "2024-1-01",
            "29/02/2024",
            "2024-02-29T00:00:00Z",
            "yesterday",
            "２０２４-01-01",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
    }

    #[test]
    fn date_times() {
        for ok in [
            "2024-02-29T12:30:00Z",
            "2024-02-29t12:30:00z",
            "2024-02-29T12:30:00.123+02:00",
            "2024-02-29T23:59:60-05:30",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2024-02-29",
            "2024-02-29T25:00:00Z",
            "2024-02-29T12:60:00Z",
            "2024-02-29T12:30:61Z",
            "2024-02-29T12:30:00",
            "2024-02-29T12:30:00.Z",
            "2024-02-29T12:30:00+24:00",
            "2024-02-29 12:30:00Z",
            "2023-02-29T12:30:00Z",
            "tomorrow at noon",
            "2024-02-2é12:30:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn every_format_dispatches() {
        assert!(matches(StringFormat::Email, "ann@example.com"));
        assert!(matches(StringFormat::Uri, "https://example.com"));
        assert!(matches(StringFormat::Date, "2024-02-29"));
        assert!(matches(StringFormat::DateTime, "2024-02-29T12:30:00Z"));
        assert!(!matches(StringFormat::Email, "https://example.com"));
        assert!(!matches(StringFormat::Uri, "ann"));
        assert!(!matches(StringFormat::Date, "2024-02-29T12:30:00Z"));
        assert!(!matches(StringFormat::DateTime, "2024-02-29"));
    }
}
