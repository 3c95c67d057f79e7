//! The token format (v3): its two modes, and one canonical spelling for every field.
//!
//! - signed: `mcp3.<key id>.<expiry>.<nonce>.<payload>.<tag>`
//! - sealed: `mcp3s.<key id>.<expiry>.<nonce>.<ciphertext>`
//!
//! The key id, nonce, payload, tag and ciphertext are unpadded base64url, the expiry decimal
//! Unix seconds. Parsing refuses every other spelling of the same bytes (padding, stray bits,
//! a sign or leading zero in the expiry) and a nonce of the wrong length, so a token is
//! exactly the text its mode wrote.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::StateError;

/// How a [`StateSigner`](super::StateSigner) protects the states it mints.
///
/// Both modes are equally unforgeable: a token verifies only if a key of the ring minted it,
/// for that binding, before its expiry. They differ in what the client can read.
///
/// - [`Signed`](Self::Signed) (the default): the payload travels in the clear (base64 of the
///   serialized state), authenticated with HMAC-SHA256. Choose it when the state is harmless
///   to show and you want tokens you can read while debugging.
/// - [`Sealed`](Self::Sealed): the payload is encrypted with XChaCha20-Poly1305, and only its
///   length shows. Choose it when the state holds anything the client must not read: internal
///   ids, prices, other users' data, what a later round will check.
///
/// A signer verifies states of both modes, whichever it mints: switching from signed to
/// sealed loses no state in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Protection {
    /// Authenticated, readable by the client.
    #[default]
    Signed,
    /// Authenticated and encrypted.
    Sealed,
}

/// The version field of signed tokens.
pub(crate) const SIGNED: &str = "mcp3";
/// The version field of sealed tokens.
pub(crate) const SEALED: &str = "mcp3s";
/// Random bytes in a signed token (each minting is unique).
pub(crate) const SIGNED_NONCE: usize = 16;
/// The XChaCha20-Poly1305 nonce of a sealed token.
pub(crate) const SEALED_NONCE: usize = 24;

/// A token taken apart, every field in its canonical spelling, nothing verified yet.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) kid: Vec<u8>,
    pub(crate) expiry: u64,
    pub(crate) body: Body,
}

/// The mode-specific fields.
#[derive(Debug)]
pub(crate) enum Body {
    Signed {
        nonce: [u8; SIGNED_NONCE],
        payload: Vec<u8>,
        tag: Vec<u8>,
    },
    Sealed {
        nonce: [u8; SEALED_NONCE],
        ciphertext: Vec<u8>,
    },
}

/// Takes a token apart (its length already checked against the cap).
pub(crate) fn parse(token: &str) -> Result<Parsed, StateError> {
    let mut parts = token.split('.');
    let version = parts.next().unwrap_or_default();
    // One more than the longest layout, to tell a surplus part.
    let fields: [Option<&str>; 6] = std::array::from_fn(|_| parts.next());
    let (kid, expiry, body) = match (version, fields) {
        (
            SIGNED,
            [
                Some(kid),
                Some(expiry),
                Some(nonce),
                Some(payload),
                Some(tag),
                None,
            ],
        ) => {
            let body = Body::Signed {
                nonce: nonce_of(nonce)?,
                payload: decode_canonical(payload, "payload is not canonical base64url")?,
                tag: decode_canonical(tag, "tag is not canonical base64url")?,
            };
            (kid, expiry, body)
        }
        (
            SEALED,
            [
                Some(kid),
                Some(expiry),
                Some(nonce),
                Some(ciphertext),
                None,
                _,
            ],
        ) => {
            let body = Body::Sealed {
                nonce: nonce_of(nonce)?,
                ciphertext: decode_canonical(ciphertext, "ciphertext is not canonical base64url")?,
            };
            (kid, expiry, body)
        }
        (SIGNED | SEALED, _) => return Err(StateError::Malformed("wrong number of parts")),
        _ => return Err(StateError::Malformed("unknown version")),
    };
    Ok(Parsed {
        kid: decode_canonical(kid, "key id is not canonical base64url")?,
        expiry: parse_expiry(expiry)?,
        body,
    })
}

/// A nonce of exactly `N` bytes.
fn nonce_of<const N: usize>(text: &str) -> Result<[u8; N], StateError> {
    const WHAT: &str = "nonce is not canonical base64url of the right length";
    decode_canonical(text, WHAT)?
        .try_into()
        .map_err(|_| StateError::Malformed(WHAT))
}

/// A signed token's text.
pub(crate) fn signed(kid: &[u8], expiry: u64, nonce: &[u8], payload: &[u8], tag: &[u8]) -> String {
    join(SIGNED, kid, expiry, [nonce, payload, tag])
}

/// A sealed token's text.
pub(crate) fn sealed(kid: &[u8], expiry: u64, nonce: &[u8], ciphertext: &[u8]) -> String {
    join(SEALED, kid, expiry, [nonce, ciphertext])
}

fn join<const N: usize>(version: &str, kid: &[u8], expiry: u64, rest: [&[u8]; N]) -> String {
    let len = rest
        .iter()
        .map(|part| part.len() * 4 / 3 + 2)
        .sum::<usize>();
    let mut out = String::with_capacity(version.len() + kid.len() * 2 + 22 + len);
    out.push_str(version);
    out.push('.');
    URL_SAFE_NO_PAD.encode_string(kid, &mut out);
    out.push('.');
    out.push_str(&expiry.to_string());
    for part in rest {
        out.push('.');
        URL_SAFE_NO_PAD.encode_string(part, &mut out);
    }
    out
}

/// The fields each prefixed with its length (as 8 big-endian bytes), fed to `sink`: no two
/// different field lists give the same bytes.
pub(crate) fn length_prefixed<'a>(
    fields: impl IntoIterator<Item = &'a [u8]>,
    mut sink: impl FnMut(&[u8]),
) {
    for field in fields {
        sink(&(field.len() as u64).to_be_bytes());
        sink(field);
    }
}

/// Decodes unpadded base64url, refusing any text that is not the canonical encoding of the
/// bytes it decodes to (padding, non-zero trailing bits).
pub(crate) fn decode_canonical(part: &str, what: &'static str) -> Result<Vec<u8>, StateError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| StateError::Malformed(what))?;
    // Whole groups of four characters and three bytes map one to one; only the last, partial
    // group can be spelled otherwise. The engine already refuses padding and stray bits:
    // re-encoding that group keeps the rule explicit and independent of its configuration.
    let (full_chars, full_bytes) = (part.len() / 4 * 4, part.len() / 4 * 3);
    let tail = bytes.get(full_bytes..).unwrap_or_default();
    let spelled = part.get(full_chars..).unwrap_or_default();
    if URL_SAFE_NO_PAD.encode(tail) != spelled {
        return Err(StateError::Malformed(what));
    }
    Ok(bytes)
}

/// The expiry in canonical decimal: ASCII digits only (no sign, no space), no leading zero,
/// within `u64`.
pub(crate) fn parse_expiry(text: &str) -> Result<u64, StateError> {
    const NOT_CANONICAL: StateError = StateError::Malformed("expiry is not a canonical number");
    let digits_only = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits_only || (text.len() > 1 && text.starts_with('0')) {
        return Err(NOT_CANONICAL);
    }
    text.parse().map_err(|_| NOT_CANONICAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expiry_has_one_spelling() {
        assert_eq!(parse_expiry("1796073536"), Ok(1_796_073_536));
        assert_eq!(parse_expiry("0"), Ok(0));
        for respelled in [
            "+1796073536",
            "01796073536",
            "00",
            " 1796073536",
            "1796073536 ",
            "-0",
            "",
            "1_796_073_536",
            "18446744073709551616",
        ] {
            assert!(parse_expiry(respelled).is_err(), "{respelled:?}");
        }
    }

    #[test]
    fn base64_fields_have_one_spelling() {
        // "QQ" is the canonical spelling of "A"; "QR".."QV" differ only in unused bits.
        assert_eq!(decode_canonical("QQ", "x"), Ok(b"A".to_vec()));
        for respelled in ["QR", "QV", "QQ==", "QQ=", "Q Q", "QQ\n"] {
            assert!(decode_canonical(respelled, "x").is_err(), "{respelled:?}");
        }
    }

    #[test]
    fn tokens_parse_back_into_their_fields() {
        let nonce = [9u8; SIGNED_NONCE];
        let token = signed(b"k", 42, &nonce, b"payload", &[1, 2, 3]);
        let parsed = parse(&token).unwrap();
        assert_eq!(
            (parsed.kid.as_slice(), parsed.expiry),
            (b"k".as_slice(), 42)
        );
        assert!(matches!(
            parsed.body,
            Body::Signed { nonce: n, ref payload, ref tag }
                if n == nonce && payload == b"payload" && tag == &[1, 2, 3]
        ));
        let nonce = [7u8; SEALED_NONCE];
        let token = sealed(b"k", 42, &nonce, b"ciphertext");
        assert!(matches!(
            parse(&token).unwrap().body,
            Body::Sealed { nonce: n, ref ciphertext } if n == nonce && ciphertext == b"ciphertext"
        ));
        // A sealed layout under the signed version, and the other way round.
        let swapped = token.replacen(SEALED, SIGNED, 1);
        assert_eq!(
            parse(&swapped).err(),
            Some(StateError::Malformed("wrong number of parts"))
        );
        // A nonce one byte short or long.
        let short = sealed(b"k", 42, &[7u8; SEALED_NONCE - 1], b"c");
        let long = sealed(b"k", 42, &[7u8; SEALED_NONCE + 1], b"c");
        for wrong in [short, long] {
            assert!(matches!(parse(&wrong), Err(StateError::Malformed(m)) if m.contains("nonce")));
        }
        assert_eq!(
            parse("mcp2.a.1.b.c").err(),
            Some(StateError::Malformed("unknown version"))
        );
        assert_eq!(
            parse("").err(),
            Some(StateError::Malformed("unknown version"))
        );
    }
}
