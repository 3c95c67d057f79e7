//! Signed mode: HMAC-SHA256 (signing subkey) over every field of the token and the binding.

use hmac::digest::Output;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::format::length_prefixed;
use super::{Binding, SigningKey, StateError};

/// Separates these MACs from any other use of the subkey (and from formats 1 and 2).
const DOMAIN: &[u8] = b"io.mcp-rust/request-state/v3 signed";

/// The fields a signed token's MAC covers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Signed<'a> {
    pub(crate) kid: &'a [u8],
    pub(crate) expiry: u64,
    pub(crate) nonce: &'a [u8],
    pub(crate) binding: &'a Binding,
    pub(crate) payload: &'a [u8],
}

impl Signed<'_> {
    /// The tag.
    pub(crate) fn tag(&self, key: &SigningKey) -> Output<Hmac<Sha256>> {
        self.mac(key).finalize().into_bytes()
    }

    /// Checks `tag` in constant time (a tag of another length is refused too).
    pub(crate) fn verify(&self, key: &SigningKey, tag: &[u8]) -> Result<(), StateError> {
        self.mac(key)
            .verify_slice(tag)
            .map_err(|_| StateError::BadSignature)
    }

    /// The domain, key id, expiry, nonce, binding and payload, each length-prefixed.
    fn mac(&self, key: &SigningKey) -> Hmac<Sha256> {
        let mut mac = key.mac();
        let expiry = self.expiry.to_be_bytes();
        let fields = [
            DOMAIN,
            self.kid,
            &expiry,
            self.nonce,
            self.binding.as_bytes(),
            self.payload,
        ];
        length_prefixed(fields, |bytes| mac.update(bytes));
        mac
    }
}
